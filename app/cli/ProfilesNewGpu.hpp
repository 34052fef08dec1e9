#pragma once
// `tilescope profiles new gpu`: a GPU's profile from its specification (core/profile/GpuGraph).
#include <CLI/CLI.hpp>

#include "Commands.hpp"

namespace ts::cli {

// Adds `gpu` under `profiles new`; the action runs it when it was parsed.
CommandAction add_profiles_new_gpu(CLI::App& new_command);

}  // namespace ts::cli
