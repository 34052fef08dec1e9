#pragma once
// `tilescope profiles list|show NAME`: the hardware profiles found on the search path
// (core/profile), where each came from, what it provides, and those that failed to load and why.
// `tilescope profiles new gpu` writes a new one (ProfilesNewGpu.hpp).
#include <string>

namespace ts::cli {

// `format`: text (a table, the failures, the folders searched) or json (the same, schema_version 1).
int run_profiles_list(const std::string& format = "text");
int run_profiles_show(const std::string& name);

}  // namespace ts::cli
