// A cubin's own line table: SASS offset -> source file and line, and for code inlined from a __device__
// helper, the helper's line and where the kernel calls it. CUPTI's cuptiGetSassToSourceCorrelation gives one
// file and line per PC and no inlining, so a regression inside an inlined helper would point at whatever
// line CUPTI picks; this reads what nvcc -lineinfo wrote instead.
//
// Format (nvcc 12-13, read from cubins built here; tests/profiler/test_line_table.cpp): `.debug_line` holds a
// DWARF (version 2-4) line program per compilation unit, one sequence per function, whose DW_LNE_set_address
// operand is relocated (.rela.debug_line) against the function's symbol, addresses being SASS offsets.
// NVIDIA adds an extended opcode 0x90 with two ULEB operands set before a row: the inlining context (the
// 1-based index, within the sequence, of the row of the call site; 0: not inlined) and the inlined
// function's mangled name (an offset into .debug_str). Rows at one address come outermost first, so the
// last row at an address is the innermost code; its context chain ends at the kernel's own line.
// (`.nv_debug_line_sass` maps SASS to lines of the embedded PTX, not to the source.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profiler/cubin/elf_reader.hpp"

namespace gpuperf::cubin {

struct CodeLocation {
  std::string file;  // the directory joined to the name, as the line table gives them
  std::uint32_t line = 0;
  // Where the innermost inlined function was inlined into the kernel: the kernel's own line that calls it
  // (through any helpers between). Empty and 0 for the kernel's own code.
  std::string inlined_at_file;
  std::uint32_t inlined_at_line = 0;
  std::string inlined_function;  // the innermost inlined function's mangled name ("" when not inlined)
};

class LineTable {
 public:
  // The line table of `elf` (empty when it has no .debug_line: built without -lineinfo). Throws ElfError
  // for a line program it cannot read (a truncated section, a DWARF version other than 2-4).
  static LineTable read(const ElfFile& elf);

  bool empty() const { return functions_.empty(); }
  // The location of the instruction at `pc` (bytes from the function's start) of `function` (its mangled
  // name, as the symbol table and CUPTI's records name it); nothing when the table does not cover it.
  std::optional<CodeLocation> locate(const std::string& function, std::uint64_t pc) const;

  struct Row {
    std::uint64_t address = 0;
    std::uint32_t file = 0;  // index into files_
    std::uint32_t line = 0;
    std::uint32_t context = 0;  // 1-based row index in the sequence of the call site; 0: not inlined
    std::uint32_t name = 0;     // .debug_str offset of the inlined function's name
  };
  struct Sequence {
    std::vector<Row> rows;  // in the program's order (addresses do not decrease)
    std::uint64_t end = 0;  // the address past its last instruction
  };

 private:
  std::string file_name(std::uint32_t index) const;
  std::map<std::string, Sequence> functions_;  // by the function's mangled name
  std::vector<std::string> files_;             // every unit's files, in order; index 0 unused
  std::string strings_;                        // .debug_str
  friend class LineProgramParser;
};

}  // namespace gpuperf::cubin
