// The graph notation of the fan-out network and of memory ports: multicast (and its older
// spelling broadcast), spatial reduction with its network's figures, port_scope. Loaded, refused
// where wrong at the right line, written back exactly, hashed, and named by parameter paths.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "arch/ArchitectureWriter.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

// Nodes from line 6, edges from line 11.
const std::string kNodes = R"(version: 1
kind: architecture
name: fan
clock: 1GHz
nodes:
  - {name: GB, type: memory, capacity: 1MiB, read_bandwidth: 32B/cycle, port_scope: per_instance}
  - name: PE
    type: compute
    instances: 16
    operations: [{class: matmul, dtype: int16, ops_per_cycle: 1, granule: [1, 1, 1]}]
edges:
)";

ArchitectureGraph load(const std::string& edges) {
  return parse_architecture(kNodes + edges, "fan.yaml");
}

InputError error_of(const std::string& edges) {
  return input_error_of([&] { load(edges); });
}

const std::string kFull =
    "  - {from: GB, to: PE, bandwidth: 64B/cycle, multicast: true}\n"
    "  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: network, reduction_topology: tree, "
    "reduction_latency: 2, reduction_bandwidth: 16B/cycle}\n";

}  // namespace

TEST_CASE("multicast, reduction and port_scope load in SI units", "[arch][loader][fanout]") {
  const ArchitectureGraph g = load(kFull);
  CHECK(g.nodes[0].port_scope == PortScope::per_instance);
  CHECK(g.nodes[1].capabilities[0].dtype == DataType::int16);
  CHECK(g.edges[0].multicast);
  CHECK(g.edges[0].reduction == EdgeReduction::none);
  const ArchEdge& up = g.edges[1];
  CHECK_FALSE(up.multicast);
  CHECK(up.reduction == EdgeReduction::network);
  CHECK(up.reduction_topology == ReductionTopology::tree);
  CHECK(up.reduction_latency_cycles == 2);
  CHECK(up.reduction_bandwidth_bytes_per_s == 16e9);  // B/cycle of PE's 1 GHz
  // `broadcast` is the older spelling of multicast; `reduction: memory` needs nothing else.
  const ArchitectureGraph old = load(
      "  - {from: GB, to: PE, bandwidth: 64B/cycle, broadcast: true}\n"
      "  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: memory}\n");
  CHECK(old.edges[0].multicast);
  CHECK(old.edges[1].reduction == EdgeReduction::memory);
  // Hops of the last partial: a chain of R forwards R-1 times, a tree has ceil(log2 R) levels.
  ArchEdge chain = up;
  chain.reduction_topology = ReductionTopology::chain;
  CHECK(chain.reduction_hops(4) == 3);
  CHECK(up.reduction_hops(4) == 2);
  CHECK(up.reduction_hops(5) == 3);
  CHECK(up.reduction_hops(1) == 0);
  CHECK(old.edges[1].reduction_hops(4) == 0);  // summed in the memory: no network hops
}

TEST_CASE("fan-out notation errors name the line and what was expected", "[arch][loader][fanout]") {
  SECTION("an unknown reduction") {
    const InputError e =
        error_of("  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: adder}\n");
    CHECK(e.where().file == "fan.yaml");
    CHECK(e.where().line == 12);
    CHECK(e.message() ==
          "unknown reduction 'adder' for edge PE->GB; expected network (partial sums added on "
          "the way), memory (added in the destination memory, read-modify-write) or none");
  }
  SECTION("a network's figures without a network") {
    const InputError e = error_of(
        "  - {from: GB, to: PE, bandwidth: 64B/cycle}\n"
        "  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: memory, reduction_latency: 3}\n");
    CHECK(e.where().line == 13);
    CHECK(e.message() ==
          "`reduction_latency` of edge PE->GB describes a reduction network; expected it only "
          "with `reduction: network`");
    const InputError none =
        error_of("  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction_topology: chain}\n");
    CHECK(none.where().line == 12);
  }
  SECTION("a network without its topology") {
    const InputError e =
        error_of("  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: network}\n");
    CHECK(e.where().line == 12);
    CHECK(e.message() ==
          "edge PE->GB has `reduction: network` but no `reduction_topology`; expected chain "
          "(R-1 hops) or tree (ceil(log2 R) levels)");
  }
  SECTION("an unknown topology") {
    const InputError e = error_of(
        "  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: network, reduction_topology: "
        "ring}\n");
    CHECK(e.where().line == 12);
    CHECK(e.message() ==
          "unknown reduction_topology 'ring' for edge PE->GB; expected chain or tree");
  }
  SECTION("both spellings of multicast") {
    const InputError e = error_of(
        "  - {from: GB, to: PE, bandwidth: 64B/cycle, multicast: true, broadcast: true}\n");
    CHECK(e.where().line == 12);
    CHECK(e.message() ==
          "edge GB->PE has both `multicast` and `broadcast`, two spellings of one key; expected "
          "only `multicast`");
  }
  SECTION("an unknown port_scope, and port_scope on a compute node") {
    std::string text = kNodes;
    text.replace(text.find("port_scope: per_instance"), 24, "port_scope: private");
    const InputError e = input_error_of([&] { parse_architecture(text, "fan.yaml"); });
    CHECK(e.where().line == 6);
    CHECK(e.message() ==
          "unknown port_scope 'private' for node 'GB'; expected per_instance (each instance has "
          "the port figures to itself) or shared");
    std::string compute = kNodes;
    compute.replace(compute.find("    instances: 16"), 0, "    port_scope: shared\n");
    const InputError c = input_error_of([&] { parse_architecture(compute, "fan.yaml"); });
    CHECK(c.where().line == 9);
    CHECK(c.message() == "`port_scope` applies to memory nodes only; 'PE' is a compute node");
  }
  SECTION("an unknown dtype lists int16") {
    std::string text = kNodes;
    text.replace(text.find("dtype: int16"), 12, "dtype: int2");
    const InputError e = input_error_of([&] { parse_architecture(text, "fan.yaml"); });
    CHECK(e.message() ==
          "unknown dtype 'int2'; expected one of: fp32, fp16, bf16, fp8, int8, "
          "int16, int32, int4, tf32");
  }
}

TEST_CASE("the writer writes every fan-out key back and the hash covers them",
          "[arch][writer][fanout]") {
  const ArchitectureGraph g = load(kFull);
  const std::string text = architecture_yaml(g, "", "fan.yaml");
  CHECK(text.find("port_scope: per_instance") != std::string::npos);
  CHECK(text.find("multicast: true") != std::string::npos);
  CHECK(text.find("reduction: network, reduction_topology: tree, reduction_latency: 2, "
                  "reduction_bandwidth: 16B/cycle") != std::string::npos);
  const ArchitectureGraph back = parse_architecture(text, "back.yaml");
  CHECK(back.content_hash() == g.content_hash());
  CHECK(back.nodes[0].port_scope == PortScope::per_instance);
  CHECK(back.edges[0].multicast);
  CHECK(back.edges[1].reduction == EdgeReduction::network);
  CHECK(back.edges[1].reduction_topology == ReductionTopology::tree);
  CHECK(back.edges[1].reduction_latency_cycles == 2);
  CHECK(back.edges[1].reduction_bandwidth_bytes_per_s == 16e9);

  // `broadcast` is written as `multicast`; `reduction: memory` round-trips.
  const ArchitectureGraph old = load(
      "  - {from: GB, to: PE, bandwidth: 64B/cycle, broadcast: true}\n"
      "  - {from: PE, to: GB, bandwidth: 64B/cycle, reduction: memory}\n");
  const std::string old_text = architecture_yaml(old, "", "fan.yaml");
  CHECK(old_text.find("broadcast") == std::string::npos);
  CHECK(old_text.find("multicast: true") != std::string::npos);
  CHECK(parse_architecture(old_text, "back.yaml").content_hash() == old.content_hash());
  CHECK(parse_architecture(old_text, "back.yaml").edges[1].reduction == EdgeReduction::memory);

  // Every key changes the hash; a graph without them hashes as before they existed.
  auto changed = [&](auto&& edit) {
    ArchitectureGraph h = g;
    edit(h);
    return h.content_hash() != g.content_hash();
  };
  CHECK(changed([](ArchitectureGraph& h) { h.nodes[0].port_scope = PortScope::shared; }));
  CHECK(changed([](ArchitectureGraph& h) { h.edges[0].multicast = false; }));
  CHECK(changed([](ArchitectureGraph& h) { h.edges[1].reduction = EdgeReduction::memory; }));
  CHECK(changed(
      [](ArchitectureGraph& h) { h.edges[1].reduction_topology = ReductionTopology::chain; }));
  CHECK(changed([](ArchitectureGraph& h) { h.edges[1].reduction_latency_cycles = 3; }));
  CHECK(changed([](ArchitectureGraph& h) { h.edges[1].reduction_bandwidth_bytes_per_s = 1e9; }));
}

TEST_CASE("a reduction network's figures are graph parameters", "[arch][parameter][fanout]") {
  const ArchitectureGraph g = load(kFull);
  const ParameterPath latency = parse_parameter_path("edge:PE->GB.reduction_latency", g, "--param");
  CHECK(latency.field == ParameterField::edge_reduction_latency);
  CHECK(parameter_value(g, latency) == 2);
  CHECK(with_parameter_value(g, latency, 5).edges[1].reduction_latency_cycles == 5);
  CHECK(*parse_parameter_value("3ns", g, latency) == Approx(3));  // cycles of PE's 1 GHz
  CHECK(parameter_unit(ParameterField::edge_reduction_latency) == "cycles");

  const ParameterPath bandwidth =
      parse_parameter_path("edge:PE->GB.reduction_bandwidth", g, "--param");
  CHECK(parameter_value(g, bandwidth) == 16e9);
  CHECK(with_parameter_value(g, bandwidth, 32e9).edges[1].reduction_bandwidth_bytes_per_s == 32e9);
  CHECK(*parse_parameter_value("8B/cycle", g, bandwidth) == Approx(8e9));
  CHECK(parameter_unit(ParameterField::edge_reduction_bandwidth) == "B/s");

  // An edge without a network has no such figure to vary.
  const InputError e =
      input_error_of([&] { parse_parameter_path("edge:GB->PE.reduction_latency", g, "--param"); });
  CHECK(e.message() ==
        "'edge:GB->PE.reduction_latency': edge GB->PE of graph 'fan' has no reduction network; "
        "expected an edge with `reduction: network`");
}
