// A kernel's code identity (core/result.hpp CodeIdentity): what lets a finding say "same code" or "code changed".
//
// The fingerprint is a hash of the function's SASS: the bytes of its `.text.<mangled name>` section in the cubin
// the driver loaded. Nothing else goes in: not the function's name (nvcc names an anonymous namespace after the
// build's path and a hash, `_ZN36_GLOBAL__N__8d0b706f_4_k_cu_...`), not the line tables or debug sections
// (-lineinfo and the source's path live there), not the other kernels of the module. So the same source built in
// two folders, with or without -lineinfo, gives equal fingerprints, and an edit of one kernel changes that
// kernel's alone (tests/profiler/test_code_fingerprint.cpp checks both on cubins nvcc builds). A change the SASS
// does not show (a register count the same code asks for differently) is a launch-side change: the launch shape
// is kept beside it (format_launch).
//
// The hash is 64-bit FNV-1a written as "sass:" + 16 hex digits: stable across machines, compilers and runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::cubin {

class ElfFile;

// "sass:" + 16 hex digits of the bytes' 64-bit FNV-1a.
std::string sass_fingerprint(std::string_view sass);

// Every function's fingerprint in this cubin, by mangled name (its `.text.<name>` sections).
std::map<std::string, std::string> function_fingerprints(const ElfFile& elf);
// The same from an image in memory (CUPTI's pCubin): empty for what is not a cubin ELF (a PTX module, a
// fatbin the driver did not unpack), never an exception, as it runs inside callbacks.
std::map<std::string, std::string> function_fingerprints(const void* cubin, std::size_t size) noexcept;

// The fingerprint of a sample that ran `kernels` (mangled names, in launch order), from `fingerprints` (by
// mangled name): one kernel's own, or for several the hash of theirs in order (never of their names, which may
// hold a build's anonymous-namespace hash). "" when any of them has none (its cubin was not seen).
std::string kernels_fingerprint(const std::vector<std::string>& kernels,
                                const std::map<std::string, std::string>& fingerprints);

// "grid=1024x1x1 block=256x1x1 smem=0" (dynamic shared memory in bytes).
std::string format_launch(const std::uint32_t grid[3], const std::uint32_t block[3], std::uint64_t dynamic_smem);

}  // namespace gpuperf::cubin
