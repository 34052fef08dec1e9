// The mapper answers the same question the same way (issues 17, 37): on every bundled graph,
// doubling any one bandwidth, capacity or compute rate never makes an auto-mapped operator
// slower, and the H200 graph (the H100 with more HBM) is never slower than the H100, when the two
// graphs are compared as `compare` compares them: each graph's search also tries the best mapping
// found on the other (mapper/MappingExchange). A search alone is not monotone (its path depends
// on the graph's costs); the exchange makes the comparison so by construction, since the analysis
// of one mapping is monotone in every figure (checked here too).
// Whole suites through the default-budget search on many graphs: the sweep over every bundled
// suite takes some 7 minutes on two cores, so CI runs it on ViT-B/16's operators and the full
// sweep is a hidden test run by name:
//   build/tests/tilescope_tests "[monotonicity-full]"
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "mapper/MappingExchange.hpp"
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

// The default-budget search (deterministic: fixed seed, any thread count) per operator, with
// the mapping it chose; an operator the graph cannot run (no unit for its class or type, tensors
// beyond its memory) is absent.
std::map<const Operator*, OperatorOnGraph> auto_map(const ArchitectureGraph& g,
                                                    const Suites& suites) {
  std::map<const Operator*, OperatorOnGraph> out;
  for (const Operator* op : suites.ops) {
    try {
      MappingProgram program;
      const Prediction p = predict_operator(*op, g, OperatorPredictionOptions{}, &program);
      out[op] = OperatorOnGraph{true, p, mapping_yaml(program, op->name, "")};
    } catch (const InputError&) {
    }
  }
  return out;
}

double seconds_of(const OperatorOnGraph& o) { return o.prediction.device_us * 1e-6; }

// Two graphs compared as `compare` does: each operator's search on each also tries the other's.
// Returns how many predictions the exchange improved.
size_t exchange(const ArchitectureGraph& a, std::map<const Operator*, OperatorOnGraph>& on_a,
                const ArchitectureGraph& b, std::map<const Operator*, OperatorOnGraph>& on_b) {
  size_t improved = 0;
  for (auto& [op, here] : on_a)
    if (auto there = on_b.find(op); there != on_b.end())
      improved += exchange_best_mappings(*op, {&a, &b}, {&here, &there->second});
  return improved;
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

// Every figure of every bundled graph doubled, each operator of `suites` mapped again, the two
// graphs compared.
void check_doubling(const Suites& suites) {
  const auto began = std::chrono::steady_clock::now();
  std::map<std::string, std::pair<ArchitectureGraph, std::map<const Operator*, OperatorOnGraph>>>
      base_by_graph;
  size_t compared = 0, slower_alone = 0, improved = 0;
  double worst_alone = 1;
  for (const std::string& path : bundled_graphs()) {
    const ArchitectureGraph g = load_architecture(path);
    const auto base = auto_map(g, suites);
    base_by_graph.emplace(g.name, std::pair{g, base});
    for (const std::string& figure : doubled_figures(g)) {
      const ParameterPath p = parse_parameter_path(figure, g, "test");
      const ArchitectureGraph doubled = with_parameter_value(g, p, 2 * parameter_value(g, p));
      auto faster = auto_map(doubled, suites);
      for (const auto& [op, before] : base) {
        const auto after = faster.find(op);
        if (after == faster.end()) continue;
        // The searches alone, for the record: how often the faster graph's search ends worse.
        if (seconds_of(after->second) > seconds_of(before) * (1 + 1e-9)) {
          ++slower_alone;
          worst_alone = std::max(worst_alone, seconds_of(after->second) / seconds_of(before));
        }
      }
      auto slower = base;
      improved += exchange(g, slower, doubled, faster);
      for (const auto& [op, before] : slower) {
        INFO(g.name << " with " << figure << " doubled: " << op->name << " (" << op->shape_text()
                    << ")");
        const auto after = faster.find(op);
        REQUIRE(after != faster.end());  // what ran before still runs
        // The analysis itself is monotone: the same mapping is not slower on the faster graph.
        CHECK(fixed_time(*op, doubled, before.mapping_yaml) <= seconds_of(before) * (1 + 1e-12));
        CHECK(seconds_of(after->second) <= seconds_of(before) * (1 + 1e-12));
        ++compared;
      }
    }
  }
  auto& [h100_graph, h100] = base_by_graph.at("nvidia-h100");
  auto& [h200_graph, h200] = base_by_graph.at("nvidia-h200");
  improved += exchange(h100_graph, h100, h200_graph, h200);
  for (const auto& [op, on_h100] : h100) {
    INFO(op->name << " (" << op->shape_text() << ")");
    REQUIRE(h200.count(op));
    CHECK(seconds_of(h200.at(op)) <= seconds_of(on_h100) * (1 + 1e-12));
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  WARN("monotonicity: " << compared << " operator mappings compared in " << seconds
                        << " s; searched alone, " << slower_alone
                        << " were slower on the faster graph (worst x" << worst_alone
                        << "); the exchange improved " << improved << " predictions");
}

}  // namespace

TEST_CASE("doubling a figure of a bundled graph never slows an auto-mapped ViT-B/16 operator",
          "[mapper][monotonicity][slow]") {
  check_doubling(bundled_suites("vit-b16"));
}

TEST_CASE("doubling a figure of a bundled graph never slows an auto-mapped operator of any suite",
          "[.][monotonicity-full]") {
  check_doubling(bundled_suites(""));
}
