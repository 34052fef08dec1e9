// The only file that names CUDA-release-specific CUPTI record structs. CUDA 13.0 delivers
// CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL as CUpti_ActivityKernel10 (cupti_activity.h); a later
// release that adds CUpti_ActivityKernel11 changes the alias below and nothing else.
#include "ActivityRecords.hpp"

#include <cupti.h>

#include <cstring>

namespace ts::cupti {
namespace {

using KernelRecord = CUpti_ActivityKernel10;  // CUDA 13.0
using ApiRecord = CUpti_ActivityAPI;          // RUNTIME and DRIVER kinds share it

}  // namespace

void decode_activity_buffer(const uint8_t* buffer, size_t valid_bytes, DecodedActivity& out) {
  if (buffer == nullptr || valid_bytes == 0) return;
  CUpti_Activity* record = nullptr;
  // cuptiActivityGetNextRecord takes a non-const buffer but only reads it.
  uint8_t* data = const_cast<uint8_t*>(buffer);
  while (cuptiActivityGetNextRecord(data, valid_bytes, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const KernelRecord*>(record);
        KernelActivity a;
        a.correlation_id = k->correlationId;
        a.start_ns = k->start;
        a.end_ns = k->end;
        a.stream_id = k->streamId;
        if (k->name) a.name = k->name;  // owned by CUPTI: copy now
        out.kernels.push_back(std::move(a));
        break;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* r = reinterpret_cast<const ApiRecord*>(record);
        ApiActivity a;
        a.correlation_id = r->correlationId;
        a.start_ns = r->start;
        a.end_ns = r->end;
        a.callback_id = r->cbid;
        a.driver = record->kind == CUPTI_ACTIVITY_KIND_DRIVER;
        out.api_calls.push_back(a);
        break;
      }
      default:
        ++out.skipped;
    }
  }
}

std::vector<int> decoded_activity_kinds() {
  return {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_RUNTIME,
          CUPTI_ACTIVITY_KIND_DRIVER};
}

size_t kernel_record_bytes() { return sizeof(KernelRecord); }
size_t api_record_bytes() { return sizeof(ApiRecord); }

void write_kernel_record(uint8_t* at, const KernelActivity& k, const char* name_storage) {
  KernelRecord r{};
  r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  r.correlationId = k.correlation_id;
  r.start = k.start_ns;
  r.end = k.end_ns;
  r.streamId = k.stream_id;
  r.name = name_storage;
  std::memcpy(at, &r, sizeof r);
}

void write_api_record(uint8_t* at, const ApiActivity& a) {
  ApiRecord r{};
  r.kind = a.driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
  r.correlationId = a.correlation_id;
  r.start = a.start_ns;
  r.end = a.end_ns;
  r.cbid = static_cast<CUpti_CallbackId>(a.callback_id);
  std::memcpy(at, &r, sizeof r);
}

}  // namespace ts::cupti
