#include "host/CalibrationOutput.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "arch/ArchitectureWriter.hpp"
#include "common/AtomicFile.hpp"
#include "common/InputError.hpp"
#include "host/MicroKernel.hpp"
#include "host/Microbench.hpp"

namespace ts::host {
namespace {

namespace fs = std::filesystem;

std::string runs_text(const MeasuredFigure& f) {
  std::string s;
  for (double r : f.runs) s += (s.empty() ? "" : ", ") + fmt::format("{:.4g}", r);
  return "[" + s + "]";
}

}  // namespace

std::string calibration_header(const HostCalibration& cal, const std::string& command) {
  const ArchitectureGraph& g = cal.graph;
  const int vb = bench::vector_bytes();
  const int lanes = vector_lanes();
  std::string h;
  h += "The host CPU as an architecture graph, measured by `tilescope calibrate host`.\n";
  h += "command: " + command + "\n";
  h += "date: " + cal.when + " (UTC)\n";
  h += "CPU: " + cal.cpu_name + "\n";
  h += "hwloc topology: " + g.description + "\n";
  h += "\n";
  size_t runs = cal.figures.empty() ? 0 : cal.figures.front().runs.size();
  h += fmt::format("Measured ({} run{} each; value = median, spread = (max - min) / median):\n",
                   runs, runs == 1 ? "" : "s");
  size_t width = 0;
  for (const auto& f : cal.figures) width = std::max(width, f.name.size());
  for (const auto& f : cal.figures)
    h += fmt::format("  {:<{}}  {:>9.4g} {:<9}  spread {:>5.1f}%  runs {}\n", f.name, width,
                     f.value, f.unit, f.spread * 100, runs_text(f));
  h += fmt::format("Repeated runs agree within {:.1f}%.\n", cal.max_spread * 100);
  h += "\n";
  h += "How the graph is built from these (docs/host.md):\n";
  h += "- clock: the measured clock, for every node. launch_overhead: the parallel-region start.\n";
  h += "- Capacities of L1, L2, L3 are EFFECTIVE capacities: half of the size hwloc reports.\n";
  h += "  A cache is not a scratchpad: lines of other operands, conflict misses and prefetched\n";
  h += "  lines take room, so a tile planned to fill a whole cache is evicted while reused.\n";
  h += fmt::format(
      "- RF: 7/8 of the {} architectural vector registers x {} B ({}): the accumulators one\n"
      "  register block may hold (the tiled kernel's rule); ISA facts, derived, not measured.\n",
      vector_registers(), vb, bench::isa_display_name());
  h += "- DRAM: capacity = the memory hwloc reports; one port for reads and writes together at\n";
  h += "  the all-core read figure; its edges carry the all-core read (down) and write (up)\n";
  h += "  figures as one pool shared by every core that uses them at once.\n";
  h += "- Cache edges, per instance: one core's read of the upper level (down) and write to it\n";
  h += "  (up). A shared cache's read and write ports are the all-core figures, which cap what\n";
  h += "  all cores get together. L1->RF and RF->L1: one core's L1 read and write.\n";
  h += "- L2->L1: the smaller of one core's L2 read and the tile copy into L1 (the tiled\n";
  h += "  kernel packs its L1 tile by copying rows).\n";
  h += "- L1->RF latency: the register-tile start, charged once per RF tile by the analysis.\n";
  h += fmt::format(
      "- RF->Core = 3 x {} B x FMAs/cycle (an FMA reads three registers), Core->RF = 1 x {} B x\n"
      "  FMAs/cycle (it writes one): what the FMA units use at peak, so never the bound.\n",
      vb, vb);
  h += fmt::format(
      "- Core: matmul fp32 = the measured MACs/cycle (fp32 lanes x FMAs per cycle), granule\n"
      "  [1, {0}, 1]; elementwise and reduction fp32 = the same lanes x FMA rate, granule [{0}].\n",
      lanes);
  h += "- operation_cost of elementwise and reduction (exp, div, sqrt): the measured ns per\n";
  h +=
      "  element x clock x MACs/cycle, the basic operations one core does meanwhile; at least 1.\n";
  return h;
}

CalibrationFiles write_host_calibration(HostCalibration& cal, const std::string& out_file,
                                        const std::string& command) {
  const fs::path out(out_file);
  const fs::path dir = out.parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
      throw InputError(SourceLocation{out_file, 0, 0},
                       fmt::format("cannot create folder '{}': {}", dir.string(), ec.message()));
  }
  const std::string stem = out.stem().string();
  CalibrationFiles files;
  files.graph = out_file;
  files.gemm_template = (dir / (stem + "-gemm-template.yaml")).string();
  files.vector_template = (dir / (stem + "-vector-template.yaml")).string();

  cal.graph.name = stem;
  write_file_atomically(files.gemm_template, host_gemm_template_yaml(cal.graph));
  write_file_atomically(files.vector_template, host_vector_template_yaml(cal.graph));
  cal.graph.mapping_templates = {{OpClass::matmul, {files.gemm_template}},
                                 {OpClass::elementwise, {files.vector_template}},
                                 {OpClass::reduction, {files.vector_template}}};
  write_architecture(cal.graph, calibration_header(cal, command), out_file);
  return files;
}

}  // namespace ts::host
