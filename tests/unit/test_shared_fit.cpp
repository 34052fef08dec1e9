// One calibration fitted across several graphs: factors on each graph's own rates, shared
// absolute times, and leave-one-graph-out cross-validation.
#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "analysis/Roofline.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "calibrate/SharedParameterFit.hpp"
#include "correlate/LeaveOneGraphOut.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

// A chip whose unit does `macs` fp32 MACs a cycle at 1 GHz, behind a memory of 1 TB/s.
ArchitectureGraph chip(const std::string& name, int macs) {
  return parse_architecture(R"(version: 1
kind: architecture
name: )" + name + R"(
clock: 1GHz
launch_overhead: 10us
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB, bandwidth: 1TB/s}
  - {name: Unit, type: compute, operations: [{class: matmul, dtype: fp32, ops_per_cycle: )" +
                                std::to_string(macs) + R"(, granule: [1, 1, 1]}]}
edges:
  - {from: DRAM, to: Unit, bandwidth: 1TB/s}
  - {from: Unit, to: DRAM, bandwidth: 1TB/s}
)",
                            name + ".yaml");
}

// GEMMs of N x N x N in 32 x 32 blocks: compute-bound on every chip here.
std::vector<FitSample> gemms(const ArchitectureGraph& truth, double efficiency, double launch_s) {
  std::vector<FitSample> out;
  for (int64_t n : {64, 128, 256, 512}) {
    FitSample s;
    s.op = make_gemm("g" + std::to_string(n), n, n, n, DataType::fp32);
    s.mapping =
        parse_mapping(R"(version: 1
kind: mapping
tree:
  tile: DRAM
  temporal: {M: )" + std::to_string(n / 32) +
                          ", N: " + std::to_string(n / 32) + ", K: " + std::to_string(n) + R"(}
  children:
    - op: Unit
      factors: {M: 32, N: 32, K: 1}
)",
                      "m.yaml");
    s.scope = TimingScope::host_call;
    // What the chip measures: its peak x efficiency, and the launch.
    s.measured_s = static_cast<double>(n * n * n) /
                       (truth.nodes[1].capabilities[0].ops_per_cycle * efficiency * 1e9) +
                   launch_s;
    out.push_back(s);
  }
  return out;
}

std::vector<GraphSamples> family(double efficiency, double launch_s) {
  std::vector<GraphSamples> out;
  for (const auto& [name, macs] : {std::pair{"small", 32}, {"mid", 64}, {"big", 256}}) {
    GraphSamples g;
    g.label = name;
    g.graph = chip(name, macs);
    g.samples = gemms(g.graph, efficiency, launch_s);
    g.groups.assign(g.samples.size(), "gemm");
    out.push_back(g);
  }
  return out;
}

}  // namespace

TEST_CASE("a shared fit finds one efficiency for chips of different peaks", "[shared-fit]") {
  const std::vector<GraphSamples> graphs = family(0.6, 25e-6);
  const std::vector<SharedParameter> params{
      parse_shared_parameter("node:Unit.efficiency", graphs),
      parse_shared_parameter("launch_overhead=1us:100us", graphs)};
  CHECK(params[0].relative);
  CHECK_FALSE(params[1].relative);  // a time is shared as it is
  CHECK(params[1].initial == Approx(10e-6));
  const SharedFitResult r = fit_shared_parameters(graphs, params, 300);
  CHECK(r.values[0] == Approx(0.6).epsilon(0.01));
  CHECK(r.values[1] == Approx(25e-6).epsilon(0.01));
  CHECK(r.final_error < 0.01);
  CHECK(r.initial_error > 0.1);
  // The factor applies to each chip's own peak.
  const ArchitectureGraph big = with_shared_values(graphs[2].graph, params, r.values);
  CHECK(big.nodes[1].capabilities[0].ops_per_cycle == Approx(256 * 0.6).epsilon(0.01));
}

TEST_CASE("a relative bandwidth is a factor on each graph's own figure", "[shared-fit]") {
  std::vector<GraphSamples> graphs = family(1.0, 10e-6);
  const SharedParameter bw = parse_shared_parameter("node:DRAM.bandwidth=0.2:1.5", graphs);
  CHECK(bw.relative);
  CHECK(bw.lower == Approx(0.2));
  const ArchitectureGraph g = with_shared_values(graphs[0].graph, {bw}, {0.5});
  CHECK(g.nodes[0].port_bytes_per_s == Approx(0.5e12));
  const InputError e =
      test::input_error_of([&] { parse_shared_parameter("node:Unit.instances", graphs); });
  CHECK(e.message().find("is a count") != std::string::npos);
}

TEST_CASE("leave one graph out predicts each chip from the others' fit", "[shared-fit]") {
  DeviceMeasurements data;
  data.graphs = family(0.5, 30e-6);
  for (const GraphSamples& g : data.graphs)
    data.facts.push_back(std::vector<SampleFacts>(
        g.samples.size(), SampleFacts{"gemm", "volta_sgemm_32x32_sliced1x4_nn", "kernel", 0}));
  const std::vector<SharedParameter> params{
      parse_shared_parameter("node:Unit.efficiency", data.graphs),
      parse_shared_parameter("launch_overhead=1us:100us", data.graphs)};
  const LeaveOneGraphOut r = leave_one_graph_out(data, params, 300);
  REQUIRE(r.held_out.size() == 3);
  for (const SharedFitResult& f : r.held_out) CHECK(f.values[0] == Approx(0.5).epsilon(0.01));
  REQUIRE(r.cells.size() == 3);  // one type per device; its class repeats it and is left out
  for (const HoldOutCell& c : r.cells) {
    CHECK(c.count == 4);
    CHECK(c.mape < 0.01);
    // The roofline alone knows neither the efficiency nor the launch.
    CHECK(c.roofline_mape > 0.4);
    CHECK(c.kernels_named == 4);
    CHECK(c.kernels_agreeing == 0);
  }
}

TEST_CASE("the roofline of an operator on a graph", "[shared-fit][roofline]") {
  const ArchitectureGraph g = chip("c", 64);
  const Operator op = make_gemm("g", 128, 128, 128, DataType::fp32);
  const Roofline r = roofline(op, g);
  // 128^3 MACs at 64 a cycle and 1 GHz; 3 x 128^2 x 4 bytes at 1 TB/s.
  CHECK(r.compute_s == Approx(128.0 * 128 * 128 / 64e9));
  CHECK(r.memory_s == Approx(3 * 128.0 * 128 * 4 / 1e12));
  CHECK(r.seconds() == r.compute_s);
}

TEST_CASE("kernel tiles from library and template names", "[shared-fit]") {
  CHECK(kernel_tile("ampere_sgemm_128x64_tn") == "128x64");
  CHECK(kernel_tile("volta_sgemm_32x32_sliced1x4_nn") == "32x32-sliced");
  CHECK(kernel_tile("sgemm-32x32-sliced1x4-splitk") == "32x32-sliced");
  CHECK(kernel_tile("sgemm-128x64") == "128x64");
  CHECK(kernel_tile("void at::native::vectorized_elementwise_kernel<4, ...>").empty());
}
