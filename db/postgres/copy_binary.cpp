#include "db/postgres/copy_binary.hpp"

#include <cstring>

namespace gpuperf::db::pg {
namespace {

constexpr char kSignature[] = "PGCOPY\n\377\r\n";  // and a NUL: 11 bytes
constexpr std::size_t kSignatureSize = 11;
constexpr std::size_t kHeaderSize = kSignatureSize + 4 + 4;  // signature, flags, extension length

std::uint32_t be32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (std::uint32_t{u[0]} << 24) | (std::uint32_t{u[1]} << 16) | (std::uint32_t{u[2]} << 8) | std::uint32_t{u[3]};
}

std::uint64_t be64(const char* p) { return (std::uint64_t{be32(p)} << 32) | be32(p + 4); }

std::int16_t be16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<std::int16_t>((std::uint16_t{u[0]} << 8) | std::uint16_t{u[1]});
}

void need_eight(const CopyField& f, const char* type) {
  if (f.is_null()) throw CopyFormatError(std::string("a NULL where a ") + type + " was expected");
  if (f.size != 8) {
    throw CopyFormatError(std::string("a field of ") + std::to_string(f.size) + " bytes where a " + type +
                          " (8 bytes) was expected");
  }
}

}  // namespace

std::int64_t CopyField::int8() const {
  need_eight(*this, "bigint");
  return static_cast<std::int64_t>(be64(data));
}

double CopyField::float8() const {
  need_eight(*this, "double precision");
  const std::uint64_t bits = be64(data);
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

void CopyBinaryDecoder::feed(std::string_view bytes) {
  // Drop what was read, so the buffer holds only the unfinished tail (one tuple at most) and the new bytes.
  if (at_ > 0) {
    buf_.erase(0, at_);
    consumed_ += at_;
    at_ = 0;
  }
  buf_.append(bytes.data(), bytes.size());
}

bool CopyBinaryDecoder::read_header() {
  if (buf_.size() - at_ < kHeaderSize) {
    // A wrong signature is said at once, not after the stream runs out.
    const std::size_t have = std::min(buf_.size() - at_, kSignatureSize);
    if (std::memcmp(buf_.data() + at_, kSignature, have) != 0) {
      throw CopyFormatError("not binary COPY data: the stream does not start with the PGCOPY signature");
    }
    return false;
  }
  if (std::memcmp(buf_.data() + at_, kSignature, kSignatureSize) != 0) {
    throw CopyFormatError("not binary COPY data: the stream does not start with the PGCOPY signature");
  }
  const std::uint32_t flags = be32(buf_.data() + at_ + kSignatureSize);
  // Bits 0-15 are flags a reader must understand (none defined); bit 16 says each tuple carries an OID this
  // reader would not expect (no server since PostgreSQL 12 sends one); bits 17-31 may be ignored.
  if ((flags & 0x0001FFFFu) != 0) {
    throw CopyFormatError("binary COPY header has flags this reader does not know (" + std::to_string(flags) + ")");
  }
  const std::uint32_t extension = be32(buf_.data() + at_ + kSignatureSize + 4);
  if (buf_.size() - at_ < kHeaderSize + extension) return false;
  at_ += kHeaderSize + extension;
  header_ = true;
  return true;
}

bool CopyBinaryDecoder::next(std::vector<CopyField>& fields) {
  fields.clear();
  if (ended_) {
    if (at_ < buf_.size()) {
      throw CopyFormatError("bytes after the end marker at byte " + std::to_string(consumed_ + at_) +
                            " of the COPY data");
    }
    return false;
  }
  if (!header_ && !read_header()) return false;
  const std::size_t start = at_;
  const std::size_t size = buf_.size();
  if (size - start < 2) return false;
  const std::int16_t count = be16(buf_.data() + start);
  if (count == -1) {
    at_ = start + 2;
    ended_ = true;
    if (at_ < size) {
      throw CopyFormatError("bytes after the end marker at byte " + std::to_string(consumed_ + at_) +
                            " of the COPY data");
    }
    return false;
  }
  if (count < 0) {
    throw CopyFormatError("a field count of " + std::to_string(count) + " at byte " +
                          std::to_string(consumed_ + start) + " of the COPY data");
  }
  std::size_t p = start + 2;
  for (int i = 0; i < count; ++i) {
    if (size - p < 4) {
      fields.clear();
      return false;
    }
    const auto len = static_cast<std::int32_t>(be32(buf_.data() + p));
    if (len < -1) {
      throw CopyFormatError("a field length of " + std::to_string(len) + " at byte " + std::to_string(consumed_ + p) +
                            " of the COPY data");
    }
    p += 4;
    if (len > 0 && size - p < static_cast<std::size_t>(len)) {
      fields.clear();
      return false;
    }
    fields.push_back(CopyField{buf_.data() + p, len});
    if (len > 0) p += static_cast<std::size_t>(len);
  }
  at_ = p;
  ++tuples_;
  return true;
}

void CopyBinaryDecoder::finish() const {
  if (ended_ && at_ == buf_.size()) return;
  if (!header_) throw CopyFormatError("the COPY data ended before its header was complete");
  if (!ended_) {
    throw CopyFormatError("the COPY data ended after " + std::to_string(tuples_) + " tuple" +
                          (tuples_ == 1 ? "" : "s") + " without its end marker (truncated)");
  }
  throw CopyFormatError("bytes after the end marker of the COPY data");
}

}  // namespace gpuperf::db::pg
