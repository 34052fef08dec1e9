#pragma once
// `tilescope profiles list|show NAME`: the hardware profiles found on the search path
// (core/profile), where each came from, what it provides, and those that failed to load and why.
// `tilescope profiles new gpu` writes a new one (ProfilesNewGpu.hpp).
#include <string>

namespace ts::cli {

int run_profiles_list();
int run_profiles_show(const std::string& name);

}  // namespace ts::cli
