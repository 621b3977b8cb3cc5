// Stand-ins for a CUPTI back-end module that cannot be used, for test_backend_module: built once with
// GPUPERF_FAKE_FACTORY (a module of another gpuperf version: its factory refuses this ABI version) and once
// without (a shared library that is not gpuperf's back end at all).
#include "profiler/cupti/range_backend.hpp"

#ifdef GPUPERF_FAKE_FACTORY
extern "C" __attribute__((visibility("default"))) const gpuperf::cupti::BackendFactory* gpuperf_cupti_backend_factory(
    int /*abi_version*/) {
  return nullptr;  // as a module of another ABI version answers
}
#else
extern "C" __attribute__((visibility("default"))) int gpuperf_fake_unrelated_library() { return 0; }
#endif
