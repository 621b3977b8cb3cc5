#include "profiler/record/kernel_naming.hpp"

#include <cxxabi.h>

#include <cstdlib>

namespace gpuperf::record {

std::optional<KernelNaming> parse_kernel_naming(const std::string& word) {
  for (KernelNaming n : {KernelNaming::demangled, KernelNaming::function, KernelNaming::mangled}) {
    if (word == kernel_naming_word(n)) return n;
  }
  return std::nullopt;
}

const char* kernel_naming_word(KernelNaming naming) {
  switch (naming) {
    case KernelNaming::function: return "function";
    case KernelNaming::mangled: return "mangled";
    case KernelNaming::demangled: break;
  }
  return "demangled";
}

namespace {

// Drops a demangled function's trailing parameter list "(int, float*)" and a leading "void " (kernels
// return void; the demangler prints the return type of function templates).
std::string without_signature(std::string s) {
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s.erase(i);
        break;
      }
    }
  }
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// "ns::vectorized_elementwise_kernel<4, F>" -> "vectorized_elementwise_kernel": the last '::' component
// outside template arguments, without them.
std::string function_only(const std::string& s) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++depth;
    if (depth == 0) {
      if (c == ':' && i + 1 < s.size() && s[i + 1] == ':') {
        out.clear();
        ++i;
        continue;
      }
      out += c;
    }
    if (c == '>' && depth > 0) --depth;
  }
  return out.empty() ? s : out;
}

}  // namespace

std::string kernel_name(const std::string& mangled, KernelNaming naming) {
  if (naming == KernelNaming::mangled) return mangled;
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string name = (status == 0 && d != nullptr) ? std::string(d) : mangled;
  std::free(d);
  name = without_signature(name);
  return naming == KernelNaming::function ? function_only(name) : name;
}

}  // namespace gpuperf::record
