#include "profiler/record/inject/driver_l2_flush.hpp"

#include <initializer_list>
#include <string>

namespace gpuperf::record::inject {
namespace {

// The flush kernel: p_step 0 writes the line at p_buf + 128 * thread, p_step 1 runs `second_step` on it (its
// registers from %r6 on); lines past p_lines do nothing. One text, the step filled in per chip.
std::string flush_ptx(const char* target, int registers, const char* second_step) {
  return std::string(R"(
.version 7.8
.target )") +
         target + R"(
.address_size 64
.visible .entry gpuperf_record_flush_l2(.param .u64 p_buf, .param .u64 p_lines, .param .u32 p_step)
{
  .reg .pred %p<3>;
  .reg .b32 %r<)" +
         std::to_string(registers) + R"(>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p_buf];
  ld.param.u64 %rd2, [p_lines];
  ld.param.u32 %r5, [p_step];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd3, 7;
  add.u64 %rd6, %rd1, %rd5;
  setp.ne.u32 %p2, %r5, 0;
  @%p2 bra SECOND;
  mov.u32 %r4, 1;
  st.global.v4.u32 [%rd6], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+16], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+32], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+48], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+64], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+80], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+96], {%r4, %r4, %r4, %r4};
  st.global.v4.u32 [%rd6+112], {%r4, %r4, %r4, %r4};
  bra DONE;
SECOND:
)" + second_step +
         R"(DONE:
  ret;
}
)";
}

}  // namespace

const char* const kFlushKernelName = "gpuperf_record_flush_l2";

DriverFlushCode driver_flush_code(int cc_major) {
  // Ampere on: the second step discards the line it wrote (sm_80's discard.global.L2).
  static const std::string discard = flush_ptx("sm_80", 6, "  discard.global.L2 [%rd6], 128;\n");
  // Turing: it reads one word of each 32-byte sector of the line (volatile: the loads stay, and go to L2).
  static const std::string read = flush_ptx("sm_75", 10,
                                            "  ld.volatile.global.u32 %r6, [%rd6];\n"
                                            "  ld.volatile.global.u32 %r7, [%rd6+32];\n"
                                            "  ld.volatile.global.u32 %r8, [%rd6+64];\n"
                                            "  ld.volatile.global.u32 %r9, [%rd6+96];\n");
  if (cc_major >= 8) return {discard.c_str(), true};
  return {read.c_str(), false};
}

unsigned long long driver_flush_bytes(unsigned long long l2_bytes, bool discards) {
  const unsigned long long lines = (2 * l2_bytes + 127) / 128;
  return lines * 128 * (discards ? 1 : 2);
}

CUresult enqueue_driver_flush(CUfunction flush, CUdeviceptr buffer, unsigned long long l2_bytes, bool discards) {
  unsigned long long lines = (2 * l2_bytes + 127) / 128;
  const unsigned blocks = static_cast<unsigned>((lines + 255) / 256);
  for (unsigned step : {0u, 1u}) {  // one stream: every write is done before the second step begins
    // Turing's second step reads the second half of the buffer, which step 1 did not write.
    CUdeviceptr at = step == 1 && !discards ? buffer + lines * 128 : buffer;
    void* args[] = {&at, &lines, &step};
    if (const CUresult r = cuLaunchKernel(flush, blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr); r != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

}  // namespace gpuperf::record::inject
