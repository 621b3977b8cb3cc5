// The CUPTI Activity API behind ActivitySource: kernel records (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
// tagged with external correlation ids. libcupti is opened at run time (dlopen), so gpuperf starts on
// machines without it; only timing needs it. The calls go through ActivityApi (activity_api.hpp), the one
// wrapper of the Activity API, shared with `gpuperf record`'s injection library.
#pragma once

#include "profiler/cupti/activity_records.hpp"

namespace gpuperf::cupti {

class CuptiActivitySource : public ActivitySource {
 public:
  // Loads libcupti and registers the activity buffer callbacks (once per process).
  // Throws EnvironmentError naming the library files tried when libcupti cannot be loaded.
  CuptiActivitySource();
  ~CuptiActivitySource() override;
  CuptiActivitySource(const CuptiActivitySource&) = delete;
  CuptiActivitySource& operator=(const CuptiActivitySource&) = delete;

  void enable() override;
  void disable() override;
  void push_external_id(std::uint64_t external_id) override;
  void pop_external_id() override;
  ActivityBatch collect() override;

 private:
  bool enabled_ = false;
};

}  // namespace gpuperf::cupti
