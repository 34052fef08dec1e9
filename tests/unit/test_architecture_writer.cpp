// The architecture writer: what it writes reads back to the same graph (content_hash), with
// template paths that still find their files, in units a person can read where they are exact.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"

using ts::test::TempDir;

using namespace ts;
using ts::test::input_error_of;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> sample_graphs() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(std::string(TILESCOPE_SAMPLES) + "/arch"))
    if (e.path().extension() == ".yaml") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// Same nodes, edges, values and templates (by the file they resolve to).
void check_same_graph(const ArchitectureGraph& a, const ArchitectureGraph& b) {
  CHECK(a.content_hash() == b.content_hash());
  CHECK(a.name == b.name);
  CHECK(a.description == b.description);
  CHECK(a.clock_hz == b.clock_hz);
  CHECK(a.launch_overhead_s == b.launch_overhead_s);
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    CHECK(a.nodes[i].name == b.nodes[i].name);
    CHECK(a.nodes[i].capacity_bytes == b.nodes[i].capacity_bytes);
    CHECK(a.nodes[i].port_bytes_per_s == b.nodes[i].port_bytes_per_s);
    CHECK(a.nodes[i].dynamic_dispatch == b.nodes[i].dynamic_dispatch);
    CHECK(a.nodes[i].padded_tails == b.nodes[i].padded_tails);
  }
  REQUIRE(a.edges.size() == b.edges.size());
  for (size_t i = 0; i < a.edges.size(); ++i)
    CHECK(a.edges[i].bandwidth_bytes_per_s == b.edges[i].bandwidth_bytes_per_s);
  REQUIRE(a.mapping_templates.size() == b.mapping_templates.size());
  for (const auto& [cls, paths] : a.mapping_templates) {
    REQUIRE(b.mapping_templates.count(cls));
    REQUIRE(paths.size() == b.mapping_templates.at(cls).size());
    for (size_t i = 0; i < paths.size(); ++i)
      CHECK(fs::equivalent(paths[i], b.mapping_templates.at(cls)[i]));
  }
  REQUIRE(a.operator_templates.size() == b.operator_templates.size());
  for (const auto& [type, paths] : a.operator_templates) {
    REQUIRE(b.operator_templates.count(type));
    REQUIRE(paths.size() == b.operator_templates.at(type).size());
    for (size_t i = 0; i < paths.size(); ++i)
      CHECK(fs::equivalent(paths[i], b.operator_templates.at(type)[i]));
  }
}

}  // namespace

TEST_CASE("every sample graph round-trips through the writer", "[arch][writer]") {
  const auto files = sample_graphs();
  REQUIRE(files.size() >= 5);
  TempDir dir;
  for (const std::string& file : files) {
    INFO(file);
    const ArchitectureGraph original = load_architecture(file);
    // A folder elsewhere: template paths must be rewritten relative to it.
    const fs::path out = dir.path() / "nested" / fs::path(file).filename();
    fs::create_directories(out.parent_path());
    write_architecture(original, "round trip of " + file, out.string());
    const ArchitectureGraph back = load_architecture(out.string());
    check_same_graph(original, back);
    // And a second round is the same text: the writer is a fixed point.
    CHECK(architecture_yaml(back, "x", out.string()) ==
          architecture_yaml(original, "x", out.string()));
  }
}

TEST_CASE("the writer uses readable units where they are exact", "[arch][writer]") {
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-h100.yaml");
  const std::string text = architecture_yaml(g, "", "/tmp/x.yaml");
  CHECK(text.find("clock: 1.83GHz") != std::string::npos);
  CHECK(text.find("capacity: 80GB") != std::string::npos);
  CHECK(text.find("capacity: 228KiB") != std::string::npos);
  CHECK(text.find("launch_overhead: 4us") != std::string::npos);
  CHECK(text.find("bandwidth: 3.35TB/s") != std::string::npos);
  CHECK(text.find("bandwidth: 128B/cycle") != std::string::npos);
  CHECK(text.find("kind: architecture") != std::string::npos);
}

TEST_CASE("awkward values survive the round trip exactly", "[arch][writer]") {
  ArchitectureGraph g;
  g.name = "odd: name";  // needs quoting
  g.description = "line one\nline two";
  g.clock_hz = 1e9 / 3;
  g.launch_overhead_s = 1.0 / 7 * 1e-6;
  ArchNode m;
  m.name = "M";
  m.capacity_bytes = 12345.678;
  m.instances = 3;
  m.word_bytes = 4;
  m.clock_hz = 2.5e9 / 7;  // a node clock of its own
  m.read_port_bytes_per_s = 1e11 / 3;
  m.write_port_bytes_per_s = 64 * m.clock_hz;
  m.port_bytes_per_s = 7.123456789012345e10;
  g.nodes.push_back(m);
  ArchNode c;
  c.name = "PE";
  c.kind = NodeKind::compute;
  c.instances = 3;
  c.clock_hz = g.clock_hz;
  c.capabilities.push_back(
      {OpClass::matmul, DataType::bf16, 1.0 / 3, {4, 8, 2}, DataType::fp32, {}, {}});
  // An exp at 4/3 basic operations: a cost that needs all its digits.
  c.capabilities.push_back({OpClass::reduction,
                            DataType::fp32,
                            12.5,
                            {16, 1, 1},
                            {},
                            {},
                            OperationCounts{1, 4.0 / 3, 7.5, 1},
                            {}});
  g.nodes.push_back(c);
  ArchEdge e;
  e.from = NodeId{0};
  e.to = NodeId{1};
  e.bandwidth_bytes_per_s = 32 * m.clock_hz;  // B/cycle of the source node's clock
  e.latency_cycles = 12.25;
  e.multicast = true;
  g.edges.push_back(e);
  e.from = NodeId{1};
  e.to = NodeId{0};
  e.bandwidth_bytes_per_s = 1.0 / 9 * 1e12;
  e.latency_cycles = 0;
  e.multicast = false;
  e.sharing = EdgeSharing::shared;
  g.edges.push_back(e);
  e.from = NodeId{0};
  e.to = NodeId{0};  // a self-edge
  g.edges.push_back(e);
  g.finalize();

  TempDir dir;
  const fs::path out = dir.path() / "odd.yaml";
  write_architecture(g, "first line\n\nthird line", out.string());
  const std::string text = read_file(out);
  CHECK(text.rfind("# first line\n#\n# third line\n", 0) == 0);
  const ArchitectureGraph back = load_architecture(out.string());
  CHECK(back.content_hash() == g.content_hash());
  CHECK(back.name == g.name);
  CHECK(back.description == g.description);
  CHECK(back.nodes[0].clock_hz == m.clock_hz);
  CHECK(back.edges[0].latency_cycles == 12.25);
  CHECK(back.edges[0].multicast);
  CHECK(back.edges[1].sharing == EdgeSharing::shared);
  CHECK(back.nodes[1].capabilities[1].granule[0] == 16);
  CHECK(back.nodes[1].capabilities[0].accumulator == DataType::fp32);
  CHECK_FALSE(back.nodes[1].capabilities[1].accumulator.has_value());
  CHECK(back.nodes[1].capabilities[1].operation_cost == OperationCounts{1, 4.0 / 3, 7.5, 1});
  CHECK_FALSE(back.nodes[1].capabilities[0].operation_cost.has_value());
}

TEST_CASE("a failed write names the path and leaves nothing behind", "[arch][writer]") {
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/mesh-4x4.yaml");
  TempDir dir;
  const fs::path out = dir.path() / "missing-folder" / "g.yaml";
  const InputError e = input_error_of([&] { write_architecture(g, "", out.string()); });
  CHECK(std::string(e.what()).find(out.string()) != std::string::npos);
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(out.string() + ".tmp"));

  // Over an existing file: replaced whole, no temporary left.
  const fs::path good = dir.path() / "g.yaml";
  { std::ofstream(good) << "old"; }
  write_architecture(g, "", good.string());
  CHECK(load_architecture(good.string()).content_hash() == g.content_hash());
  CHECK_FALSE(fs::exists(good.string() + ".tmp"));
}
