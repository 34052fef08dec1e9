#pragma once
// Like with like (design.md, "What latency means"): a measurement is compared with the part of a
// prediction that its timing covers. A `host_call` measurement is a wall clock around the call,
// so it is compared with device time plus launch overhead; a `device` measurement times the
// operator's execution alone, so it is compared with device time alone. Every comparison of a
// prediction with a measurement (correlate, fit, db export, the GUI's table) goes through here.
#include "measure/MeasurementRecord.hpp"

namespace ts {

struct Prediction;

// The rule itself, in whatever unit both times are given; the result is in that unit.
double compared_time(double device_time, double launch_time, TimingScope scope);

// The seconds a measurement of `scope` is compared with.
double compared_seconds(const Prediction& prediction, TimingScope scope);
double compared_seconds(const PredictionRecord& prediction, TimingScope scope);
// The same in microseconds, the unit a Prediction keeps, without a round trip through seconds.
double compared_us(const Prediction& prediction, TimingScope scope);

}  // namespace ts
