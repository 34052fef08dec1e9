#include "calibrate/GpuCalibration.hpp"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "arch/ArchitectureParameterPath.hpp"
#include "calibrate/IssueFit.hpp"
#include "common/InputError.hpp"

namespace ts {
namespace {

const RunnerCalibrationRecord* find_figure(const RunnerResults& r, const std::string& name) {
  for (const auto& c : r.calibration)
    if (c.figure == name) return &c;
  return nullptr;
}

void expect_unit(const RunnerResults& r, const RunnerCalibrationRecord& c, const char* unit) {
  if (c.unit != unit)
    throw InputError(SourceLocation{r.file, c.line, 0},
                     fmt::format("{} in '{}': expected {}", c.figure, c.unit, unit));
}

void set_if_present(ArchitectureGraph& g, const std::string& path, double value) {
  try {
    set_parameter_value(g, path, value);
  } catch (const InputError&) {
    // the base graph has no such edge or node: nothing to set
  }
}

}  // namespace

GpuCalibration calibrate_gpu_graph(const RunnerResults& results, ArchitectureGraph base,
                                   const std::string& base_file, TensorPeak peak) {
  if (results.calibration.empty())
    throw InputError(SourceLocation{results.file, 0, 0},
                     "no calibration records: expected the output of "
                     "`tilescope-cupti-runner --calibrate`");
  GpuCalibration out;
  ArchitectureGraph& g = base;
  auto note = [&](const std::string& text) { out.measured.push_back(text); };

  // Device properties: SM count, clock, memory and L2 sizes.
  int sm_count = 0;
  double clock_hz = 0;
  std::string device_name;
  if (const auto* d = find_figure(results, "device")) {
    const auto p = nlohmann::json::parse(d->properties_json);
    device_name = p.value("name", std::string());
    sm_count = p.value("sm_count", 0);
    clock_hz = p.value("sm_clock_khz", 0) * 1e3;
    if (clock_hz > 0) {
      set_parameter_value(g, "clock", clock_hz);
      note(fmt::format("clock {:.4g} GHz (device attribute: peak SM clock)", clock_hz * 1e-9));
    }
    if (sm_count > 0) {
      for (const char* n : {"SMEM", "RF", "TensorCore", "CUDACores"})
        if (auto id = g.find_node(n)) g.nodes[id->index()].instances = sm_count;
      note(fmt::format("{} SMs (instances of SMEM, RF, TensorCore, CUDACores)", sm_count));
    }
    if (auto id = g.find_node("HBM"); id && p.value("memory_bytes", int64_t{0}) > 0) {
      g.nodes[id->index()].capacity_bytes = static_cast<double>(p["memory_bytes"].get<int64_t>());
      note(fmt::format("HBM capacity {} B (device property)", p["memory_bytes"].get<int64_t>()));
    }
    if (auto id = g.find_node("L2"); id && p.value("l2_bytes", int64_t{0}) > 0) {
      g.nodes[id->index()].capacity_bytes = static_cast<double>(p["l2_bytes"].get<int64_t>());
      note(fmt::format("L2 capacity {} B (device property)", p["l2_bytes"].get<int64_t>()));
    }
  }
  if (sm_count == 0)
    if (auto id = g.find_node("SMEM")) sm_count = static_cast<int>(g.nodes[id->index()].instances);
  if (clock_hz == 0) clock_hz = g.clock_hz;

  if (const auto* c = find_figure(results, "hbm_copy_bandwidth")) {
    expect_unit(results, *c, "B/s");
    set_if_present(g, "node:HBM.bandwidth", c->value);
    set_if_present(g, "edge:HBM->L2.bandwidth", c->value);
    set_if_present(g, "edge:L2->HBM.bandwidth", c->value);
    note(fmt::format("HBM bandwidth {:.4g} TB/s ({})", c->value * 1e-12, c->method));
  }
  if (const auto* c = find_figure(results, "l2_read_bandwidth")) {
    expect_unit(results, *c, "B/s");
    set_if_present(g, "edge:L2->SMEM.bandwidth", c->value);
    set_if_present(g, "edge:SMEM->L2.bandwidth", c->value);
    note(fmt::format("L2 bandwidth {:.4g} TB/s ({})", c->value * 1e-12, c->method));
  }
  if (const auto* c = find_figure(results, "smem_read_bandwidth")) {
    expect_unit(results, *c, "B/s");
    const double per_sm = c->value / std::max(sm_count, 1);
    set_if_present(g, "edge:SMEM->RF.bandwidth", per_sm);
    set_if_present(g, "edge:RF->SMEM.bandwidth", per_sm);
    note(fmt::format("shared-memory bandwidth {:.4g} B/cycle per SM ({})", per_sm / clock_hz,
                     c->method));
  }
  const auto* mma_sync = find_figure(results, "tensor_fp16_mma_sync_flops");
  const auto* wmma_kernel = find_figure(results, "tensor_fp16_wmma_kernel_flops");
  if (peak == TensorPeak::mma_sync && !mma_sync)
    throw InputError(SourceLocation{results.file, 0, 0},
                     "no tensor_fp16_mma_sync_flops record: the mma.sync peak was asked for, and "
                     "only newer runners measure it");
  if (peak == TensorPeak::wmma_kernel && !wmma_kernel)
    throw InputError(SourceLocation{results.file, 0, 0},
                     "no tensor_fp16_wmma_kernel_flops record: the WMMA kernel's rate was asked "
                     "for, and only newer runners measure it");
  for (const char* dtype : {"fp16", "bf16"}) {
    // The mma.sync figure is measured in fp16; bf16 runs through the same mma.sync shapes at
    // the same rate (PTX ISA: m16n8k16 for both).
    const RunnerCalibrationRecord* c = nullptr;
    if (peak == TensorPeak::mma_sync)
      c = mma_sync;
    else if (peak == TensorPeak::wmma_kernel)
      c = wmma_kernel;
    else
      c = find_figure(results, std::string("tensor_") + dtype + "_flops");
    auto id = g.find_node("TensorCore");
    if (!c || !id) continue;
    expect_unit(results, *c, "FLOP/s");
    // matmul capabilities count multiply-accumulates: FLOP/s / 2 per SM per cycle
    const double macs = c->value / 2 / std::max(sm_count, 1) / clock_hz;
    for (ComputeCapability& cap : g.nodes[id->index()].capabilities)
      if (std::string(to_string(cap.dtype)) == dtype) cap.ops_per_cycle = macs;
    note(fmt::format("tensor-core {} {:.4g} TFLOP/s = {:.0f} MACs per cycle per SM ({})", dtype,
                     c->value * 1e-12, macs, c->method));
  }
  // The WMMA kernel's rate per block shape: an issue limit fitted to the sweeps (IssueFit.hpp),
  // under the tensor cores' own peak (mma.sync's where measured), instead of one kernel rate.
  // Fitted last, on the graph with every other measured figure in.
  const std::vector<IssueSweepPoint> sweep = issue_sweep_points(results);
  const bool fit_issue =
      peak == TensorPeak::wmma_kernel && !sweep.empty() && g.find_node("TensorCore").has_value();
  std::string unused;
  if (mma_sync && peak != TensorPeak::mma_sync && !fit_issue)
    unused = fmt::format(
        "Measured, not put in: mma.sync peak {:.4g} TFLOP/s ({}); "
        "`--tensor-peak mma-sync` puts it in.",
        mma_sync->value * 1e-12, mma_sync->method);
  if (wmma_kernel && (peak != TensorPeak::wmma_kernel || fit_issue))
    unused += fmt::format(
        "{}Measured, not put in: tilescope's WMMA kernel {:.4g} TFLOP/s ({}); {}",
        unused.empty() ? "" : " ", wmma_kernel->value * 1e-12, wmma_kernel->method,
        fit_issue ? "the issue limit fitted to the sweeps gives its rate per block instead."
                  : "`--tensor-peak wmma-kernel` puts it in.");
  // Latencies: a chain of dependent loads from L2, and from HBM through L2. A tile's load pays
  // the sum along its path (HBM->L2->SMEM), so HBM->L2 gets the difference.
  const auto* l2_latency = find_figure(results, "l2_latency");
  if (l2_latency) {
    expect_unit(results, *l2_latency, "s");
    set_if_present(g, "edge:L2->SMEM.latency", l2_latency->value * clock_hz);
    note(fmt::format("L2 latency {:.0f} ns = {:.0f} cycles, on edge L2->SMEM ({})",
                     l2_latency->value * 1e9, l2_latency->value * clock_hz, l2_latency->method));
  }
  if (const auto* c = find_figure(results, "hbm_latency")) {
    expect_unit(results, *c, "s");
    const double beyond_l2 = std::max(0.0, c->value - (l2_latency ? l2_latency->value : 0.0));
    set_if_present(g, "edge:HBM->L2.latency", beyond_l2 * clock_hz);
    note(fmt::format("HBM latency {:.0f} ns; {:.0f} cycles beyond L2's, on edge HBM->L2 ({})",
                     c->value * 1e9, beyond_l2 * clock_hz, c->method));
  }
  // The shortest kernel's device time bounds every kernel's, on whichever unit it runs.
  if (const auto* c = find_figure(results, "kernel_floor")) {
    expect_unit(results, *c, "s");
    for (ArchNode& n : g.nodes)
      if (n.kind == NodeKind::compute) n.min_kernel_time_s = c->value;
    note(fmt::format("kernel floor {:.3g} us on every compute node ({})", c->value * 1e6,
                     c->method));
  }
  if (const auto* c = find_figure(results, "launch_overhead")) {
    expect_unit(results, *c, "s");
    g.launch_overhead_s = c->value;
    note(fmt::format("launch overhead {:.3g} us ({})", c->value * 1e6, c->method));
  }
  if (fit_issue) {
    ArchNode& tensor = g.nodes[g.find_node("TensorCore")->index()];
    for (ComputeCapability& cap : tensor.capabilities) {
      if (cap.dtype != DataType::fp16 && cap.dtype != DataType::bf16) continue;
      if (mma_sync) cap.ops_per_cycle = mma_sync->value / 2 / std::max(sm_count, 1) / clock_hz;
      // Starting point where the base has none: an H100/H200 SM's 4 schedulers issue one
      // instruction a cycle each (Hopper whitepaper); the per-warp figures are searched from a
      // sixteenth to 16 times these.
      if (!cap.issue)
        cap.issue = IssueLimit{.instructions_per_step = 8,
                               .instructions_per_fragment = 4,
                               .issue_per_cycle = 4,
                               .latency_cycles = 64};
    }
    const FitResult fit = fit_issue_limit(g, "TensorCore", sweep);
    g = fit.graph;
    for (const ComputeCapability& cap : g.node(*g.find_node("TensorCore")).capabilities)
      if (cap.issue)
        note(fmt::format(
            "tensor-core {} issue limit: {:.3g} instructions per step + {:.3g} per fragment, "
            "{:.3g} cycles between a warp's steps, {:g} issued per cycle, under {:.0f} MACs per "
            "cycle per SM ({} wmma_kernel_sweep records; log-RMSE {:.3f} from {:.3f})",
            to_string(cap.dtype), cap.issue->instructions_per_step,
            cap.issue->instructions_per_fragment, cap.issue->latency_cycles,
            cap.issue->issue_per_cycle, cap.ops_per_cycle, sweep.size(), fit.final_log_rmse,
            fit.initial_log_rmse));
  }
  if (!device_name.empty()) g.description = device_name + ", calibrated by tilescope-cupti-runner";
  g.name += peak == TensorPeak::mma_sync      ? "-measured-mma-sync"
            : peak == TensorPeak::wmma_kernel ? "-measured-wmma-kernel"
                                              : "-measured";

  out.comment_lines.push_back(fmt::format("Calibrated from {} on {}; base graph {}.", results.file,
                                          device_name.empty() ? "an unnamed device" : device_name,
                                          base_file));
  out.comment_lines.push_back(
      "Measured (tilescope-cupti-runner --calibrate, CUPTI kernel durations, median):");
  for (const auto& m : out.measured) out.comment_lines.push_back("  " + m);
  if (!unused.empty()) out.comment_lines.push_back(unused);
  out.comment_lines.push_back(
      "Every other figure (store latencies, RF and CUDA-core rates, fp8) is the base graph's "
      "datasheet or assumed value.");
  out.graph = std::move(g);
  return out;
}

}  // namespace ts
