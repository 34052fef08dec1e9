// The grammar of graph parameter paths: what each path names in tiny.yaml (values from the file),
// writes that change that field and no other, and errors that say what was expected.
#include <catch2/catch.hpp>
#include <functional>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "calibrate/GraphParameter.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

ArchitectureGraph tiny() { return load_architecture(fixture("arch/tiny.yaml")); }

struct PathCase {
  std::string path;
  ParameterField field;
  double in_file;  // the value tiny.yaml gives, in SI base units
  double changed;  // a value to write
  std::function<double(const ArchitectureGraph&)> field_of_graph;
};

}  // namespace

TEST_CASE("every kind of path reads its field and writes it into a copy", "[arch][parameter]") {
  const ArchitectureGraph g = tiny();
  const NodeId dram = *g.find_node("DRAM"), sram = *g.find_node("SRAM"), pe = *g.find_node("PE");
  const EdgeId dram_sram = g.edge_between(dram, sram);
  const std::vector<PathCase> cases = {
      {"launch_overhead", ParameterField::launch_overhead, 5e-6, 7e-6,
       [](const ArchitectureGraph& x) { return x.launch_overhead_s; }},
      {"clock", ParameterField::clock, 1e9, 2e9,
       [](const ArchitectureGraph& x) { return x.clock_hz; }},
      {"edge:DRAM->SRAM.bandwidth", ParameterField::edge_bandwidth, 50e9, 35e9,
       [&](const ArchitectureGraph& x) { return x.edge(dram_sram).bandwidth_bytes_per_s; }},
      {"edge:DRAM->SRAM.latency", ParameterField::edge_latency, 100, 250,
       [&](const ArchitectureGraph& x) { return x.edge(dram_sram).latency_cycles; }},
      {"node:SRAM.capacity", ParameterField::node_capacity, 64 * 1024, 256 * 1024,
       [&](const ArchitectureGraph& x) { return x.node(sram).capacity_bytes; }},
      {"node:DRAM.bandwidth", ParameterField::node_bandwidth, 0, 300e9,
       [&](const ArchitectureGraph& x) { return x.node(dram).port_bytes_per_s; }},
      {"node:DRAM.read_bandwidth", ParameterField::node_read_bandwidth, 100e9, 80e9,
       [&](const ArchitectureGraph& x) { return x.node(dram).read_port_bytes_per_s; }},
      {"node:DRAM.write_bandwidth", ParameterField::node_write_bandwidth, 100e9, 60e9,
       [&](const ArchitectureGraph& x) { return x.node(dram).write_port_bytes_per_s; }},
      {"node:SRAM.instances", ParameterField::node_instances, 4, 8,
       [&](const ArchitectureGraph& x) { return static_cast<double>(x.node(sram).instances); }},
      {"node:PE.instances", ParameterField::node_instances, 4, 16,
       [&](const ArchitectureGraph& x) { return static_cast<double>(x.node(pe).instances); }},
      // An efficiency is 1 on the graph it was resolved against; 0.5 halves the 256 MACs/cycle.
      {"node:PE.efficiency", ParameterField::node_efficiency, 1, 0.5,
       [&](const ArchitectureGraph& x) { return x.node(pe).capabilities[0].ops_per_cycle / 256; }},
  };
  for (const PathCase& c : cases) {
    INFO(c.path);
    const ParameterPath path = parse_parameter_path(c.path, g, "test");
    CHECK(path.text == c.path);
    CHECK(path.field == c.field);
    CHECK(parameter_field(c.path) == c.field);
    CHECK(parameter_value(g, path) == Approx(c.in_file));
    CHECK(c.field_of_graph(g) == Approx(c.in_file));

    const ArchitectureGraph changed = with_parameter_value(g, path, c.changed);
    CHECK(c.field_of_graph(changed) == Approx(c.changed));
    CHECK(parameter_value(changed, path) == Approx(c.changed));
    CHECK(changed.content_hash() != g.content_hash());
    CHECK(g.content_hash() == tiny().content_hash());  // the original is a value, untouched
    // Writing the value read back restores the graph exactly: nothing else was touched.
    const double before = parameter_value(g, path);
    CHECK(with_parameter_value(changed, path, before).content_hash() == g.content_hash());
  }
}

TEST_CASE("a count is written as a whole number", "[arch][parameter]") {
  const ArchitectureGraph g = tiny();
  const ParameterPath path = parse_parameter_path("node:SRAM.instances", g, "test");
  CHECK(is_count(path.field));
  CHECK_FALSE(is_count(ParameterField::node_capacity));
  CHECK(with_parameter_value(g, path, 7.6).node(*g.find_node("SRAM")).instances == 8);
}

TEST_CASE("values of a path in its unit", "[arch][parameter]") {
  const ArchitectureGraph g = tiny();
  auto value = [&](const char* path, const char* text) {
    return parse_parameter_value(text, g, parse_parameter_path(path, g, "test"));
  };
  CHECK(value("node:SRAM.capacity", "256KiB") == Approx(256.0 * 1024));
  CHECK(value("node:SRAM.capacity", "1MB") == Approx(1e6));
  CHECK(value("node:SRAM.instances", "16") == Approx(16));
  CHECK_FALSE(value("node:SRAM.instances", "16KiB"));
  CHECK(value("edge:SRAM->PE.bandwidth", "16B/cycle") == Approx(16e9));  // 1 GHz source clock
  CHECK(value("edge:DRAM->SRAM.latency", "10ns") == Approx(10));
  CHECK_FALSE(value("clock", "2us"));
  CHECK(format_parameter(ParameterField::node_capacity, 64 * 1024) == "64 KiB");
  CHECK(format_parameter("node:DRAM.read_bandwidth", 1.6e12) == "1.6 TB/s");
  CHECK(format_parameter("node:SRAM.instances", 4) == "4");
  CHECK(parameter_unit("node:SRAM.capacity") == "B");
  CHECK(parameter_unit("edge:A->B.latency") == "cycles");
}

TEST_CASE("the text of a path reads back as the same path", "[arch][parameter]") {
  const ArchitectureGraph g = tiny();
  const NodeId dram = *g.find_node("DRAM"), sram = *g.find_node("SRAM");
  const std::string edge = edge_parameter_path(g, g.edge_between(dram, sram), "latency");
  CHECK(edge == "edge:DRAM->SRAM.latency");
  CHECK(parse_parameter_path(edge, g, "test").edge == g.edge_between(dram, sram));
  const std::string node = node_parameter_path(g, sram, "capacity");
  CHECK(node == "node:SRAM.capacity");
  CHECK(parse_parameter_path(node, g, "test").node == sram);
}

TEST_CASE("paths that name nothing say what was expected", "[arch][parameter]") {
  const ArchitectureGraph g = tiny();
  auto error_of = [&](const char* path) {
    return input_error_of([&] { parse_parameter_path(path, g, "inspector"); });
  };
  const InputError form = error_of("speed");
  CHECK(form.where().file == "inspector");
  CHECK_THAT(form.message(), Catch::Contains("'speed'") && Catch::Contains("node:NAME.capacity") &&
                                 Catch::Contains("node:NAME.instances") &&
                                 Catch::Contains("edge:FROM->TO.latency"));
  CHECK_THAT(error_of("edge:DRAM-SRAM.bandwidth").message(),
             Catch::Contains("names no graph parameter"));
  CHECK_THAT(error_of("node:PE.capacity").message(),
             Catch::Contains("no memory node 'PE'") && Catch::Contains("DRAM, SRAM"));
  CHECK_THAT(error_of("node:SRAM.efficiency").message(),
             Catch::Contains("no compute node 'SRAM'") && Catch::Contains("PE"));
  CHECK_THAT(error_of("node:L3.instances").message(),
             Catch::Contains("no node 'L3'") && Catch::Contains("DRAM, SRAM, PE"));
  CHECK_THAT(error_of("node:SRAM.speed").message(),
             Catch::Contains("memory node has no parameter 'speed'") &&
                 Catch::Contains("capacity, bandwidth, read_bandwidth, write_bandwidth or "
                                 "instances"));
  CHECK_THAT(error_of("node:PE.speed").message(),
             Catch::Contains(
                 "expected instances, efficiency, min_kernel_time, energy_per_op, issue_latency"));
  CHECK_THAT(error_of("edge:SRAM->DRAM.width").message(),
             Catch::Contains("bandwidth, latency, reduction_latency or reduction_bandwidth"));
  CHECK_THAT(error_of("edge:DRAM->PE.bandwidth").message(),
             Catch::Contains("no edge DRAM->PE") && Catch::Contains("SRAM->PE"));
}

TEST_CASE("a fit takes a capacity and refuses a count", "[fit][parameter]") {
  const ArchitectureGraph g = tiny();
  const GraphParameter capacity = parse_graph_parameter("node:SRAM.capacity=32KiB:1MiB", g);
  CHECK(capacity.initial == Approx(64 * 1024));
  CHECK(capacity.lower == Approx(32 * 1024));
  CHECK(capacity.upper == Approx(1024 * 1024));
  const InputError count =
      input_error_of([&] { parse_graph_parameter("node:PE.instances", g, "--fit"); });
  CHECK(count.where().file == "--fit");
  CHECK_THAT(count.message(), Catch::Contains("'node:PE.instances' is a count"));
}
