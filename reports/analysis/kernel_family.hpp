// What a recorded kernel does in a program, as far as its name tells: its family (GEMM, attention,
// normalization, elementwise, reduction, copy, communication, other). A recorded program's verdict splits the
// change of its GPU time by family (program_change.hpp), so "attention -3.1 ms, GEMM +5.0 ms" reads before the
// kernels do. Classification is by name only: a table of patterns, the user's first (`--kernel-family
// FAMILY=REGEX`), then the built-in ones in a fixed order, the first match winning. Plain data; no I/O.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::analysis {

class KernelFamilies {
 public:
  // One user rule, "FAMILY=REGEX": a kernel whose name matches REGEX (ECMAScript, case-insensitive, searched
  // anywhere in the name) is of FAMILY, before any built-in rule; rules are tried in the order added. FAMILY
  // may be a built-in family or a new one. Throws InputError naming `option` for an empty family, an empty or
  // invalid regex, or a spec without '='.
  void add(const std::string& spec, const std::string& option = "--kernel-family");

  // The family of a kernel's name (the kernel part of an instance name, or the whole name: only the kernel is
  // classified, never the program it belongs to: see family_of_instance).
  std::string family(std::string_view kernel_name) const;

  // The family of a recorded instance named "<program>/<kernel>".
  std::string family_of_instance(std::string_view instance_name) const;

  // The user's rules as given ("attention=my_attn"), for JSON.
  std::vector<std::string> user_rules() const;

 private:
  struct Rule {
    std::string family;
    std::regex pattern;
    std::string spec;  // as given; empty for a built-in rule
  };
  std::vector<Rule> user_;  // the built-in rules are one table of the process (kernel_family.cpp)
};

}  // namespace gpuperf::analysis
