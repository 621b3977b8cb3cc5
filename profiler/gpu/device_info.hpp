// Selecting the GPU and describing the machine a run was measured on.
#pragma once

#include <map>
#include <string>

#include "core/result.hpp"

namespace gpuperf::gpu {

// Makes `device` current. Throws EnvironmentError when there is no usable GPU (no driver:
// cudaErrorInsufficientDriver; no device: cudaErrorNoDevice; any other failure) and InputError for an
// ordinal this machine does not have.
void select_device(int device);
// How many CUDA devices this process sees (at least 1); the same EnvironmentError as select_device() when none.
int device_count();

// GPU name, UUID ("GPU-8c3e...", as nvidia-smi prints it), SM count, compute capability, driver version
// (NVML's "580.159.04", else the CUDA driver API version), CUDA runtime version and hostname.
Machine describe_machine(int device);

// What `machine` (describe_machine(device)) ran with, as core/environment.hpp keys it: its driver and the
// driver's CUDA version, the CUDA runtime, the toolkit gpuperf was built with, the GPU name, and NVML's settings
// (nvml_settings): clocks, power limit, ECC, MIG, persistence, board. Without NVML those keys are absent.
std::map<std::string, std::string> describe_environment(int device, const Machine& machine);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from 16 UUID bytes.
std::string format_gpu_uuid(const unsigned char bytes[16]);
// "13.0" from 13000 (the CUDA version encoding 1000 * major + 10 * minor).
std::string format_cuda_version(int version);

}  // namespace gpuperf::gpu
