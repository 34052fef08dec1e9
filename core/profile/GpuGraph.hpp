#pragma once
// A GPU's architecture graph from its specification (GpuSpec), its vendor's generation rules
// (GpuFamily) and optionally a calibration (arch/GraphCalibration): what `tilescope profiles new
// gpu` writes, and how the bundled plugins/*/gpus/*.yaml are made (scripts/gpu-profiles).
//
// The graph has one shape per vendor, with the family's node names: device memory, L2, shared
// memory and registers per SM (CU), tensor (matrix) cores and CUDA cores (vector lanes) per SM,
// and the edges between them (docs/formats.md, "kind: gpu_family"). Every figure is written with
// a comment saying where it comes from: given (the spec's source) or a rule of the generation (the
// rule's source), with the arithmetic where a figure is worked out from those, and, when a
// calibration changes it, both values and the fitted factor.
#include <string>
#include <vector>

#include "arch/GraphCalibration.hpp"
#include "profile/GpuFamily.hpp"
#include "profile/GpuSpec.hpp"

namespace ts {

struct GpuGraphOptions {
  // Where the graph will be written: template paths are written relative to its folder.
  std::string graph_file;
  // Where the kernel templates will be: the family's folder, or a copy beside the graph.
  std::string kernels_folder;
  const GraphCalibration* calibration = nullptr;  // none: the figures as the spec and rules say
  // How the header and comments name the inputs (stable text, so that a regenerated graph is the
  // same file wherever it was made): "l4.spec.yaml", "plugins/nvidia/family.yaml (bundled)".
  std::string spec_label;
  std::string family_label;
  std::string calibration_label;
};

// One figure of the graph for people: "edge:L2->SMEM.bandwidth", "5.61TB/s", "rule: ...".
struct GpuFigure {
  std::string figure;
  std::string value;
  // `given`, `given: <arithmetic>`, `rule: <source>`, `rule: <arithmetic> (<source>)`, each
  // followed by `; calibration: <factor> (<file>)` where a calibration changed it.
  std::string provenance;
};

struct GeneratedGpu {
  std::string graph_name;  // `nvidia-l4`
  std::string graph_yaml;
  std::string spec_yaml;  // the spec as used: every figure, the rules' marked as such
  std::vector<GpuFigure> figures;
  std::vector<std::string> kernels;  // the kernel names the graph's menus use, once each
  // Worth a look, not wrong: a given fp32 rate that cores x 2 x SMs x clock does not reproduce.
  std::vector<std::string> notes;
};

// Throws InputError at the spec's figure for what the family cannot take: another vendor, an
// unknown generation, a tensor rate for a type the generation's tensor cores do not have; and
// at the calibration's entry for a path the graph lacks.
GeneratedGpu generate_gpu_graph(const GpuSpec& spec, const GpuFamily& family,
                                const GpuGraphOptions& options);

}  // namespace ts
