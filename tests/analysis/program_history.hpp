// Recorded runs of one program (`gpuperf record -- python3 decoder.py`) for a recorded program's verdict
// (reports/analysis/program_change.hpp), shared by the analysis and CLI tests: a decoder whose forward pass
// launches a flash-attention kernel, a cuBLAS GEMM, a layer norm, an elementwise add, a mean reduction and a
// copy, all in the NVTX range "forward". Each kernel's GPU time total is exact; a run's noise is a factor on
// every kernel (a fraction of a percent), as two recordings of one program differ.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "core/metrics.hpp"
#include "core/result.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::testing {

inline const char* const kDecoderCommand = "python3 decoder.py --layers 4";

// The kernels of the decoder's base runs, by name, with their GPU time total (ns).
struct DecoderKernel {
  std::string name;  // the kernel part of the instance name
  double total_ns;
  double launches;
  std::string nvtx = "forward";
};

inline const std::string kFlash =
    "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4>>(Flash_fwd_params)";
inline const std::string kGemm = "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT";
inline const std::string kLayerNorm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, const "
    "c10::BFloat16*, const c10::BFloat16*, const c10::BFloat16*, float*, float*, c10::BFloat16*)";
inline const std::string kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3>>(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)";
inline const std::string kMean =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, "
    "float>, unsigned int, float, 4>>(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)";
inline const std::string kCopy =
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::"
    "{lambda()#3}::operator()() const::{lambda(float)#1}, at::detail::Array<char*, 2>>(int, ...)";
inline const std::string kSoftmax =
    "void (anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16>(c10::BFloat16*, "
    "const c10::BFloat16*, int)";
inline const std::string kBmm = "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_nn";

inline std::vector<DecoderKernel> decoder_kernels() {
  return {{kGemm, 20e6, 96},     {kFlash, 8e6, 16}, {kAdd, 5e6, 64},
          {kLayerNorm, 3e6, 32}, {kMean, 2e6, 16},  {kCopy, 1e6, 8}};
}

inline Result recorded_kernel(const DecoderKernel& k) {
  Result r;
  r.instance.name = "decoder/" + k.name;
  r.instance.params = {{"block", std::string("128x1x1")}, {"grid", std::string("1024x1x1")}};
  if (!k.nvtx.empty()) r.instance.params["nvtx"] = k.nvtx;
  Measurement d;
  d.metric = find_metric("duration")->info;
  const double per_launch = k.total_ns / k.launches;
  for (int s = -2; s <= 2; ++s) d.samples.push_back(per_launch * (1 + 0.002 * s));
  d.summary = summarize(d.samples);
  r.metrics.push_back(d);
  const auto single = [](const char* name, double v) {
    Measurement m;
    m.metric = find_metric(name)->info;
    m.samples = {v};
    m.summary = summarize(m.samples);
    return m;
  };
  r.metrics.push_back(single("launches", k.launches));
  r.metrics.push_back(single("gpu_time_total", k.total_ns));
  return r;
}

// One recording of the decoder: `kernels` with each total scaled by `noise` (1.002: +0.2%).
inline Run decoder_run(int n, const std::string& commit, const std::string& branch,
                       const std::vector<DecoderKernel>& kernels, double noise = 1.0) {
  Run run;
  char uuid[40], when[32];
  std::snprintf(uuid, sizeof uuid, "dec0de00-0000-4000-8000-%012d", n);
  std::snprintf(when, sizeof when, "2026-11-%02dT02:00:00Z", 1 + n);
  run.uuid = uuid;
  run.started_at = when;
  run.finished_at = when;
  run.commit = commit;
  run.branch = branch;
  run.command = kDecoderCommand;
  run.exit_status = 0;
  run.machine = h200();
  double total = 0;
  for (const DecoderKernel& k : kernels) total += k.total_ns * noise;
  for (DecoderKernel k : kernels) {
    k.total_ns *= noise;
    run.results.push_back(recorded_kernel(k));
    // As record stores it: the kernel's share of the device's kernel time, in percent.
    Measurement share;
    share.metric = find_metric("gpu_time_share")->info;
    share.samples = {100 * k.total_ns / total};
    share.summary = summarize(share.samples);
    run.results.back().metrics.push_back(share);
  }
  return run;
}

// `kernels` with the named kernel's total scaled by `factor`.
inline std::vector<DecoderKernel> scaled(std::vector<DecoderKernel> kernels, const std::string& name, double factor) {
  for (DecoderKernel& k : kernels) {
    if (k.name == name) k.total_ns *= factor;
  }
  return kernels;
}

// `kernels` without the named one, plus `added`.
inline std::vector<DecoderKernel> replaced(std::vector<DecoderKernel> kernels, const std::string& gone,
                                           const std::vector<DecoderKernel>& added) {
  std::vector<DecoderKernel> out;
  for (const DecoderKernel& k : kernels) {
    if (k.name != gone) out.push_back(k);
  }
  out.insert(out.end(), added.begin(), added.end());
  return out;
}

// Three recordings on main at three commits, a run-to-run noise of at most 0.3%.
inline std::vector<Run> decoder_base_runs() {
  return {decoder_run(0, "aaaa000000000000000000000000000000000000", "main", decoder_kernels(), 0.998),
          decoder_run(1, "aaaa000000000000000000000000000000000001", "main", decoder_kernels(), 1.003),
          decoder_run(2, "aaaa000000000000000000000000000000000002", "main", decoder_kernels(), 1.0)};
}

}  // namespace gpuperf::testing
