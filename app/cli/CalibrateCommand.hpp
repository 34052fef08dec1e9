#pragma once
// `tilescope calibrate host`: measures this machine and writes it as an architecture graph with
// its mapping templates (docs/host.md); `tilescope calibrate --from-runner FILE --out FILE`: a
// GPU runner's calibration records put into a base graph's datasheet figures (docs/cupti.md).
#include <string>

#include "calibrate/GpuCalibration.hpp"
#include "host/HostCalibration.hpp"

namespace ts::cli {

struct CalibrateHostOptions {
  std::string out = "out/host.yaml";
  bool register_profile = false;
  int runs = 3;
  double seconds = host::HostCalibrationOptions{}.seconds_per_test;
};

struct CalibrateGpuOptions {
  std::string from_runner, out;
  TensorPeak peak = TensorPeak::wgmma;
  std::string base = "samples/arch/nvidia-h200.yaml";  // bundled_file(): local, else data folder
};

struct CalibrateOptions {
  bool host_chosen = false;  // `calibrate host` was given: its options, not --from-runner's, apply
  CalibrateHostOptions host;
  CalibrateGpuOptions gpu;
};

// Either kind of calibration; neither asked for is an InputError saying how to ask.
int run_calibrate(const CalibrateOptions& options);

}  // namespace ts::cli
