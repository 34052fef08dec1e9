#pragma once
// CUPTI activity records as plain values. The decoding (ActivityRecords.cpp) is the one place
// that knows the CUDA-release-specific record structs; everything else sees these.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ts::cupti {

struct KernelActivity {
  uint32_t correlation_id = 0;  // the launch (runtime or driver API call) that made it
  uint64_t start_ns = 0;        // CUPTI timestamps, ns
  uint64_t end_ns = 0;
  uint32_t stream_id = 0;
  std::string name;
  uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
};

struct ApiActivity {
  uint32_t correlation_id = 0;
  uint64_t start_ns = 0;  // on the host thread that made the call
  uint64_t end_ns = 0;
  uint32_t callback_id = 0;
  bool driver = false;  // CUPTI_ACTIVITY_KIND_DRIVER, else RUNTIME
};

struct DecodedActivity {
  std::vector<KernelActivity> kernels;
  std::vector<ApiActivity> api_calls;
  size_t skipped = 0;  // records of kinds the runner does not use
};

// Walks a completed buffer's `valid_bytes` with cuptiActivityGetNextRecord (which needs no
// device) and appends what it finds to `out`. A trailing partial record is not read.
void decode_activity_buffer(const uint8_t* buffer, size_t valid_bytes, DecodedActivity& out);

// The record kinds decode_activity_buffer understands (for cuptiActivityEnable).
std::vector<int> decoded_activity_kinds();

// sizeof the CUDA 13 records, for tests that build synthetic buffers.
size_t kernel_record_bytes();
size_t api_record_bytes();
// Writes a record of the CUDA 13 layout at `at` (which must have room); for tests and for the
// no-device self check.
void write_kernel_record(uint8_t* at, const KernelActivity& k, const char* name_storage);
void write_api_record(uint8_t* at, const ApiActivity& a);

}  // namespace ts::cupti
