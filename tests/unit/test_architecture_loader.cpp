#include <catch2/catch.hpp>
#include <filesystem>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

// Four lines, so that `nodes:` is line 5 and its first entry line 6.
const std::string head = "version: 1\nkind: architecture\nname: t\nclock: 1GHz\n";

InputError arch_error(const std::string& body) {
  return input_error_of([&] { parse_architecture(head + body, "t.yaml"); });
}

}  // namespace

TEST_CASE("the example architecture of docs/formats.md loads in SI units", "[arch][loader]") {
  ArchitectureGraph g = load_architecture(fixture("arch/tiny.yaml"));
  CHECK(g.name == "tiny");
  CHECK(g.description == "a two-level example");
  CHECK(g.clock_hz == 1e9);
  CHECK(g.launch_overhead_s == Approx(5e-6));
  REQUIRE(g.nodes.size() == 3);

  const ArchNode& dram = g.node(NodeId{0});
  CHECK(dram.name == "DRAM");
  CHECK(dram.kind == NodeKind::memory);
  CHECK(dram.capacity_bytes == 1073741824.0);
  CHECK(dram.word_bytes == 2);
  CHECK(dram.read_port_bytes_per_s == 100e9);
  CHECK(dram.write_port_bytes_per_s == 100e9);
  CHECK(dram.clock_hz == 1e9);  // inherited from the graph
  CHECK(dram.where.line == 8);
  CHECK(dram.where.column == 5);

  const ArchNode& sram = g.node(NodeId{1});
  CHECK(sram.capacity_bytes == 65536.0);
  CHECK(sram.instances == 4);
  CHECK(sram.word_bytes == 1);
  CHECK(sram.read_port_bytes_per_s == 0);

  const ArchNode& pe = g.node(NodeId{2});
  CHECK(pe.kind == NodeKind::compute);
  REQUIRE(pe.capabilities.size() == 1);
  CHECK(pe.capabilities[0].op_class == OpClass::matmul);
  CHECK(pe.capabilities[0].dtype == DataType::fp16);
  CHECK(pe.capabilities[0].ops_per_cycle == 256);
  CHECK(pe.capabilities[0].granule == std::array<int64_t, 3>{8, 8, 4});
  CHECK(pe.capabilities[0].where.line == 23);

  REQUIRE(g.edges.size() == 4);
  const ArchEdge& down = g.edge(EdgeId{0});
  CHECK(down.from == NodeId{0});
  CHECK(down.to == NodeId{1});
  CHECK(down.bandwidth_bytes_per_s == 50e9);
  CHECK(down.sharing == EdgeSharing::shared);
  CHECK(down.latency_cycles == 100);
  CHECK(down.multicast);
  CHECK(down.where.line == 28);
  // 64 B/cycle at the 1 GHz clock of SRAM, the source
  CHECK(g.edge(EdgeId{1}).bandwidth_bytes_per_s == 64e9);
  CHECK(g.edge(EdgeId{1}).sharing == EdgeSharing::per_instance);
  CHECK_FALSE(g.edge(EdgeId{1}).multicast);
  CHECK(g.edge(EdgeId{1}).latency_cycles == 0);
  CHECK(g.edge(EdgeId{3}).from == NodeId{1});
  CHECK(g.edge(EdgeId{3}).to == NodeId{0});

  // finalized: the queries work
  CHECK(g.edge_between(NodeId{1}, NodeId{2}) == EdgeId{1});
  CHECK(g.out_edges(NodeId{1}).size() == 2);

  auto expected = (std::filesystem::path(TILESCOPE_FIXTURES) / "mapping/tiny-gemm-template.yaml")
                      .lexically_normal()
                      .string();
  REQUIRE(g.mapping_templates.count(OpClass::matmul) == 1);
  CHECK(g.mapping_templates.at(OpClass::matmul) == std::vector<std::string>{expected});
}

TEST_CASE("mapping_templates names operation classes and operator types", "[arch][loader]") {
  // A type's template (vLLM's one block per token for rmsnorm) is kept apart from its class's;
  // a key that is neither is an error at the key, listing both kinds.
  const std::string tmpl = fixture("mapping/tiny-gemm-template.yaml");
  const std::string text =
      "version: 1\nkind: architecture\nname: t\nclock: 1GHz\nnodes:\n"
      "  - {name: M, type: memory, capacity: 1MiB}\n"
      "  - {name: P, type: compute, operations: [{class: reduction, dtype: "
      "fp16, ops_per_cycle: 1}]}\n"
      "edges:\n  - {from: M, to: P, bandwidth: 1GB/s}\n"
      "  - {from: P, to: M, bandwidth: 1GB/s}\n"
      "mapping_templates:\n  reduction: " +
      tmpl + "\n  rmsnorm: " + tmpl + "\n";
  const ArchitectureGraph g = parse_architecture(text, "t.yaml");
  CHECK(g.mapping_templates.count(OpClass::reduction) == 1);
  REQUIRE(g.operator_templates.count("rmsnorm") == 1);
  CHECK(std::filesystem::equivalent(g.operator_templates.at("rmsnorm").front(), tmpl));
  std::string bad = text;
  bad.replace(bad.find("  rmsnorm: "), 11, "  rms_norm: ");
  InputError e = input_error_of([&] { parse_architecture(bad, "t.yaml"); });
  CHECK(e.where().line == 13);
  CHECK(e.message().find("unknown key 'rms_norm' in `mapping_templates`") != std::string::npos);
  CHECK(e.message().find("silu_mul") != std::string::npos);
}

TEST_CASE("broken YAML syntax is reported where the parser stopped", "[arch][loader]") {
  std::string path = fixture("arch/malformed.yaml");
  InputError e = input_error_of([&] { load_architecture(path); });
  CHECK(e.where().file == path);
  CHECK(e.where().line == 7);  // the next entry, where the unclosed `{` of line 6 is noticed
  CHECK(e.where().column == 5);
  CHECK(e.message() == "invalid YAML: end of map flow not found");
}

TEST_CASE("an edge to an unknown node points at the name", "[arch][loader]") {
  std::string path = fixture("arch/unknown-node-edge.yaml");
  InputError e = input_error_of([&] { load_architecture(path); });
  CHECK(e.where().line == 15);
  CHECK(e.where().column == 9);
  CHECK(e.message() == "unknown node 'L9' (known: HBM, L2, SM)");
  CHECK(std::string(e.what()) == path + ":15:9: unknown node 'L9' (known: HBM, L2, SM)");
}

TEST_CASE("an edge without bandwidth is reported at the edge", "[arch][loader]") {
  InputError e =
      input_error_of([] { load_architecture(fixture("arch/edge-without-bandwidth.yaml")); });
  CHECK(e.where().line == 9);
  CHECK(e.where().column == 5);
  CHECK(e.message() == "edge HBM->L2 has no bandwidth; expected e.g. `bandwidth: 1.6TB/s`");
}

TEST_CASE("a quantity in the wrong unit is reported at the value", "[arch][loader]") {
  InputError e = input_error_of([] { load_architecture(fixture("arch/bad-unit.yaml")); });
  CHECK(e.where().line == 8);
  CHECK(e.where().column == 15);
  CHECK(e.message() ==
        "expected a positive size in bytes for `capacity` such as `64KiB`, `80GB` or `4096`, got "
        "'64Gb'");
}

TEST_CASE("a file of another kind is refused at its kind", "[arch][loader]") {
  InputError e = input_error_of([] { load_architecture(fixture("arch/wrong-kind.yaml")); });
  CHECK(e.where().line == 2);
  CHECK(e.where().column == 7);
  CHECK(e.message() == "wrong kind 'workload'; expected `kind: architecture`");
}

TEST_CASE("B/cycle counts cycles of the edge's source node", "[arch][loader]") {
  ArchitectureGraph g = parse_architecture(head + R"(nodes:
  - {name: HBM, type: memory, capacity: 1GiB}
  - {name: UB, type: memory, capacity: 256KiB, clock: 2GHz, read_bandwidth: 16B/cycle}
edges:
  - {from: HBM, to: UB, bandwidth: 32B/cycle, latency: 50ns}
  - {from: UB, to: HBM, bandwidth: 32B/cycle}
)",
                                           "t.yaml");
  CHECK(g.node(NodeId{0}).clock_hz == 1e9);
  CHECK(g.node(NodeId{1}).clock_hz == 2e9);
  CHECK(g.edge(EdgeId{0}).bandwidth_bytes_per_s == 32e9);   // 32 B x 1 GHz of HBM
  CHECK(g.edge(EdgeId{1}).bandwidth_bytes_per_s == 64e9);   // 32 B x 2 GHz of UB
  CHECK(g.node(NodeId{1}).read_port_bytes_per_s == 32e9);   // 16 B x 2 GHz
  CHECK(g.edge(EdgeId{0}).latency_cycles == Approx(50.0));  // 50 ns at 1 GHz
  CHECK(g.name == "t");
  CHECK(g.launch_overhead_s == 0);
}

TEST_CASE("a self-edge links the instances of one node", "[arch][loader]") {
  ArchitectureGraph g = parse_architecture(head + R"(nodes:
  - {name: SP, type: memory, capacity: 1MiB, instances: 16}
edges:
  - {from: SP, to: SP, bandwidth: 64B/cycle}
)",
                                           "t.yaml");
  CHECK(g.edge_between(NodeId{0}, NodeId{0}) == EdgeId{0});
  CHECK(g.fan_out(EdgeId{0}) == 1.0);
  CHECK(g.shortest_path(NodeId{0}, NodeId{0}).empty());
  CHECK(g.paths(NodeId{0}, NodeId{0}).empty());
}

TEST_CASE("the name defaults to the file's stem", "[arch][loader]") {
  ArchitectureGraph g = parse_architecture(
      "version: 1\nkind: architecture\nclock: 1GHz\nnodes: [{name: M, type: memory, capacity: "
      "1}]\n",
      "dir/my-chip.yaml");
  CHECK(g.name == "my-chip");
}

TEST_CASE("architecture structure errors name the key and the place", "[arch][loader]") {
  SECTION("unknown key lists the expected ones") {
    InputError e = arch_error("nodes:\n  - {name: M, type: memory, capacity: 1, capacty: 2}\n");
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 42);
    CHECK(e.message() ==
          "unknown key 'capacty' in node 'M'; expected one of: name, type, clock, instances, "
          "capacity, word_bytes, read_bandwidth, write_bandwidth, bandwidth, port_scope, "
          "dispatch, tails, operations, cost_hook, min_kernel_time, runs_as, energy, leak, area");
  }
  SECTION("dispatch is dynamic or lockstep") {
    InputError e = arch_error(
        "nodes:\n  - {name: M, type: memory, capacity: 1, instances: 4, dispatch: greedy}\n");
    CHECK(e.where().line == 6);
    CHECK(e.message() ==
          "unknown dispatch 'greedy' for node 'M'; expected dynamic (instances take the next part "
          "when free) or lockstep");
  }
  SECTION("tails are padded or exact") {
    InputError e = arch_error(
        "nodes:\n  - {name: M, type: memory, capacity: 1, instances: 4, tails: rounded}\n");
    CHECK(e.where().line == 6);
    CHECK(e.message() ==
          "unknown tails 'rounded' for node 'M'; expected padded (a part computes its whole "
          "extent) or exact");
  }
  SECTION("duplicate node names") {
    InputError e = arch_error(
        "nodes:\n  - {name: M, type: memory, capacity: 1}\n  - {name: M, type: memory, capacity: "
        "2}\n");
    CHECK(e.where().line == 7);
    CHECK(e.where().column == 12);
    CHECK(e.message() == "duplicate node name 'M' (first at line 6)");
  }
  SECTION("a compute node needs operations") {
    InputError e = arch_error("nodes:\n  - {name: PE, type: compute}\n");
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 5);
    CHECK_THAT(e.message(), Catch::StartsWith("compute node 'PE' has no operations"));
  }
  SECTION("memory keys on a compute node") {
    InputError e = arch_error(
        "nodes:\n  - name: PE\n    type: compute\n    capacity: 1KiB\n"
        "    operations: [{class: matmul, dtype: fp16, ops_per_cycle: 1}]\n");
    CHECK(e.where().line == 8);
    CHECK(e.where().column == 5);
    CHECK(e.message() == "`capacity` applies to memory nodes only; 'PE' is a compute node");
  }
  SECTION("a memory needs a capacity") {
    InputError e = arch_error("nodes:\n  - {name: M, type: memory}\n");
    CHECK(e.where().line == 6);
    CHECK(e.message() == "memory node 'M' has no capacity; expected e.g. `capacity: 64KiB`");
  }
  SECTION("a capacity of zero") {
    InputError e = arch_error("nodes:\n  - {name: M, type: memory, capacity: 0KiB}\n");
    CHECK(e.where().column == 39);
    CHECK_THAT(e.message(), Catch::StartsWith("expected a positive size in bytes for `capacity`"));
  }
  SECTION("instances must be positive") {
    InputError e = arch_error("nodes:\n  - {name: M, type: memory, capacity: 1, instances: 0}\n");
    CHECK(e.where().line == 6);
    CHECK(e.where().column == 53);
    CHECK(e.message() == "expected a positive integer for `instances`, got '0'");
  }
  SECTION("unknown node type") {
    InputError e = arch_error("nodes:\n  - {name: M, type: cache, capacity: 1}\n");
    CHECK(e.where().column == 21);
    CHECK(e.message() == "unknown node type 'cache'; expected memory or compute");
  }
  SECTION("a matmul granule has three entries") {
    InputError e = arch_error(
        "nodes:\n  - name: PE\n    type: compute\n"
        "    operations: [{class: matmul, dtype: fp16, ops_per_cycle: 1, granule: [8, 8]}]\n");
    CHECK(e.where().line == 8);
    CHECK(e.where().column == 74);
    CHECK(e.message() == "a matmul granule is [m, n, k], got 2 values");
  }
  SECTION("an accumulator type on a vector operation") {
    InputError e = arch_error(
        "nodes:\n  - name: PE\n    type: compute\n"
        "    operations: [{class: elementwise, dtype: fp16, ops_per_cycle: 1, accumulator: "
        "fp32}]\n");
    CHECK(e.where().line == 8);
    CHECK(e.message() == "`accumulator` applies to matmul operations only");
  }
  SECTION("an unknown accumulator type") {
    InputError e = arch_error(
        "nodes:\n  - name: PE\n    type: compute\n"
        "    operations: [{class: matmul, dtype: fp16, ops_per_cycle: 1, accumulator: fp64}]\n");
    CHECK(e.where().line == 8);
    CHECK(e.message() ==
          "unknown accumulator 'fp64'; expected one of: fp32, fp16, bf16, fp8, int8, int16, int32, "
          "int4, tf32");
  }
  SECTION("unknown data type") {
    InputError e = arch_error(
        "nodes:\n  - name: PE\n    type: compute\n"
        "    operations: [{class: matmul, dtype: fp64, ops_per_cycle: 1}]\n");
    CHECK(e.where().column == 41);
    CHECK(e.message() ==
          "unknown dtype 'fp64'; expected one of: fp32, fp16, bf16, fp8, int8, int16, int32, int4, "
          "tf32");
  }
  SECTION("duplicate edge") {
    InputError e = arch_error(
        "nodes:\n  - {name: A, type: memory, capacity: 1}\n  - {name: B, type: memory, capacity: "
        "1}\n"
        "edges:\n  - {from: A, to: B, bandwidth: 1GB/s}\n  - {from: A, to: B, bandwidth: 2GB/s}\n");
    CHECK(e.where().line == 10);
    CHECK(e.message() == "duplicate edge A->B (first at line 9)");
  }
  SECTION("a bandwidth needs a unit") {
    InputError e = arch_error(
        "nodes:\n  - {name: A, type: memory, capacity: 1}\n  - {name: B, type: memory, capacity: "
        "1}\n"
        "edges:\n  - {from: A, to: B, bandwidth: 100}\n");
    CHECK(e.where().line == 9);
    CHECK(e.where().column == 33);
    CHECK(e.message() ==
          "expected a positive bandwidth for `bandwidth` such as `1.6TB/s`, `900GB/s` or "
          "`32B/cycle`, got '100'");
  }
  SECTION("unknown sharing") {
    InputError e = arch_error(
        "nodes:\n  - {name: A, type: memory, capacity: 1}\n  - {name: B, type: memory, capacity: "
        "1}\n"
        "edges:\n  - {from: A, to: B, bandwidth: 1GB/s, sharing: pooled}\n");
    CHECK(e.message() == "unknown sharing 'pooled'; expected per_instance or shared");
  }
  SECTION("unknown mapping template class") {
    InputError e = arch_error(
        "nodes:\n  - {name: A, type: memory, capacity: 1}\nmapping_templates:\n  conv: x.yaml\n");
    CHECK(e.where().line == 8);
    CHECK(e.where().column == 3);
    CHECK_THAT(e.message(), Catch::StartsWith("unknown key 'conv' in `mapping_templates`"));
  }
}

TEST_CASE("architecture header errors", "[arch][loader]") {
  SECTION("unsupported version") {
    InputError e =
        input_error_of([] { parse_architecture("version: 2\nkind: architecture\n", "v.yaml"); });
    CHECK(e.where().line == 1);
    CHECK(e.where().column == 10);
    CHECK(e.message() == "unsupported version '2'; expected `version: 1`");
  }
  SECTION("missing kind") {
    InputError e = input_error_of([] { parse_architecture("version: 1\nname: x\n", "k.yaml"); });
    CHECK(e.where().line == 1);
    CHECK(e.message() == "missing `kind: architecture`");
  }
  SECTION("missing clock") {
    InputError e = input_error_of(
        [] { parse_architecture("version: 1\nkind: architecture\nnodes: []\n", "c.yaml"); });
    CHECK(e.message() == "missing `clock`, the graph clock; expected e.g. `clock: 1.8GHz`");
  }
  SECTION("empty file") {
    InputError e = input_error_of([] { parse_architecture("", "empty.yaml"); });
    CHECK(e.where().line == 1);
    CHECK(e.message() == "empty file; expected `version: 1` and `kind: architecture`");
  }
  SECTION("missing file") {
    InputError e = input_error_of([] { load_architecture(fixture("arch/no-such-file.yaml")); });
    CHECK(e.where().line == 0);
    CHECK(e.message() == "file not found");
  }
}

TEST_CASE("an edge whose `from:` lost its colon is an unknown key, not a crash", "[arch][loader]") {
  // `{from UB, to: X}` is a map with the key "from UB" and no `from`.
  InputError e = arch_error(
      "nodes:\n  - {name: M, type: memory, capacity: 1}\nedges:\n  - {from M, to: M, bandwidth: "
      "1B/s}\n");
  CHECK(e.where().line == 8);
  CHECK(e.message().find("unknown key 'from M'") != std::string::npos);
}

TEST_CASE("a lookup rate is its own capability beside the elementwise one", "[arch][loader]") {
  const std::string unit =
      "nodes:\n"
      "  - name: SM\n"
      "    type: compute\n"
      "    operations:\n"
      "      - {class: elementwise, dtype: fp16, ops_per_cycle: 256}\n"
      "      - {class: lookup, dtype: fp16, ops_per_cycle: 11.5}\n";
  const ArchitectureGraph g = parse_architecture(head + unit, "t.yaml");
  const ArchNode& sm = g.node(NodeId{0});
  CHECK(sm.capability(OpClass::lookup, DataType::fp16)->ops_per_cycle == 11.5);
  CHECK(sm.capability(OpClass::elementwise, DataType::fp16)->ops_per_cycle == 256);
  // Declared twice: the second is refused at its line.
  const InputError twice =
      arch_error(unit + "      - {class: lookup, dtype: fp16, ops_per_cycle: 32}\n");
  CHECK(twice.where().line == 11);
  CHECK(std::string(twice.what()).find("already has a lookup fp16") != std::string::npos);
  // A class that does not exist lists the four that do.
  const InputError unknown = arch_error(
      "nodes:\n  - name: SM\n    type: compute\n    operations:\n"
      "      - {class: gather, dtype: fp16, ops_per_cycle: 1}\n");
  CHECK(std::string(unknown.what()).find("expected matmul, elementwise, reduction or lookup") !=
        std::string::npos);
}
