// Decoding PostgreSQL's binary COPY format (COPY ... TO STDOUT (FORMAT binary)), for the large reads that
// stream rows instead of building one result set: export reads every sample this way. The format, as
// PostgreSQL's documentation of COPY describes it ("Binary Format"): a header of the 11-byte signature
// "PGCOPY\n\377\r\n\0", a 32-bit flags field and a 32-bit length of a header extension that follows (19 bytes
// with none); then per tuple a 16-bit field count and per field a 32-bit length (-1: NULL) and that many
// bytes of the type's binary form; a field count of -1 ends the data. Every integer is big-endian (network
// order), int8 and float8 included. No libpq here: this file is tested on hand-made bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/errors.hpp"

namespace gpuperf::db::pg {

// One field of a decoded tuple: its bytes, or null. The bytes live in the decoder's buffer and stay valid
// until the next call of feed() or next().
struct CopyField {
  const char* data = nullptr;
  std::int32_t size = -1;  // bytes; -1 for NULL
  bool is_null() const { return size < 0; }
  // The field as int8 (bigint) or float8 (double precision); CopyFormatError when it is NULL or not 8 bytes.
  std::int64_t int8() const;
  double float8() const;
};

// Malformed or incomplete COPY data: the message says what was expected and at which byte of the stream.
// The server or the connection is at fault, never the user's input: exit code 3.
class CopyFormatError : public EnvironmentError {
 public:
  explicit CopyFormatError(const std::string& what) : EnvironmentError(what) {}
};

// Takes the stream in pieces of any size (libpq hands over one tuple a piece, the first with the header) and
// gives back whole tuples. Holds at most one unfinished tuple beyond what it was given, so memory stays
// bounded by the largest tuple, not by the stream.
class CopyBinaryDecoder {
 public:
  // Appends the next bytes of the stream.
  void feed(std::string_view bytes);
  // The next whole tuple's fields into `fields`: true; false when the buffered bytes hold no whole tuple
  // (feed more) or the end marker was read (ended()). CopyFormatError on a bad header, a negative field
  // count other than -1, a field length below -1, or bytes after the end marker.
  bool next(std::vector<CopyField>& fields);
  // Whether the end marker has been read.
  bool ended() const { return ended_; }
  // Call when the stream is over: CopyFormatError unless the header, whole tuples and the end marker were
  // all there (a truncated stream is an error, never a shorter answer).
  void finish() const;
  // Tuples decoded so far.
  std::size_t tuples() const { return tuples_; }

 private:
  bool read_header();
  std::string buf_;
  std::size_t at_ = 0;          // next unread byte of buf_
  std::uint64_t consumed_ = 0;  // bytes of the stream dropped from buf_ before at_'s origin, for messages
  bool header_ = false, ended_ = false;
  std::size_t tuples_ = 0;
};

}  // namespace gpuperf::db::pg
