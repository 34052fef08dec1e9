#include "ActivitySession.hpp"

#include <cupti.h>

#include <cstdlib>
#include <mutex>

#include "DeviceError.hpp"

namespace ts::cupti {
namespace {

constexpr size_t kBufferBytes = 8u << 20;  // 8 MiB: ~38k kernel records per buffer
constexpr size_t kAlignment = 8;           // CUPTI requires 8-byte aligned buffers

std::mutex g_mutex;
DecodedActivity g_pending;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

// Runs on a CUPTI thread.
void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    decode_activity_buffer(buffer, valid, g_pending);
  }
  std::free(buffer);
}

}  // namespace

ActivitySession::ActivitySession() {
  TS_CUPTI(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
  for (int kind : decoded_activity_kinds())
    TS_CUPTI(cuptiActivityEnable(static_cast<CUpti_ActivityKind>(kind)));
}

ActivitySession::~ActivitySession() {
  cuptiActivityFlushAll(1);
  for (int kind : decoded_activity_kinds())
    cuptiActivityDisable(static_cast<CUpti_ActivityKind>(kind));
}

uint64_t ActivitySession::now_ns() {
  uint64_t t = 0;
  cuptiGetTimestamp(&t);
  return t;
}

DecodedActivity ActivitySession::take(uint64_t* dropped) {
  TS_CUPTI(cuptiActivityFlushAll(1));
  if (dropped) {
    size_t n = 0;
    cuptiActivityGetNumDroppedRecords(nullptr, 0, &n);
    *dropped = n;
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  DecodedActivity out = std::move(g_pending);
  g_pending = DecodedActivity{};
  return out;
}

}  // namespace ts::cupti
