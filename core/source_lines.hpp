// Per-source-line counters of one kernel instance: what CUPTI's SASS metrics count per instruction, summed
// over the instructions of each CUDA (or Triton, ...) source line. They come from an instrumented pass of
// their own, apart from timing and from the range profiler's passes, and point a finding at the line whose
// memory access or instruction count moved.
//
// Every counter is per launch (the instrumented launches' totals divided by their number), so a line's
// counters add up to the kernel-level counters that measure the same thing (the lines' `inst_executed`
// to `instructions`, their global load sectors to what `gld_efficiency`'s ideal implies, ...).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuperf {

struct SourceLine {
  // Where the line is: the file as the kernel's line table names it and the 1-based line; both empty/0
  // when the kernel was built without line info (then `sass_offset` is the key).
  std::string file;
  std::int64_t line = 0;
  std::string function;           // the kernel function the line's instructions belong to
  std::int64_t sass_offset = -1;  // the lowest SASS offset (bytes) of the line's instructions
  std::string text;               // the line's source, whitespace trimmed; empty when the file was not readable
  // Where `text` was not readable when this run was collected and an earlier stored run had it for the same
  // line: that run's id (reports/analysis/line_history.hpp fills it for the findings; never stored).
  std::int64_t text_from_run = 0;
  // For code inlined from a __device__ helper (`file`:`line` is then the helper's): the kernel's own line
  // that calls it, through any helpers between (the cubin's line table, profiler/cubin/line_table.hpp).
  // Empty and 0 for the kernel's own code, and where only CUPTI's correlation (no inlining) was available.
  std::string inlined_at_file;
  std::int64_t inlined_at_line = 0;

  // Counters summed over the line's SASS instructions, per launch.
  double inst_executed = 0;            // warp instructions (smsp__sass_inst_executed)
  double thread_inst_executed = 0;     // thread instructions (smsp__sass_thread_inst_executed)
  double global_ld_requests = 0;       // global load warp instructions (…_op_global_ld)
  double global_st_requests = 0;       // global store warp instructions (…_op_global_st)
  double global_ld_sectors = 0;        // sectors of the line's global loads (smsp__sass_sectors_mem_global)
  double global_ld_sectors_ideal = 0;  // … and their ideal (smsp__sass_sectors_mem_global_ideal)
  double global_st_sectors = 0;        // the same for its global stores
  double global_st_sectors_ideal = 0;
  double shared_wavefronts = 0;        // shared-memory wavefronts (…_l1tex_pipe_lsu_wavefronts_mem_shared)
  double shared_wavefronts_ideal = 0;  // … and their ideal: the excess is the line's bank conflicts
  double local_sectors = 0;            // local-memory sectors (spills; smsp__sass_sectors_mem_local)
};

}  // namespace gpuperf
