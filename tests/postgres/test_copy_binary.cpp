// The binary COPY decoder (db/postgres/copy_binary.hpp) on hand-made bytes: the header, tuples of int8,
// float8 and NULL fields, any split of the stream into pieces, and every way a stream can be cut short or
// malformed, which must be an error and never a shorter answer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "db/postgres/copy_binary.hpp"

namespace gpuperf::db::pg {
namespace {

// Big-endian writers, as the server sends.
void put16(std::string& s, std::int16_t v) {
  const auto u = static_cast<std::uint16_t>(v);
  s.push_back(static_cast<char>(u >> 8));
  s.push_back(static_cast<char>(u & 0xFF));
}
void put32(std::string& s, std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) s.push_back(static_cast<char>((u >> shift) & 0xFF));
}
void put64(std::string& s, std::uint64_t u) {
  for (int shift = 56; shift >= 0; shift -= 8) s.push_back(static_cast<char>((u >> shift) & 0xFF));
}
void int8_field(std::string& s, std::int64_t v) {
  put32(s, 8);
  put64(s, static_cast<std::uint64_t>(v));
}
void float8_field(std::string& s, double d) {
  std::uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  put32(s, 8);
  put64(s, bits);
}
void null_field(std::string& s) { put32(s, -1); }

std::string header(std::int32_t flags = 0, const std::string& extension = "") {
  std::string s("PGCOPY\n\377\r\n\0", 11);
  put32(s, flags);
  put32(s, static_cast<std::int32_t>(extension.size()));
  return s + extension;
}

struct Row {
  std::int64_t id;
  double value;
  bool has_clock;
  double clock;
};

// The three-column sample rows export streams: (result id, value, SM clock or NULL).
std::string sample_rows(const std::vector<Row>& rows, bool end = true) {
  std::string s = header();
  for (const Row& r : rows) {
    put16(s, 3);
    int8_field(s, r.id);
    float8_field(s, r.value);
    if (r.has_clock) {
      float8_field(s, r.clock);
    } else {
      null_field(s);
    }
  }
  if (end) put16(s, -1);
  return s;
}

// Feeds `bytes` in pieces of `piece` bytes, decoding as it goes, and finishes.
std::vector<Row> decode(const std::string& bytes, std::size_t piece) {
  CopyBinaryDecoder d;
  std::vector<Row> out;
  std::vector<CopyField> f;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    d.feed(std::string_view(bytes).substr(at, piece));
    while (d.next(f)) {
      EXPECT_EQ(f.size(), 3u);
      out.push_back(Row{f[0].int8(), f[1].float8(), !f[2].is_null(), f[2].is_null() ? 0.0 : f[2].float8()});
    }
  }
  d.finish();
  return out;
}

const std::vector<Row> kRows = {
    {1, 101.25, true, 1980.0},
    {1, 0.1, false, 0},                                          // a value that is not exact in binary
    {4294967297, -3.5e-300, true, 1755.5},                       // an id past 32 bits, a tiny negative
    {-7, std::numeric_limits<double>::max(), false, 0},          // negatives and extremes keep their bits
    {std::numeric_limits<std::int64_t>::max(), 5e-324, true, 0}  // the smallest subnormal
};

TEST(CopyBinary, DecodesHeaderRowsAndNullsWhateverThePieces) {
  const std::string bytes = sample_rows(kRows);
  EXPECT_EQ(header().size(), 19u);
  for (std::size_t piece :
       {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{19}, std::size_t{38}, bytes.size()}) {
    SCOPED_TRACE("pieces of " + std::to_string(piece) + " bytes");
    const std::vector<Row> got = decode(bytes, piece);
    ASSERT_EQ(got.size(), kRows.size());
    for (std::size_t i = 0; i < kRows.size(); ++i) {
      EXPECT_EQ(got[i].id, kRows[i].id);
      // Bit for bit: an export must write the very double the server stored.
      EXPECT_EQ(std::memcmp(&got[i].value, &kRows[i].value, sizeof(double)), 0) << i;
      EXPECT_EQ(got[i].has_clock, kRows[i].has_clock) << i;
      if (kRows[i].has_clock) {
        EXPECT_EQ(got[i].clock, kRows[i].clock) << i;
      }
    }
  }
}

TEST(CopyBinary, NoRowsIsJustTheHeaderAndTheEndMarker) { EXPECT_TRUE(decode(sample_rows({}), 3).empty()); }

TEST(CopyBinary, AHeaderExtensionAndHighFlagBitsAreSkipped) {
  // Bits 17-31 are reserved for changes a reader may ignore; bit 16 (OIDs, which servers since 12 never
  // send) would add a field this reader does not expect, so it is refused below.
  std::string s = header(1 << 20, "abcde");
  put16(s, 1);
  int8_field(s, 42);
  put16(s, -1);
  CopyBinaryDecoder d;
  d.feed(s);
  std::vector<CopyField> f;
  ASSERT_TRUE(d.next(f));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].int8(), 42);
  EXPECT_FALSE(d.next(f));
  EXPECT_TRUE(d.ended());
  d.finish();
}

TEST(CopyBinary, ATruncatedStreamIsAnErrorAtEveryCut) {
  const std::string bytes = sample_rows(kRows);
  // Every proper prefix: inside the header, inside a tuple, between tuples, just before the end marker.
  for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    EXPECT_THROW(decode(bytes.substr(0, cut), 5), CopyFormatError);
  }
  try {
    decode(sample_rows(kRows, false), 64);
    FAIL() << "a stream without its end marker was accepted";
  } catch (const CopyFormatError& e) {
    EXPECT_NE(std::string(e.what()).find("after 5 tuples without its end marker"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 3);
  }
}

TEST(CopyBinary, MalformedStreamsAreRefusedSayingWhat) {
  auto refused = [](const std::string& bytes, const std::string& says) {
    try {
      decode(bytes, bytes.size() == 0 ? 1 : bytes.size());
      ADD_FAILURE() << "accepted; expected: " << says;
    } catch (const CopyFormatError& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  refused("COPY text\n", "PGCOPY signature");
  refused(std::string("PGCOPX", 6), "PGCOPY signature");
  refused(header(1), "flags this reader does not know");
  refused(header(1 << 16), "flags this reader does not know");
  std::string bad_count = header();
  put16(bad_count, -2);
  refused(bad_count, "a field count of -2 at byte 19");
  std::string bad_length = header();
  put16(bad_length, 1);
  put32(bad_length, -5);
  refused(bad_length, "a field length of -5 at byte 21");
  std::string after_end = sample_rows({{1, 2.0, false, 0}});
  after_end += "x";
  refused(after_end, "after the end marker");
}

TEST(CopyBinary, AFieldOfTheWrongSizeOrNullIsNotReadAsANumber) {
  std::string s = header();
  put16(s, 3);
  put32(s, 4);  // an int4 where an int8 belongs
  put32(s, 7);
  null_field(s);
  put32(s, 0);  // an empty (non-NULL) field
  put16(s, -1);
  CopyBinaryDecoder d;
  d.feed(s);
  std::vector<CopyField> f;
  ASSERT_TRUE(d.next(f));
  ASSERT_EQ(f.size(), 3u);
  EXPECT_THROW(f[0].int8(), CopyFormatError);
  EXPECT_TRUE(f[1].is_null());
  EXPECT_THROW(f[1].float8(), CopyFormatError);
  EXPECT_FALSE(f[2].is_null());
  EXPECT_EQ(f[2].size, 0);
  EXPECT_THROW(f[2].float8(), CopyFormatError);
  EXPECT_FALSE(d.next(f));
  d.finish();
}

}  // namespace
}  // namespace gpuperf::db::pg
