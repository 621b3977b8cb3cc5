// The Activity API's entry points for code linked to libcupti (the injection library); the timing loop opens
// libcupti at run time instead (activity_tracer.cpp).
#pragma once

#include "profiler/cupti/activity_api.hpp"

namespace gpuperf::cupti {

inline ActivityFunctions linked_activity_functions() {
  ActivityFunctions f;
  f.enable = &cuptiActivityEnable;
  f.disable = &cuptiActivityDisable;
  f.enable_runtime_api = &cuptiActivityEnableRuntimeApi;
  f.enable_driver_api = &cuptiActivityEnableDriverApi;
  f.register_callbacks = &cuptiActivityRegisterCallbacks;
  f.flush_all = &cuptiActivityFlushAll;
  f.next_record = &cuptiActivityGetNextRecord;
  f.dropped_records = &cuptiActivityGetNumDroppedRecords;
  f.push_external = &cuptiActivityPushExternalCorrelationId;
  f.pop_external = &cuptiActivityPopExternalCorrelationId;
  f.result_string = &cuptiGetResultString;
  return f;
}

}  // namespace gpuperf::cupti
