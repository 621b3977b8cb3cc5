// What a record says besides launches (issue 54): the c lines' code fingerprints become each identity's
// Result::code with its launch shape, the l lines' libraries become versions (from the soname, a pip wheel's
// dist-info, torch/version.py) in a folder made to look like an install. No GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/errors.hpp"
#include "profiler/record/loaded_libraries.hpp"
#include "profiler/record/recorder/aggregate.hpp"
#include "profiler/record/recorder/record_file.hpp"
#include "tests/db/fixtures.hpp"

namespace gpuperf::record {
namespace {

const char* const kFile =
    "P 7 1 1000 /usr/bin/python3\n"
    "c sass:00000000000000aa _Z6kernelPf\n"
    "c sass:00000000000000bb _Z5otherPf\n"
    "N 1 _Z6kernelPf\n"
    "K 0 1 7 10 2000 4000 128 1 1 256 1 1 1\n"
    "N 2 _Z8unseen_kPf\n"
    "K 0 1 7 11 5000 6000 64 1 1 32 1 1 2\n"
    "l /opt/venv/lib/python3.12/site-packages/nvidia/cublas/lib/libcublas.so.13\n"
    "l /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
    "Z\n";

TEST(RecordIdentity, FingerprintLinesGiveEachIdentityItsCodeAndLaunch) {
  const ProcessRecord p = parse_process_text(kFile, "process-7.txt");
  ASSERT_EQ(p.fingerprints.size(), 2u);
  EXPECT_EQ(p.fingerprints.at("_Z6kernelPf"), "sass:00000000000000aa");
  ASSERT_EQ(p.libraries.size(), 2u);
  KernelTotals totals;
  SelectOptions select;
  select.naming = KernelNaming::mangled;
  const auto by_device = aggregate_launches({p}, "python3", select, totals);
  ASSERT_EQ(by_device.at(0).size(), 2u);
  for (const Result& r : by_device.at(0)) {
    if (r.instance.name == "python3/_Z6kernelPf") {
      EXPECT_EQ(r.code.fingerprint, "sass:00000000000000aa");
      EXPECT_EQ(r.code.launch, "grid=128x1x1 block=256x1x1");
    } else {
      EXPECT_EQ(r.code.fingerprint, "");  // its module's cubin was not seen
      EXPECT_EQ(r.code.launch, "grid=64x1x1 block=32x1x1");
    }
  }
  EXPECT_THROW(parse_process_text("P 7 1 1000 x\nc sass:1\n", "f"), InputError);
}

TEST(RecordIdentity, NotedLibrariesAreTheCudaOnesAndTorch) {
  EXPECT_EQ(noted_library("/usr/local/cuda/lib64/libcublasLt.so.13.0.2.14"), "cublaslt");
  EXPECT_EQ(noted_library("/x/libcublas.so.13"), "cublas");
  EXPECT_EQ(noted_library("/x/libcudnn_graph.so.9"), "cudnn");
  EXPECT_EQ(noted_library("/x/libnccl.so.2"), "nccl");
  EXPECT_EQ(noted_library("/x/torch/lib/libtorch_cuda.so"), "torch");
  EXPECT_EQ(noted_library("/x/libcudart_static.a"), "");
  EXPECT_EQ(noted_library("/usr/lib/libc.so.6"), "");
  const std::string maps =
      "7f00-7f01 r-xp 00000000 08:01 12 /x/libnccl.so.2\n"
      "7f01-7f02 r--p 00001000 08:01 12 /x/libnccl.so.2\n"
      "7f02-7f03 r-xp 00000000 08:01 13 /usr/lib/libc.so.6\n"
      "7f03-7f04 rw-p 00000000 00:00 0 [heap]\n"
      "7f04-7f05 r-xp 00000000 08:01 14 /y/libcufft.so.12.0.0.61 (deleted)\n";
  EXPECT_EQ(noted_libraries_in_maps(maps), (std::vector<std::string>{"/x/libnccl.so.2", "/y/libcufft.so.12.0.0.61"}));
  EXPECT_EQ(soname_version("/x/libcufft.so.12.0.0.61"), "12.0.0.61");
  EXPECT_EQ(soname_version("/x/torch/lib/libtorch_cuda.so"), "");
}

TEST(RecordIdentity, VersionsComeFromWheelsTorchAndSonames) {
  testing::TempDir dir;
  namespace fs = std::filesystem;
  const fs::path site = dir.path() / "site-packages";
  for (const char* d : {"nvidia/cublas/lib", "nvidia/cudnn/lib", "nvidia/nccl/lib", "torch/lib",
                        "nvidia_cublas_cu12-12.8.4.1.dist-info", "nvidia_cudnn_cu12-9.10.2.21.dist-info",
                        "nvidia_cublas_lt_cu12-1.0.dist-info"}) {
    fs::create_directories(site / d);
  }
  std::ofstream(site / "torch/version.py") << "from typing import Optional\n__version__ = '2.9.0+cu128'\n";
  const std::vector<std::string> paths{
      (site / "nvidia/cublas/lib/libcublas.so.12").string(), (site / "nvidia/cublas/lib/libcublasLt.so.12").string(),
      (site / "nvidia/cudnn/lib/libcudnn.so.9").string(),    (site / "nvidia/cudnn/lib/libcudnn_graph.so.9").string(),
      (site / "nvidia/nccl/lib/libnccl.so.2").string(),      (site / "torch/lib/libtorch_cuda.so").string(),
      "/usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04"};
  const auto v = library_versions(paths);
  EXPECT_EQ(v.at("lib.cublas"), "12.8.4.1");    // the wheel's, not the soname's "12"
  EXPECT_EQ(v.at("lib.cublaslt"), "12.8.4.1");  // cuBLASLt ships in the cuBLAS wheel
  EXPECT_EQ(v.at("lib.cudnn"), "9.10.2.21");
  EXPECT_EQ(v.at("lib.nccl"), "2");  // no dist-info for NCCL here: the soname's
  EXPECT_EQ(v.at("framework.torch"), "2.9.0+cu128");
  EXPECT_EQ(v.at("lib.cuda"), "580.159.04");  // the driver, as its file names it
  EXPECT_EQ(v.size(), 6u);
}

}  // namespace
}  // namespace gpuperf::record
