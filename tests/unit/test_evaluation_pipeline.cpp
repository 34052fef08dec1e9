// One evaluation pipeline (core/analysis/TileAnalysis): `evaluate` and the mapper's
// traffic_floor + evaluate_after_floor give the same time, bound, failure, per-edge bytes and
// buffer bytes on sampled mappings of every bundled graph, valid ones and the same ones on a copy
// of the graph whose memories are too small for them; and the bytes --explain and the GUI show
// per buffer are the ones the capacity check counts.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/ByteFormat.hpp"
#include "common/InputError.hpp"
#include "mapper/Mapper.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
namespace fs = std::filesystem;

namespace {

// samples/arch and the generated graphs of the GPU profiles (not their spec files).
std::vector<std::string> bundled_graphs() {
  std::vector<std::string> files;
  const fs::path root(TILESCOPE_SOURCE_DIR);
  for (const fs::path& folder :
       {root / "samples/arch", root / "plugins/nvidia/gpus", root / "plugins/amd/gpus"})
    for (const auto& entry : fs::directory_iterator(folder)) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".yaml" && name.find(".spec.") == std::string::npos)
        files.push_back(entry.path().string());
    }
  std::sort(files.begin(), files.end());
  return files;
}

// Everything the pipeline promises to agree on.
void check_same(const AnalysisScratch& a, double ta, const AnalysisScratch& b, double tb) {
  CHECK(ta == tb);
  CHECK(a.failure.kind == b.failure.kind);
  CHECK(a.bound == b.bound);
  if (!a.valid()) {
    CHECK(a.failure.node == b.failure.node);
    CHECK(a.failure.dim == b.failure.dim);
    CHECK(a.failure.memory == b.failure.memory);
    CHECK(a.failure.bytes == b.failure.bytes);
    CHECK(a.failure.extent == b.failure.extent);
    CHECK(a.bound.is_none());
    return;
  }
  CHECK(a.edge_bytes == b.edge_bytes);
  CHECK(a.read_back_bytes == b.read_back_bytes);
  CHECK(a.memory_usage == b.memory_usage);
  CHECK(a.buffer_bytes == b.buffer_bytes);
}

}  // namespace

TEST_CASE("evaluate and the floor-then-rest path agree on sampled mappings of every graph",
          "[analysis][mapper]") {
  Workload bert =
      load_workload(std::string(TILESCOPE_SOURCE_DIR) + "/samples/workloads/bert-base.yaml");
  std::vector<Operator> ops{make_gemm("g", 512, 768, 256), make_gemm("skinny", 16, 1024, 4096)};
  for (size_t k = 0; k < 3 && k < bert.operators.size(); ++k) ops.push_back(bert.operators[k]);
  int valid = 0, overflowing = 0, graphs = 0;
  for (const std::string& file : bundled_graphs()) {
    const ArchitectureGraph g = load_architecture(file);
    // The same graph with every memory at a tenth of its capacity: most sampled points overflow.
    ArchitectureGraph small = g;
    for (ArchNode& node : small.nodes)
      if (node.capacity_bytes > 0) node.capacity_bytes /= 10;
    ++graphs;
    for (const Operator& op : ops) {
      INFO(file << " " << op.name);
      MappingProgram tmpl;
      try {
        tmpl = compile_mapping(default_template(op, g), op, g, true);
      } catch (const InputError&) {
        continue;  // no unit of this graph runs the operator's class
      }
      AnalysisScratch scratch;  // reused across points, as a mapper worker's is
      for (MappingProgram p : sample_valid_mappings(tmpl, 45, 7, 0, 0, 20000)) {
        for (const ArchitectureGraph* graph : {&g, static_cast<const ArchitectureGraph*>(&small)}) {
          p.graph = graph;
          AnalysisScratch whole;
          const double t = evaluate(p, whole);
          const double floor = traffic_floor(p, scratch);
          const double split = evaluate_after_floor(p, scratch);
          check_same(whole, t, scratch, split);
          CHECK(floor <= t);
          (whole.valid() ? valid : overflowing) += 1;
          if (whole.failure.kind == EvaluationFailure::overflow) CHECK(std::isinf(floor));
        }
      }
    }
  }
  INFO(valid << " valid, " << overflowing << " invalid over " << graphs << " graphs");
  CHECK(graphs >= 20);
  CHECK(valid + overflowing >= 5000);
  CHECK(overflowing >= 500);
}

TEST_CASE("the bytes shown per buffer are those the capacity check counts", "[analysis][mapper]") {
  // Every buffer's bytes are part of what its memory holds (a tile's own buffers are never more
  // than the check's total for the memory), and --explain prints each of them.
  for (const char* name : {"ascend910b3", "nvidia-h100", "systolic-16x16", "eyeriss-12x14"}) {
    const ArchitectureGraph g =
        load_architecture(std::string(TILESCOPE_SOURCE_DIR) + "/samples/arch/" + name + ".yaml");
    const Operator op = make_gemm("g", 200, 72, 40);
    const MappingProgram tmpl = compile_mapping(default_template(op, g), op, g, true);
    for (const MappingProgram& p : sample_valid_mappings(tmpl, 20, 3, 0, 0, 20000)) {
      AnalysisScratch e;
      REQUIRE(std::isfinite(evaluate(p, e)));
      const std::string text = explain_tree(p, analysis_result(p, e));
      INFO(name << "\n" << text);
      for (size_t i = 0; i < p.nodes.size(); ++i) {
        const ProgramNode& n = p.nodes[i];
        if (n.kind != MappingNodeKind::tile) continue;
        for (int k = 0; k < p.ntensors; ++k) {
          if (!n.buffer[k].valid()) continue;
          const double bytes = e.buffer_bytes[i * p.ntensors + k];
          CHECK(bytes > 0);
          size_t m = 0;
          while (p.memories[m] != n.buffer[k]) ++m;
          CHECK(bytes <= e.memory_usage[m] * (1 + 1e-12));
          CHECK_THAT(text, Catch::Contains(p.op->tensors[k].name + "@" + g.node(n.buffer[k]).name +
                                           " " + format_bytes(bytes)));
        }
      }
    }
  }
}

TEST_CASE("a buffer's bytes are padded to the unit's granule and doubled when double buffered",
          "[analysis]") {
  // tests/fixtures/mapping/ascend-l0a-padded.yaml: A is 3 x 64 fp16 in L0A, double buffered;
  // the cube's fractal is 16 x 16 x 16, so L0A holds 16 x 64 x 2 B, twice: 4,096 B (not 768).
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SOURCE_DIR) + "/samples/arch/ascend910b3.yaml");
  const Operator op = make_gemm("g", 3, 16, 64);
  const Mapping mapping =
      load_mapping(std::string(TILESCOPE_FIXTURES) + "/mapping/ascend-l0a-padded.yaml");
  const MappingProgram p = compile_mapping(mapping, op, g);
  AnalysisScratch e;
  REQUIRE(std::isfinite(evaluate(p, e)));
  const NodeId l0a = *g.find_node("L0A");
  bool seen = false;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    if (p.nodes[i].kind != MappingNodeKind::tile || p.nodes[i].buffer[0] != l0a) continue;
    CHECK(e.buffer_bytes[i * p.ntensors + 0] == 4096.0);
    // The result value every face prints carries the same bytes.
    const AnalysisResult r = analysis_result(p, e);
    REQUIRE(!r.nodes[i].buffers.empty());
    CHECK(r.nodes[i].buffers[0].tensor == 0);
    CHECK(r.nodes[i].buffers[0].memory == l0a);
    CHECK(r.nodes[i].buffers[0].bytes == 4096.0);
    seen = true;
  }
  CHECK(seen);
  CHECK_THAT(explain_tree(p, analysis_result(p, e)),
             Catch::Contains("A@L0A " + format_bytes(4096)));
}
