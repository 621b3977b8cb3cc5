#include "profiler/cubin/line_table.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace gpuperf::cubin {

namespace {

constexpr std::uint8_t kNvInlinedContext = 0x90;  // NVIDIA's extended opcode: (context row, name offset)

// Bounds-checked reading of a section's bytes.
class Cursor {
 public:
  Cursor(std::string_view bytes, std::size_t at) : bytes_(bytes), at_(at) {}
  std::size_t at() const { return at_; }
  void seek(std::size_t at) { at_ = at; }
  template <typename T>
  T fixed() {
    need(sizeof(T));
    T v{};
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
      const auto b = fixed<std::uint8_t>();
      if (shift < 64) v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
  }
  std::int64_t sleb() {
    std::int64_t v = 0;
    unsigned shift = 0;
    std::uint8_t b = 0;
    do {
      b = fixed<std::uint8_t>();
      if (shift < 64) v |= static_cast<std::int64_t>(static_cast<std::uint64_t>(b & 0x7f) << shift);
      shift += 7;
    } while ((b & 0x80) != 0);
    if (shift < 64 && (b & 0x40) != 0) v |= -(static_cast<std::int64_t>(1) << shift);
    return v;
  }
  std::string cstring() {
    const std::size_t end = bytes_.find('\0', at_);
    if (end == std::string_view::npos) need(bytes_.size() + 1);
    std::string s(bytes_.substr(at_, end - at_));
    at_ = end + 1;
    return s;
  }
  void need(std::size_t n) const {
    if (at_ > bytes_.size() || n > bytes_.size() - at_)
      throw ElfError(".debug_line: truncated at byte " + std::to_string(at_));
  }

 private:
  std::string_view bytes_;
  std::size_t at_;
};

}  // namespace

// One unit's line program into the table's sequences.
class LineProgramParser {
 public:
  LineProgramParser(LineTable& table, std::string_view bytes, const std::map<std::uint64_t, std::string>& reloc)
      : t_(table), bytes_(bytes), reloc_(reloc) {}

  // Reads the unit at `at`; returns the offset of the next one.
  std::size_t unit(std::size_t at) {
    Cursor c(bytes_, at);
    std::uint64_t length = c.fixed<std::uint32_t>();
    bool dwarf64 = false;
    if (length == 0xffffffffu) {
      length = c.fixed<std::uint64_t>();
      dwarf64 = true;
    }
    c.need(length);
    const std::size_t end = c.at() + length;
    const auto version = c.fixed<std::uint16_t>();
    if (version < 2 || version > 4)
      throw ElfError(".debug_line: DWARF version " + std::to_string(version) + " (only 2-4 are read)");
    const std::uint64_t header_length = dwarf64 ? c.fixed<std::uint64_t>() : c.fixed<std::uint32_t>();
    const std::size_t program = c.at() + header_length;
    min_length_ = c.fixed<std::uint8_t>();
    if (version >= 4) c.fixed<std::uint8_t>();  // maximum operations per instruction: 1 on GPUs
    c.fixed<std::uint8_t>();                    // default is_stmt
    line_base_ = c.fixed<std::int8_t>();
    line_range_ = c.fixed<std::uint8_t>();
    opcode_base_ = c.fixed<std::uint8_t>();
    if (line_range_ == 0 || opcode_base_ == 0) throw ElfError(".debug_line: a line range or opcode base of 0");
    lengths_.clear();
    for (int i = 1; i < opcode_base_; ++i) lengths_.push_back(c.fixed<std::uint8_t>());
    dirs_.clear();
    for (std::string d = c.cstring(); !d.empty(); d = c.cstring()) dirs_.push_back(d);
    file_base_ = t_.files_.size() - 1;  // this unit's file 1 is files_[file_base_ + 1]
    while (file(c)) {
    }
    c.seek(program);
    run(c, end);
    return end;
  }

 private:
  // A file entry (header or DW_LNE_define_file); false at the list's end.
  bool file(Cursor& c) {
    const std::string name = c.cstring();
    if (name.empty()) return false;
    const std::uint64_t dir = c.uleb();
    c.uleb();  // modification time
    c.uleb();  // length
    std::string path = name;
    if (name.front() != '/' && dir > 0 && dir <= dirs_.size()) {
      const std::string& d = dirs_[dir - 1];
      path = d + (d.back() == '/' ? "" : "/") + name;
    }
    t_.files_.push_back(path);
    return true;
  }

  void run(Cursor& c, std::size_t end) {
    LineTable::Row row;
    std::uint32_t file_reg = 1;
    std::int64_t line = 1;
    LineTable::Sequence seq;
    std::string function;
    auto emit = [&] {
      row.file = file_reg == 0 ? 0 : static_cast<std::uint32_t>(file_base_ + file_reg);
      if (row.file >= t_.files_.size()) row.file = 0;
      row.line = line > 0 ? static_cast<std::uint32_t>(line) : 0;
      seq.rows.push_back(row);
    };
    while (c.at() < end) {
      const auto op = c.fixed<std::uint8_t>();
      if (op >= opcode_base_) {
        const int adjusted = op - opcode_base_;
        row.address += static_cast<std::uint64_t>(adjusted / line_range_) * min_length_;
        line += line_base_ + adjusted % line_range_;
        emit();
        continue;
      }
      switch (op) {
        case 0: {
          const std::uint64_t n = c.uleb();
          c.need(n);
          const std::size_t next = c.at() + n;
          const auto ext = n > 0 ? c.fixed<std::uint8_t>() : 0;
          if (ext == 1) {  // end of sequence
            seq.end = row.address;
            if (!function.empty() && !seq.rows.empty()) t_.functions_.emplace(function, std::move(seq));
            seq = {};
            row = {};
            file_reg = 1;
            line = 1;
            function.clear();
          } else if (ext == 2) {  // set address: its operand is relocated against the function's symbol
            auto it = reloc_.find(c.at());
            function = it != reloc_.end() ? it->second : "";
            row.address = n == 9 ? c.fixed<std::uint64_t>() : c.fixed<std::uint32_t>();
          } else if (ext == 3) {
            file(c);
          } else if (ext == kNvInlinedContext) {
            row.context = static_cast<std::uint32_t>(c.uleb());
            row.name = static_cast<std::uint32_t>(c.uleb());
          }
          c.seek(next);
          break;
        }
        case 1: emit(); break;
        case 2: row.address += c.uleb() * min_length_; break;
        case 3: line += c.sleb(); break;
        case 4: file_reg = static_cast<std::uint32_t>(c.uleb()); break;
        case 8: row.address += static_cast<std::uint64_t>((255 - opcode_base_) / line_range_) * min_length_; break;
        case 9: row.address += c.fixed<std::uint16_t>(); break;
        default:  // column, is_stmt, basic block, prologue/epilogue, isa and unknown: operands skipped
          for (std::uint8_t i = 0; i < lengths_[op - 1]; ++i) c.uleb();
      }
    }
  }

  LineTable& t_;
  std::string_view bytes_;
  const std::map<std::uint64_t, std::string>& reloc_;
  std::uint8_t min_length_ = 1, line_range_ = 1, opcode_base_ = 1;
  std::int8_t line_base_ = 0;
  std::vector<std::uint8_t> lengths_;
  std::vector<std::string> dirs_;
  std::size_t file_base_ = 0;
};

LineTable LineTable::read(const ElfFile& elf) {
  LineTable t;
  t.files_.push_back("");
  const ElfSection* s = elf.section(".debug_line");
  if (s == nullptr) return t;
  if (const ElfSection* str = elf.section(".debug_str")) t.strings_ = std::string(elf.bytes(*str));
  std::map<std::uint64_t, std::string> reloc;
  for (const ElfRelocation& r : elf.relocations(*s)) {
    if (r.symbol < elf.symbols().size()) reloc[r.offset] = elf.symbols()[r.symbol].name;
  }
  const std::string_view bytes = elf.bytes(*s);
  LineProgramParser parser(t, bytes, reloc);
  for (std::size_t at = 0; at < bytes.size();) at = parser.unit(at);
  return t;
}

std::string LineTable::file_name(std::uint32_t index) const { return index < files_.size() ? files_[index] : ""; }

std::optional<CodeLocation> LineTable::locate(const std::string& function, std::uint64_t pc) const {
  const auto f = functions_.find(function);
  if (f == functions_.end()) return std::nullopt;
  const std::vector<Row>& rows = f->second.rows;
  if (pc >= f->second.end) return std::nullopt;
  // The last row at or below pc: at one address, the innermost inlined code comes last.
  auto it = std::upper_bound(rows.begin(), rows.end(), pc, [](std::uint64_t a, const Row& r) { return a < r.address; });
  if (it == rows.begin()) return std::nullopt;
  const Row& row = *std::prev(it);
  CodeLocation out;
  out.file = file_name(row.file);
  out.line = row.line;
  if (row.context == 0) return out;
  if (row.name < strings_.size()) out.inlined_function = strings_.c_str() + row.name;
  // Up the context chain to the kernel's own row; a context must point at an earlier row (else the chain
  // could loop), and a broken chain leaves the call site unknown.
  const Row* site = &row;
  std::size_t self = static_cast<std::size_t>(std::prev(it) - rows.begin()) + 1;
  while (site->context != 0) {
    if (site->context >= self) return out;
    self = site->context;
    site = &rows[self - 1];
  }
  out.inlined_at_file = file_name(site->file);
  out.inlined_at_line = site->line;
  return out;
}

}  // namespace gpuperf::cubin
