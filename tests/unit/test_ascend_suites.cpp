// Every operator of every bundled model suite maps and predicts on the Ascend 910B3: GEMMs on
// the cube cores, vector operators (and every stage of a fused chain) on the vector cores, and
// none is skipped.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
namespace fs = std::filesystem;

TEST_CASE("Ascend: every suite operator runs on the unit its class belongs to",
          "[ascend][suites][slow]") {
  const ArchitectureGraph graph =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  int suites = 0, operators = 0;
  for (const auto& entry : fs::directory_iterator(std::string(TILESCOPE_SAMPLES) + "/workloads")) {
    // The host suite is fp32 shapes scaled for a 2-core CPU; it is not an Ascend workload. The
    // Timeloop designs' layers are integer workloads for their own graphs.
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() != ".yaml" || stem == "host-suite" ||
        stem.starts_with("timeloop-"))
      continue;
    const Workload suite = load_workload(entry.path().string());
    ++suites;
    for (const Operator& op : suite.operators) {
      INFO(suite.name << " / " << op.name << " " << op.shape_text());
      MappingProgram program;
      const Prediction p = predict_operator(op, graph, OperatorPredictionOptions{}, &program);
      CHECK(p.device_us > 0);
      CHECK(p.op_name == op.name);
      int ops_seen = 0;
      for (const ProgramNode& node : program.nodes) {
        if (node.kind != MappingNodeKind::op) continue;
        ++ops_seen;
        const Stage& stage = op.stages.at(static_cast<size_t>(node.stage < 0 ? 0 : node.stage));
        const std::string unit = graph.node(node.compute).name;
        CHECK(unit == (stage.op_class == OpClass::matmul ? "Cube" : "Vector"));
      }
      // One op per stage: a fused chain runs all of its stages.
      CHECK(ops_seen == static_cast<int>(op.stages.size()));
      ++operators;
    }
  }
  CHECK(suites == 9);
  CHECK(operators >= 9 * 8);
}
