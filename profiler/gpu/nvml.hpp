// The few NVML queries gpuperf makes, through dlopen("libnvidia-ml.so.1"): never linked, so gpuperf starts
// on machines without the driver. Every function returns nullopt when NVML or the query is unavailable.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace gpuperf::gpu {

// How many GPUs the driver has, whatever CUDA_VISIBLE_DEVICES selects (NVML starts in milliseconds where
// the CUDA driver may take a second on a machine of several GPUs).
std::optional<unsigned> nvml_device_count();

// The display driver's version, "580.159.04".
std::optional<std::string> nvml_driver_version();

// The SM clock of the GPU with this UUID ("GPU-..."), in MHz, right now.
std::optional<unsigned> nvml_sm_clock_mhz(const std::string& gpu_uuid);

// The settings of the GPU with this UUID that change its speed without changing any code, keyed as
// core/environment.hpp names them: application clocks, the enforced power limit, ECC, MIG and persistence mode,
// and the board's part number. A query NVML refuses (a GPU without ECC, a user without permission) leaves its
// key out; without NVML the map is empty. Locked clocks (`nvidia-smi -lgc`) have no NVML getter this reads:
// a locked clock shows where it matters, in the samples' SM clock.
std::map<std::string, std::string> nvml_settings(const std::string& gpu_uuid);

}  // namespace gpuperf::gpu
