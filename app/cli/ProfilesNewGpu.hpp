#pragma once
// `tilescope profiles new gpu`: a GPU's profile from its specification (core/profile/GpuGraph).
#include <map>
#include <string>

namespace ts::cli {

struct NewGpuOptions {
  std::string spec, name, vendor, product, generation, memory_type, tensor;
  std::map<std::string, std::string> figure_text;  // spec figure key -> its flag's value
  std::string family, calibration, out, graph;
  bool force = false;
};

int run_profiles_new_gpu(const NewGpuOptions& options);

}  // namespace ts::cli
