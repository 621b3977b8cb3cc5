// The CUPTI back ends' error check and parameter structs (the module libgpuperf_cupti.so only: this header
// includes CUPTI's). Every CUPTI call goes through GPUPERF_CUPTI_CHECK, which throws a BackendError naming
// the call, the file and line, and CUPTI's result name and message.
#pragma once

#include <cupti_result.h>

#include <cstddef>
#include <string>

#include "profiler/cupti/range_backend.hpp"

namespace gpuperf::cupti {

[[noreturn]] inline void throw_cupti(CUptiResult r, const char* call, const char* file, int line) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || name == nullptr) name = "CUPTI_ERROR_?";
  if (cuptiGetErrorMessage(r, &text) != CUPTI_SUCCESS) text = nullptr;
  std::string what = std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + name + " (" +
                     std::to_string(static_cast<int>(r)) + ")";
  if (text != nullptr && *text != '\0') what += ": " + std::string(text);
  // The call's name without its argument list: "cuptiRangeProfilerEnable".
  std::string fn(call);
  fn = fn.substr(0, fn.find('('));
  throw BackendError(classify_cupti_result(static_cast<int>(r)), fn, static_cast<int>(r), what);
}

#define GPUPERF_CUPTI_CHECK(call)                                                      \
  do {                                                                                 \
    CUptiResult gpuperf_cupti_result_ = (call);                                        \
    if (gpuperf_cupti_result_ != CUPTI_SUCCESS) {                                      \
      ::gpuperf::cupti::throw_cupti(gpuperf_cupti_result_, #call, __FILE__, __LINE__); \
    }                                                                                  \
  } while (0)

// A CUPTI parameter struct, zeroed, with its structSize set (CUPTI's way of versioning its structs).
template <class T>
T params(std::size_t struct_size) {
  T p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace gpuperf::cupti
