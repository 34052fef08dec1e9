#pragma once
// NVIDIA GPUs as `tilescope measure --collector cupti` measures them: plans the GPU suite and
// either writes the plan for tilescope-cupti-runner (to run on the GPU machine) or runs the runner
// here and imports its results. Needs no CUDA: the runner is another program (collectors/cupti).
#include <memory>

#include "measure/Collector.hpp"

namespace ts::runner {

// The schedule of tilescope's own CUDA GEMM kernel that its mappings are searched from; found by
// bundled_file() from the working folder, else from tilescope's data folder.
inline constexpr const char* kDefaultKernelTemplate =
    "samples/mappings/nvidia-wmma-kernel-template.yaml";

std::unique_ptr<Collector> make_cupti_runner_collector();

}  // namespace ts::runner
