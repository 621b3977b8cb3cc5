// Short kernel names for people: a demangled C++ name folded to what a table cell can hold, as Nsight Systems
// and Compute show a short name by default. Display only: identities, JSON and the database keep the full name.
//
//   "train/void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, ...>(int, ...)"
//     -> "train/at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >" (fits: kept)
//   "train/at::native::distribution_elementwise_grid_stride_kernel<float, 4, {1,400 characters of lambdas}>"
//     -> "train/at::native::distribution_elementwise_grid_stride_kernel<…>"
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace gpuperf {

// The longest short name, in characters (UTF-8 code points).
inline constexpr std::size_t kShortNameMax = 120;

// `full` folded for people: a leading "void " and the parameter list dropped, "{lambda(...)#N}" as
// "{lambda#N}", "(anonymous namespace)" as "(anon)", then template argument lists folded to "<…>" from the
// innermost out until the name fits `max_chars` (a name that fits keeps them all); if even the outermost
// fold is too long, leading namespaces give way to "…::" and, last, the end of the name to "…". Text before
// a first '/' that comes ahead of any bracket, space or "::" (the program or family: "train/") is kept.
// A name with nothing to fold (a C name, "matmul/tiled") comes back unchanged; malformed or unbalanced
// brackets fold what they open to the end ("k<int" -> "k<…"). Never throws.
std::string fold_name(const std::string& full, std::size_t max_chars = kShortNameMax);

// The short forms of a set of names, unique within the set: where different full names fold alike, each
// shows its first differing template argument ("kernel<…, at::native::CUDAFunctor_add<…>, …>") when that
// tells them apart within max_chars, else a stable hash of its full name ("kernel<…> #a1b2").
class ShortNames {
 public:
  ShortNames() = default;
  explicit ShortNames(const std::vector<std::string>& full_names, std::size_t max_chars = kShortNameMax);

  // The short form of one of the set's names; of any other name, fold_name's.
  std::string operator()(const std::string& full) const;
  // BenchmarkInstance::display_name with the short name: "train/kernel<…>[block=128x1x1,grid=64x1x1]".
  std::string display_name(const BenchmarkInstance& instance) const;

 private:
  std::map<std::string, std::string> short_;
  std::size_t max_chars_ = kShortNameMax;
};

// Characters (code points) of a UTF-8 string.
std::size_t utf8_length(const std::string& s);

}  // namespace gpuperf
