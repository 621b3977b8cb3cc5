// gpuperf's public API for writing benchmarks of your own kernels (README.md, "Use gpuperf in your project"):
//
//   #include <gpuperf/gpuperf.hpp>
//
//   class MyWorkload : public gpuperf::Workload { ... };          // buffers, one launch, verify()
//   GPUPERF_BENCHMARK("mylib/my_kernel", make_my_workload)      // in a source file of the executable
//       .axis("n", {1 << 20, 1 << 24})
//       .bytes(...).flops(...);
//
// Link the executable with gpuperf::main and it is the whole `gpuperf` CLI over these benchmarks.
#pragma once

#include <gpuperf/version.hpp>  // GPUPERF_VERSION "0.1.0", GPUPERF_VERSION_MAJOR, _MINOR, _PATCH

#include "core/errors.hpp"            // Error, InputError, EnvironmentError, exit codes
#include "core/result.hpp"            // Params, ParamValue, the result model
#include "kernels/benchmark.hpp"      // Workload, Benchmark, Registry, GPUPERF_BENCHMARK
#include "kernels/cuda_check.hpp"     // GPUPERF_CUDA_CHECK, GPUPERF_CUDA_CHECK_LAUNCH
#include "kernels/device_buffer.hpp"  // DeviceBuffer<T>: RAII device memory, upload, download, poison
#include "kernels/host_data.hpp"      // random inputs, verify_close, int_param, blocks_for
