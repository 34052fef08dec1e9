// Like with like: what each timing scope is compared with (design.md, "What latency means").
#include <catch2/catch.hpp>

#include "analysis/Prediction.hpp"
#include "measure/ComparedTime.hpp"

using namespace ts;

TEST_CASE(
    "a host_call measurement is compared with device time plus launch, a device one "
    "with device time alone",
    "[measure]") {
  Prediction p;
  p.device_us = 12;
  p.launch_overhead_us = 4;
  CHECK(compared_us(p, TimingScope::host_call) == 16);
  CHECK(compared_us(p, TimingScope::device) == 12);
  CHECK(compared_seconds(p, TimingScope::host_call) == Approx(16e-6));
  CHECK(compared_seconds(p, TimingScope::device) == Approx(12e-6));

  PredictionRecord stored;
  stored.device_s = 3e-3;
  stored.launch_s = 5e-6;
  CHECK(compared_seconds(stored, TimingScope::host_call) == Approx(3.005e-3));
  CHECK(compared_seconds(stored, TimingScope::device) == 3e-3);
}
