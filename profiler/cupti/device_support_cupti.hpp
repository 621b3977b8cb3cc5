// The one check, for both CUPTI back ends (the Range Profiler and SASS metrics), that CUPTI can profile a
// device: its chip name and cuptiProfilerDeviceSupported's answer for the API. Module libgpuperf_cupti.so
// only (this header's users include CUPTI's).
#pragma once

#include <string>

#include "profiler/cupti/range_backend.hpp"

namespace gpuperf::cupti {

// The chip name of CUDA device `device` ("GH100") once CUPTI says it can profile it with `api`; otherwise
// throws BackendError(unsupported_device) with describe_unsupported's reason. cuptiProfilerInitialize must
// have run.
std::string supported_chip_name(int device, ProfilerApi api);

}  // namespace gpuperf::cupti
