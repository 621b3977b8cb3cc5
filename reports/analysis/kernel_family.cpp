#include "reports/analysis/kernel_family.hpp"

#include <utility>

#include "core/errors.hpp"
#include "core/kernel_kind.hpp"
#include "core/result.hpp"

namespace gpuperf::analysis {
namespace {

constexpr auto kFlags = std::regex::ECMAScript | std::regex::icase | std::regex::optimize;

// The built-in table: family and the name fragments that make it, tried in this order (a cuBLAS or CUTLASS
// attention kernel is attention, not GEMM; a softmax inside a Triton reduction is normalization). The
// fragments are the names PyTorch, cuBLAS/cuBLASLt (nvjet, xmma), CUTLASS, FlashAttention, Triton/Inductor
// (triton_poi_, triton_red_, triton_per_, triton_tem_) and CUB give their kernels.
struct BuiltinRule {
  const char* family;
  const char* pattern;
};
constexpr BuiltinRule kBuiltin[] = {
    {"attention", "flash|fmha|attention|attn|sdpa|multi_?head"},
    {"GEMM",
     "gemm|gemv|nvjet|xmma|wgmma|cutlass|cublas|matmul|bmm|triton_tem_|s16816|s1688|hmma|imma|tensorop|splitk|"
     "_mm_?kernel"},
    {"normalization",
     "softmax|layer_?norm|rms_?norm|batch_?norm|group_?norm|instance_?norm|rowwisemoments|welford|"
     "normalize"},
    {"reduction",
     "reduce|reduction|triton_red_|triton_per_|argmax|argmin|topk|sort|scan|cumsum|cumprod|histogram|cub::|radix"},
    {"copy",
     "copy|memcpy|memset|transpose|catarray|concat|index_select|indexselect|index_elementwise|index_put|"
     "gather|scatter|embedding|permute|contiguous"},
    {"elementwise",
     "elementwise|pointwise|triton_poi_|vectorized|unrolled|fill|unary|binary|functor|gelu|silu|relu|swiglu|tanh|"
     "sigmoid|dropout|multi_tensor_apply|adam|sgd|rotary|rope"},
};

// The built-in table's patterns, compiled once.
const std::vector<std::pair<std::string, std::regex>>& builtin_rules() {
  static const std::vector<std::pair<std::string, std::regex>> rules = [] {
    std::vector<std::pair<std::string, std::regex>> r;
    for (const BuiltinRule& b : kBuiltin) r.emplace_back(b.family, std::regex(b.pattern, kFlags));
    return r;
  }();
  return rules;
}

}  // namespace

void KernelFamilies::add(const std::string& spec, const std::string& option) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos) {
    throw InputError(option + " '" + spec + "' must look like FAMILY=REGEX, e.g. attention=my_attn_kernel");
  }
  const std::string family = spec.substr(0, eq), pattern = spec.substr(eq + 1);
  if (family.empty()) throw InputError(option + " '" + spec + "' names no family before '='");
  if (pattern.empty()) throw InputError(option + " '" + spec + "' has no pattern after '='");
  try {
    user_.push_back(Rule{family, std::regex(pattern, kFlags), spec});
  } catch (const std::regex_error& e) {
    throw InputError(option + " '" + spec + "': '" + pattern + "' is not a valid regular expression: " + e.what());
  }
}

std::string KernelFamilies::family(std::string_view kernel_name) const {
  const std::string name(kernel_name);
  for (const Rule& r : user_) {
    if (std::regex_search(name, r.pattern)) return r.family;
  }
  if (kernel_kind(kernel_name) == KernelKind::communication) return "communication";
  for (const auto& [family, pattern] : builtin_rules()) {
    if (std::regex_search(name, pattern)) return family;
  }
  return "other";
}

std::string KernelFamilies::family_of_instance(std::string_view instance_name) const {
  return family(benchmark_variant(instance_name));
}

std::vector<std::string> KernelFamilies::user_rules() const {
  std::vector<std::string> specs;
  for (const Rule& r : user_) specs.push_back(r.spec);
  return specs;
}

}  // namespace gpuperf::analysis
