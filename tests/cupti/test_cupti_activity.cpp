// Activity buffers built in memory with the CUDA 13 record layouts (CUpti_ActivityKernel10,
// CUpti_ActivityAPI), walked by CUPTI's own cuptiActivityGetNextRecord (which needs no device),
// decoded, and tied to repetitions by correlation id.
#include <cupti.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "ActivityRecords.hpp"
#include "RepetitionTiming.hpp"

using namespace ts::cupti;

namespace {

// A buffer as CUPTI hands it over: 8-byte aligned, records back to back.
struct SyntheticBuffer {
  alignas(8) uint8_t bytes[16384] = {};
  size_t used = 0;

  void kernel(uint32_t correlation, uint64_t start, uint64_t end, const char* name) {
    write_kernel_record(bytes + used, {correlation, start, end, 7, ""}, name);
    used += kernel_record_bytes();
  }
  void api(uint32_t correlation, uint64_t start, uint64_t end, bool driver = false) {
    write_api_record(bytes + used, {correlation, start, end, 211, driver});
    used += api_record_bytes();
  }
  // A record kind the runner does not decode (a memcpy).
  void memcpy_record() {
    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.start = 1;
    m.end = 2;
    std::memcpy(bytes + used, &m, sizeof m);
    used += sizeof m;
  }
};

}  // namespace

TEST_CASE("CUDA 13 record sizes are the ones the decoder casts to", "[cupti][activity]") {
  CHECK(kernel_record_bytes() == sizeof(CUpti_ActivityKernel10));
  CHECK(api_record_bytes() == sizeof(CUpti_ActivityAPI));
  CHECK(kernel_record_bytes() % 8 == 0);
}

TEST_CASE("kernel and API records decode with ns durations and names", "[cupti][activity]") {
  SyntheticBuffer b;
  b.api(41, 1000, 1200);
  b.kernel(41, 5000, 17500, "tiled_gemm<__half, 2, 2>");
  b.api(42, 1300, 1400, true);
  DecodedActivity d;
  decode_activity_buffer(b.bytes, b.used, d);
  REQUIRE(d.kernels.size() == 1);
  REQUIRE(d.api_calls.size() == 2);
  CHECK(d.kernels[0].correlation_id == 41);
  CHECK(d.kernels[0].duration_ns() == 12500);
  CHECK(d.kernels[0].name == "tiled_gemm<__half, 2, 2>");
  CHECK(d.kernels[0].stream_id == 7);
  CHECK(d.api_calls[0].correlation_id == 41);
  CHECK_FALSE(d.api_calls[0].driver);
  CHECK(d.api_calls[1].driver);
  CHECK(d.skipped == 0);
}

TEST_CASE("records of other kinds are skipped, the ones after them still read",
          "[cupti][activity]") {
  SyntheticBuffer b;
  b.kernel(1, 10, 20, "a");
  b.memcpy_record();
  b.kernel(2, 30, 45, "b");
  DecodedActivity d;
  decode_activity_buffer(b.bytes, b.used, d);
  CHECK(d.skipped == 1);
  REQUIRE(d.kernels.size() == 2);
  CHECK(d.kernels[1].name == "b");
  CHECK(d.kernels[1].duration_ns() == 15);
}

TEST_CASE("a truncated buffer yields its whole records only", "[cupti][activity]") {
  SyntheticBuffer b;
  b.kernel(1, 10, 20, "a");
  b.kernel(2, 30, 40, "b");
  DecodedActivity d;
  decode_activity_buffer(b.bytes, kernel_record_bytes() + kernel_record_bytes() / 2, d);
  REQUIRE(d.kernels.size() == 1);
  CHECK(d.kernels[0].correlation_id == 1);

  DecodedActivity empty;
  decode_activity_buffer(b.bytes, 0, empty);
  decode_activity_buffer(nullptr, 100, empty);
  CHECK(empty.kernels.empty());
}

TEST_CASE("a kernel that ends before it starts has zero duration", "[cupti][activity]") {
  KernelActivity k{1, 50, 40, 0, "x"};
  CHECK(k.duration_ns() == 0);
}

TEST_CASE("kernels are tied to the repetition whose API call launched them", "[cupti][activity]") {
  SyntheticBuffer b;
  // repetition 0: host window [100, 200], two kernels (a library GEMM and its reduction)
  b.api(10, 110, 120);
  b.api(11, 130, 140, true);
  // the L2 flush, launched between the windows: never counted
  b.api(12, 250, 260);
  // repetition 1: window [300, 400]
  b.api(13, 310, 320);
  b.kernel(10, 1000, 1900, "gemm");
  b.kernel(11, 1900, 2000, "splitk_reduce");
  b.kernel(12, 2100, 9000, "overwrite");
  b.kernel(13, 9100, 9950, "gemm");
  b.kernel(99, 0, 5, "unknown launch");  // no API record at all
  DecodedActivity d;
  decode_activity_buffer(b.bytes, b.used, d);
  const RepetitionTiming t = time_repetitions({{100, 200}, {300, 400}}, d);
  REQUIRE(t.device_ns.size() == 2);
  CHECK(t.device_ns[0] == 1000.0);
  CHECK(t.device_ns[1] == 850.0);
  CHECK(t.kernels == std::vector<int>{2, 1});
  CHECK(t.kernel_names == std::vector<std::string>{"gemm", "splitk_reduce"});
}

TEST_CASE("a repetition without kernels has zero kernels", "[cupti][activity]") {
  DecodedActivity d;
  d.api_calls.push_back({5, 150, 160, 1, false});
  const RepetitionTiming t = time_repetitions({{100, 200}}, d);
  CHECK(t.kernels == std::vector<int>{0});
  CHECK(t.device_ns == std::vector<double>{0.0});
}
