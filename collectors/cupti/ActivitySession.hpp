#pragma once
// The CUPTI Activity API for the runner's lifetime: kernel (CONCURRENT_KERNEL) and API (RUNTIME,
// DRIVER) records into asynchronous buffers. CUPTI calls the buffer callbacks on its own thread;
// completed buffers are decoded there and kept under a mutex until `take` after a flush.
#include <cstdint>

#include "ActivityRecords.hpp"

namespace ts::cupti {

class ActivitySession {
 public:
  ActivitySession();   // registers callbacks and enables the kinds; throws DeviceError
  ~ActivitySession();  // flushes and disables
  ActivitySession(const ActivitySession&) = delete;
  ActivitySession& operator=(const ActivitySession&) = delete;

  static uint64_t now_ns();  // cuptiGetTimestamp: the clock of the records
  // Flushes every buffer (cuptiActivityFlushAll(1)) and hands over what was recorded since the
  // last take. `dropped` receives records CUPTI had to drop (buffers too small).
  DecodedActivity take(uint64_t* dropped = nullptr);
};

}  // namespace ts::cupti
