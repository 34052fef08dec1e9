// `calibrate host` on the machine running the tests: one short calibration (1 run, tiny timed
// slices) shared by the checks, which hold on any x86 host whatever its caches. Nothing here
// assumes an L3: CI machines may have none.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "TempDir.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "host/CalibrationOutput.hpp"
#include "host/HostCalibration.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using ts::test::TempDir;

using namespace ts;
namespace fs = std::filesystem;

namespace {

// One calibration for the whole test process (ctest runs each test case in its own process, so
// the checks are sections of one test case below): it takes a few seconds (the DRAM working set
// must be larger than the last-level cache whatever the timing).
const host::HostCalibration& calibration() {
  static const host::HostCalibration cal = [] {
    host::HostCalibrationOptions options;
    options.runs = 1;
    options.seconds_per_test = 0.002;
    return host::calibrate_host(options, nullptr);
  }();
  return cal;
}

const host::MeasuredFigure& figure(const host::HostCalibration& cal, const std::string& start) {
  for (const auto& f : cal.figures)
    if (f.name.rfind(start, 0) == 0) return f;
  FAIL("no figure starting with '" << start << "'");
  throw std::logic_error("unreachable");
}

const ArchNode& node(const ArchitectureGraph& g, const std::string& name) {
  auto id = g.find_node(name);
  REQUIRE(id);
  return g.node(*id);
}

}  // namespace

static void graph_has_documented_shape() {
  const host::HostCalibration& cal = calibration();
  const ArchitectureGraph& g = cal.graph;
  CHECK_FALSE(cal.when.empty());
  CHECK_FALSE(cal.cpu_name.empty());
  CHECK(g.clock_hz > 0.2e9);
  CHECK(g.clock_hz < 10e9);
  CHECK(g.launch_overhead_s > 0);

  const ArchNode& core = node(g, "Core");
  CHECK(core.kind == NodeKind::compute);
  const ComputeCapability* mm = core.capability(OpClass::matmul, DataType::fp32);
  REQUIRE(mm);
  CHECK(mm->ops_per_cycle > 0);
  CHECK(mm->granule[0] == 1);
  CHECK(mm->granule[1] >= 8);  // fp32 lanes of a 256- or 512-bit vector
  CHECK(mm->granule[2] == 1);
  REQUIRE(core.capability(OpClass::elementwise, DataType::fp32));
  REQUIRE(core.capability(OpClass::reduction, DataType::fp32));
  CHECK(core.capability(OpClass::elementwise, DataType::fp32)->granule[0] == mm->granule[1]);
  // The vector operations price exp, div and sqrt from their own microbenchmarks; the matmul one
  // counts MACs only. The exp polynomial is a dozen vector operations and the divider takes
  // several cycles per vector, so each costs more than one FMA slot.
  CHECK_FALSE(mm->operation_cost);
  for (OpClass cls : {OpClass::elementwise, OpClass::reduction}) {
    const ComputeCapability* vec = core.capability(cls, DataType::fp32);
    REQUIRE(vec->operation_cost);
    CHECK(count_of(*vec->operation_cost, OperationKind::basic) == 1);
    CHECK(count_of(*vec->operation_cost, OperationKind::exp) > 2);
    CHECK(count_of(*vec->operation_cost, OperationKind::div) > 2);
    CHECK(count_of(*vec->operation_cost, OperationKind::sqrt) >= 1);
  }
  CHECK(figure(cal, "exp per element").value > 0);

  // Capacities grow up the hierarchy: RF < L1 < L2 < L3 < DRAM, for the levels there are.
  std::vector<const ArchNode*> chain;
  for (const char* name : {"RF", "L1", "L2", "L3", "DRAM"})
    if (auto id = g.find_node(name)) chain.push_back(&g.node(*id));
  REQUIRE(chain.size() >= 2);
  CHECK(chain.front()->name == "RF");
  CHECK(chain.back()->name == "DRAM");
  for (size_t i = 1; i < chain.size(); ++i) {
    INFO(chain[i - 1]->name << " below " << chain[i]->name);
    CHECK(chain[i - 1]->capacity_bytes < chain[i]->capacity_bytes);
  }
  CHECK(node(g, "RF").instances == core.instances);
  if (g.find_node("L1")) CHECK(node(g, "L1").instances == core.instances);

  // Every level is reachable both ways, every bandwidth positive.
  for (const ArchEdge& e : g.edges) CHECK(e.bandwidth_bytes_per_s > 0);
  CHECK(g.has_path(*g.find_node("DRAM"), *g.find_node("Core")));
  CHECK(g.has_path(*g.find_node("Core"), *g.find_node("DRAM")));
  CHECK(node(g, "DRAM").port_bytes_per_s > 0);

  // Starting a register tile costs cycles (a call, bookkeeping): measured, on the edge into RF
  // only, and within reason (more than a cycle, less than a microsecond).
  const NodeId rf = *g.find_node("RF");
  int with_latency = 0;
  for (const ArchEdge& e : g.edges) {
    if (e.latency_cycles == 0) continue;
    ++with_latency;
    CHECK(e.to == rf);
    CHECK(e.latency_cycles > 1);
    CHECK(e.latency_cycles / g.clock_hz < 1e-6);
  }
  CHECK(with_latency == 1);
}

static void figures_have_runs_median_spread() {
  const host::HostCalibration& cal = calibration();
  REQUIRE(cal.figures.size() >= 7);
  for (const auto& f : cal.figures) {
    INFO(f.name);
    CHECK(f.runs.size() == 1);
    CHECK(f.value > 0);
    CHECK(f.spread >= 0);
    CHECK(cal.max_spread >= f.spread);
    CHECK_FALSE(f.unit.empty());
  }
  // A core reads its L1 faster than DRAM (a generous check: one tiny run on a busy machine).
  CHECK(figure(cal, "L1 read per core").value >= figure(cal, "DRAM read per core").value);
  CHECK(figure(cal, "clock").unit == "GHz");
}

static void written_read_back_and_mapped() {
  host::HostCalibration cal = calibration();
  TempDir dir;
  const std::string out = (dir.path() / "sub" / "box.yaml").string();
  const host::CalibrationFiles files = host::write_host_calibration(cal, out, "test");
  CHECK(fs::exists(files.gemm_template));
  CHECK(fs::exists(files.vector_template));
  CHECK(fs::path(files.gemm_template).filename() == "box-gemm-template.yaml");

  const ArchitectureGraph g = load_architecture(out);
  CHECK(g.content_hash() == cal.graph.content_hash());
  CHECK(g.name == "box");
  REQUIRE(g.mapping_templates.count(OpClass::matmul));
  CHECK(fs::equivalent(g.mapping_templates.at(OpClass::matmul).front(), files.gemm_template));
  CHECK(fs::equivalent(g.mapping_templates.at(OpClass::reduction).front(), files.vector_template));

  // The mapper fills the templates for real operators (the graph's default templates).
  OperatorPredictionOptions options;
  options.mapper.budget = 3000;
  const Prediction gemm =
      predict_operator(make_gemm("gemm", 512, 768, 768, DataType::fp32), g, options);
  CHECK(gemm.device_us > 0);
  CHECK(gemm.mapping_origin == "mapper");
  const Prediction softmax =
      predict_operator(make_vector_op("softmax", "softmax", 256, 197, DataType::fp32), g, options);
  CHECK(softmax.device_us > 0);
}

// The calibrated graph without its L3 (and DRAM wired to L2), as a host without one reports.
static ArchitectureGraph without_l3(const ArchitectureGraph& g) {
  ArchitectureGraph out = g;
  out.nodes.clear();
  out.edges.clear();
  out.mapping_templates.clear();
  std::map<std::string, NodeId> id;
  for (const ArchNode& n : g.nodes)
    if (n.name != "L3") {
      id[n.name] = NodeId{static_cast<int32_t>(out.nodes.size())};
      out.nodes.push_back(n);
    }
  for (ArchEdge e : g.edges) {
    const std::string from = g.node(e.from).name, to = g.node(e.to).name;
    if (from == "L3" || to == "L3") continue;
    e.from = id.at(from);
    e.to = id.at(to);
    out.edges.push_back(e);
  }
  if (g.find_node("L3")) {
    ArchEdge e;
    e.sharing = EdgeSharing::shared;
    e.bandwidth_bytes_per_s = 10e9;
    e.from = id.at("DRAM");
    e.to = id.at("L2");
    out.edges.push_back(e);
    std::swap(e.from, e.to);
    out.edges.push_back(e);
  }
  out.finalize();
  return out;
}

static void templates_follow_levels() {
  if (!calibration().graph.find_node("L2")) {
    WARN("hwloc reports no L2 here; the no-L3 variant is not built");
    return;
  }
  const ArchitectureGraph g = without_l3(calibration().graph);
  const std::string gemm_text = host::host_gemm_template_yaml(g);
  CHECK(gemm_text.find("tile: L3") == std::string::npos);
  const Mapping gemm = parse_mapping(gemm_text, "gemm-template.yaml");
  // Without an L3 the spatial loop over the cores sits at the DRAM tile, above L2.
  CHECK(gemm.root.memory == "DRAM");
  CHECK(gemm.root.spatial.size() == 2);
  REQUIRE(gemm.root.children.size() == 1);
  CHECK(gemm.root.children[0].memory == "L2");
  const Mapping vec = parse_mapping(host::host_vector_template_yaml(g), "vector-template.yaml");
  CHECK(vec.root.spatial.size() == 1);

  OperatorPredictionOptions options;
  options.mapper.budget = 2000;
  options.mapping = &gemm;
  CHECK(predict_operator(make_gemm("gemm", 256, 128, 192, DataType::fp32), g, options).device_us >
        0);
  options.mapping = &vec;
  CHECK(predict_operator(make_vector_op("add", "add", 64, 300, DataType::fp32), g, options)
            .device_us > 0);
}

// ctest runs each test case in a process of its own: the four checks are sections of one test
// case so that the calibration above runs once, not four times.
TEST_CASE("one short host calibration", "[host][calibrate][slow]") {
  SECTION("the calibrated host graph has the documented shape") { graph_has_documented_shape(); }
  SECTION("every figure has its runs, median and spread") { figures_have_runs_median_spread(); }
  SECTION("a calibration is written, read back and mapped") { written_read_back_and_mapped(); }
  SECTION("templates follow the levels a graph has") { templates_follow_levels(); }
}
