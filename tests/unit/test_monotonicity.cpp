// The mapper answers the same question the same way (issue 17): on every bundled graph, doubling
// any one bandwidth, capacity or compute rate never makes an auto-mapped operator slower by
// more than 0.1 %, and the H200 graph (the H100 with more HBM) is never slower than the H100.
// Whole suites through the default-budget search on many graphs: the sweep over every bundled
// suite takes some 25 minutes on two cores, more than CI can give a test that is still
// [!mayfail] (issue 37), so CI runs it on ViT-B/16's operators (the suite of the H200/H100
// pair that failed) and the full sweep is a hidden test run by name:
//   build/tests/tilescope_tests "[monotonicity-full]"
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

const std::string kSamples = TILESCOPE_SAMPLES;

// Every distinct operator of the bundled suites (the same shape in two suites is mapped once).
// host-suite.yaml is the host's own kernels, not an accelerator workload.
struct Suites {
  std::vector<Workload> workloads;
  std::vector<const Operator*> ops;
};

// `only`: one suite's file stem, or empty for all. Kept for the whole run: the operators are
// keys of the results.
const Suites& bundled_suites(const std::string& only) {
  static std::map<std::string, Suites> loaded;
  if (const auto it = loaded.find(only); it != loaded.end()) return it->second;
  Suites& s = loaded[only];
  std::vector<std::string> paths;
  for (const auto& f : std::filesystem::directory_iterator(kSamples + "/workloads"))
    if (f.path().extension() == ".yaml" && f.path().stem() != "host-suite" &&
        (only.empty() || f.path().stem() == only))
      paths.push_back(f.path().string());
  REQUIRE_FALSE(paths.empty());
  std::sort(paths.begin(), paths.end());
  s.workloads.reserve(paths.size());  // the operators' addresses stay put
  for (const auto& p : paths) s.workloads.push_back(load_workload(p));
  std::set<std::string> seen;
  for (const Workload& w : s.workloads)
    for (const Operator& op : w.operators)
      if (seen.insert(std::string(to_string(op.type)) + " " + op.shape_text()).second)
        s.ops.push_back(&op);
  return s;
}

std::vector<std::string> bundled_graphs() {
  std::vector<std::string> paths;
  for (const auto& f : std::filesystem::directory_iterator(kSamples + "/arch"))
    if (f.path().extension() == ".yaml" &&
        f.path().stem().string().find("-fitted") == std::string::npos)
      paths.push_back(f.path().string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Every bandwidth, capacity and compute rate of a graph, as parameter paths: each edge's
// bandwidth, each memory's capacity and ports that it has, each compute node's rate (its
// efficiency scales the ops_per_cycle of every capability).
std::vector<std::string> doubled_figures(const ArchitectureGraph& g) {
  std::vector<std::string> paths;
  for (EdgeId e : g.edge_ids()) paths.push_back(edge_parameter_path(g, e, "bandwidth"));
  for (NodeId n : g.node_ids()) {
    const ArchNode& node = g.node(n);
    if (node.kind == NodeKind::compute) {
      paths.push_back(node_parameter_path(g, n, "efficiency"));
      continue;
    }
    paths.push_back(node_parameter_path(g, n, "capacity"));
    if (node.port_bytes_per_s > 0) paths.push_back(node_parameter_path(g, n, "bandwidth"));
    if (node.read_port_bytes_per_s > 0)
      paths.push_back(node_parameter_path(g, n, "read_bandwidth"));
    if (node.write_port_bytes_per_s > 0)
      paths.push_back(node_parameter_path(g, n, "write_bandwidth"));
  }
  return paths;
}

struct Mapped {
  double device_s = 0;
  std::string mapping;  // the chosen mapping, to replay on another graph
};

// The default-budget search (deterministic: fixed seed, any thread count) per operator; an
// operator the graph cannot run (no unit for its class, tensors beyond its memory) is absent.
std::map<const Operator*, Mapped> auto_map(const ArchitectureGraph& g, const Suites& suites) {
  std::map<const Operator*, Mapped> out;
  for (const Operator* op : suites.ops) {
    try {
      MappingProgram program;
      const Prediction p = predict_operator(*op, g, OperatorPredictionOptions{}, &program);
      out[op] = Mapped{p.device_us * 1e-6, mapping_yaml(program, op->name, "")};
    } catch (const InputError&) {
    }
  }
  return out;
}

double fixed_time(const Operator& op, const ArchitectureGraph& g, const std::string& mapping) {
  const MappingProgram p = compile_mapping(parse_mapping(mapping, "replayed.yaml"), op, g, false);
  AnalysisScratch e;
  return evaluate(p, e);
}

}  // namespace

TEST_CASE("the bundled H200 graph is the H100 graph with more HBM", "[mapper][monotonicity]") {
  const ArchitectureGraph h100 = load_architecture(kSamples + "/arch/nvidia-h100.yaml");
  const ArchitectureGraph h200 = load_architecture(kSamples + "/arch/nvidia-h200.yaml");
  const NodeId hbm = h100.find_node("HBM").value();
  // Every figure of HBM and of the edges into and out of it: H200's is at least H100's, and
  // some are larger.
  std::vector<std::string> figures;
  for (const char* f : {"capacity", "bandwidth", "read_bandwidth", "write_bandwidth"})
    figures.push_back(node_parameter_path(h100, hbm, f));
  for (EdgeId e : h100.edge_ids())
    if (h100.edge(e).from == hbm || h100.edge(e).to == hbm)
      for (const char* f : {"bandwidth", "latency"})
        figures.push_back(edge_parameter_path(h100, e, f));
  ArchitectureGraph h100_with_h200_hbm = h100;
  int larger = 0;
  for (const std::string& path : figures) {
    INFO(path);
    const double before = parameter_value(h100, path), after = parameter_value(h200, path);
    if (path.ends_with(".latency"))
      CHECK(after == before);
    else
      CHECK(after >= before);
    larger += after > before;
    set_parameter_value(h100_with_h200_hbm, path, after);
  }
  CHECK(larger >= 2);  // capacity and bandwidth
  // Everything else that affects a prediction is the same: the content hash leaves names out.
  CHECK(h100_with_h200_hbm.content_hash() == h200.content_hash());
  CHECK(h100.content_hash() != h200.content_hash());
}

namespace {

// Every figure of every bundled graph doubled, each operator of `suites` mapped again.
void check_doubling(const Suites& suites) {
  const auto began = std::chrono::steady_clock::now();
  std::map<std::string, std::map<const Operator*, Mapped>> base_by_graph;
  size_t compared = 0;
  for (const std::string& path : bundled_graphs()) {
    const ArchitectureGraph g = load_architecture(path);
    const auto base = auto_map(g, suites);
    base_by_graph[g.name] = base;
    for (const std::string& figure : doubled_figures(g)) {
      const ParameterPath p = parse_parameter_path(figure, g, "test");
      const ArchitectureGraph doubled = with_parameter_value(g, p, 2 * parameter_value(g, p));
      const auto faster = auto_map(doubled, suites);
      for (const auto& [op, before] : base) {
        INFO(g.name << " with " << figure << " doubled: " << op->name << " (" << op->shape_text()
                    << ")");
        const auto after = faster.find(op);
        REQUIRE(after != faster.end());  // what ran before still runs
        // The analysis itself is monotone: the same mapping is not slower on the faster graph.
        CHECK(fixed_time(*op, doubled, before.mapping) <= before.device_s * (1 + 1e-12));
        CHECK(after->second.device_s <= before.device_s * 1.001);
        ++compared;
      }
    }
  }
  const auto& h100 = base_by_graph.at("nvidia-h100");
  const auto& h200 = base_by_graph.at("nvidia-h200");
  for (const auto& [op, on_h100] : h100) {
    INFO(op->name << " (" << op->shape_text() << ")");
    REQUIRE(h200.count(op));
    CHECK(h200.at(op).device_s <= on_h100.device_s);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  WARN("monotonicity: " << compared << " operator mappings compared in " << seconds << " s");
}

}  // namespace

// [!mayfail]: the search still breaks monotonicity on a few doublings and on one H200/H100 pair
// (docs/mapper.md, "Monotonicity"); the failures are printed on every run, and the tag comes off
// when the search keeps them all.
TEST_CASE("doubling a figure of a bundled graph never slows an auto-mapped ViT-B/16 operator",
          "[mapper][monotonicity][slow][!mayfail]") {
  check_doubling(bundled_suites("vit-b16"));
}

TEST_CASE("doubling a figure of a bundled graph never slows an auto-mapped operator of any suite",
          "[.][monotonicity-full][!mayfail]") {
  check_doubling(bundled_suites(""));
}
