#include "core/kernel_kind.hpp"

#include <gtest/gtest.h>

namespace gpuperf {
namespace {

TEST(KernelKind, NcclKernelsAreCommunication) {
  // Names as CUPTI reports them for a torchrun DDP step (NCCL 2.2x) and for an older NCCL.
  EXPECT_EQ(kernel_kind("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"),
            KernelKind::communication);
  EXPECT_EQ(kernel_kind("_Z29ncclDevKernel_Broadcast_RING_LL24ncclDevKernelArgsStorageILm4096EE"),
            KernelKind::communication);
  EXPECT_EQ(kernel_kind("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"), KernelKind::communication);
  EXPECT_EQ(kernel_kind("void nvshmemi_transfer_rma_kernel<...>(...)"), KernelKind::communication);
  EXPECT_EQ(kernel_kind("void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(...)"),
            KernelKind::communication);
  EXPECT_EQ(kernel_kind("void deep_ep::intranode::dispatch<8, 768, 8192>(...)"), KernelKind::communication);
}

TEST(KernelKind, ComputeKernelsAreCompute) {
  EXPECT_EQ(kernel_kind("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>"),
            KernelKind::compute);
  EXPECT_EQ(kernel_kind("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"), KernelKind::compute);
  EXPECT_EQ(kernel_kind("matmul/tiled"), KernelKind::compute);
  EXPECT_EQ(kernel_kind(""), KernelKind::compute);
  // Case matters: a user kernel merely mentioning NCCL in other case is not taken for one.
  EXPECT_EQ(kernel_kind("my_NCCLDEVKERNEL_lookalike"), KernelKind::compute);
}

TEST(KernelKind, UserPatternsAddToTheBuiltInOnes) {
  const std::vector<std::string> extra = {"", "cross_device_reduce"};
  EXPECT_EQ(kernel_kind("void vllm::cross_device_reduce_1stage<float, 8>(...)", extra), KernelKind::communication);
  EXPECT_EQ(kernel_kind("void vllm::rms_norm_kernel<float>(...)", extra), KernelKind::compute);
  // An empty pattern would match everything: it is ignored.
  EXPECT_EQ(kernel_kind("gemm", {""}), KernelKind::compute);
  EXPECT_STREQ(to_string(KernelKind::communication), "communication");
  EXPECT_STREQ(to_string(KernelKind::compute), "compute");
}

}  // namespace
}  // namespace gpuperf
