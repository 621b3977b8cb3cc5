// What a recorded program loaded besides its own code: the CUDA libraries (cuBLAS, cuDNN, NCCL, cuFFT, ...) and
// the frameworks around them (PyTorch), with their versions, for the run's environment (core/environment.hpp).
//
// The injected library lists the mapped files of interest from /proc/self/maps at the process's end (an `l` line
// each, record_file.hpp); gpuperf, on the same machine, reads the versions from what lies beside them:
//   - the file name's soname version: libcublas.so.13.0.2.14 -> "13.0.2.14", libnccl.so.2 -> "2";
//   - a pip wheel's metadata, when the file is in site-packages/nvidia/...: the folder
//     nvidia_cublas_cu12-12.4.5.8.dist-info (or nvidia_cublas-13.0.0.19.dist-info) beside `nvidia` gives
//     "12.4.5.8", more than the soname's "12";
//   - PyTorch's own: torch/version.py's __version__ next to torch/lib/libtorch*.so ("2.9.0+cu130").
// Plain C++ (no CUDA): tested with folders made to look like an install.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuperf::record {

// The short name of a noted library's file ("cublas", "cublaslt", "cudnn", "nccl", "cufft", "cusparse",
// "curand", "cusolver", "nvrtc", "cudart", "nvjitlink", "cuda" for the driver, "torch" for libtorch*), "" for a
// file not noted.
std::string noted_library(std::string_view path);

// The noted files among /proc/self/maps's lines, each once, in the order first mapped.
std::vector<std::string> noted_libraries_in_maps(std::string_view maps);

// "13.0.2.14" from ".../libcublas.so.13.0.2.14"; "" when the name has no version after ".so.".
std::string soname_version(std::string_view path);

// The environment entries (core/environment.hpp: "lib.cublas", "framework.torch") of the loaded files: per
// short name, the most precise version found (a wheel's or PyTorch's own over the soname's). A library whose
// version cannot be read is listed with "loaded".
std::map<std::string, std::string> library_versions(const std::vector<std::string>& paths);

}  // namespace gpuperf::record
