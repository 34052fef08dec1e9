// Comparing graphs, each graph's search also tries the best mappings found on the others
// (mapper/MappingExchange): a search whose path ended worse on a faster graph takes the slower
// graph's mapping, which runs on both. Worked by hand on the tiny graph, made compute-bound.
#include <catch2/catch.hpp>
#include <functional>

#include "AnalysisFixtures.hpp"
#include "mapper/MappingExchange.hpp"
#include "mapper/OperatorEvaluation.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// mm64 (64 x 64 x 64 = 262,144 MACs) over the four PEs (spatial M 4): 262,144 / (4 x 256) =
// 256 cycles of compute on the tiny graph. M: 4 x 2 x 8, N: 8 x 8, K: 16 x 4.
const char* kFourPes = R"(version: 1
kind: mapping
name: four-pes
tree:
  tile: DRAM
  spatial: {M: 4}
  children:
    - tile: SRAM
      temporal: {M: 2, N: 8, K: 16}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)";

// The same on one PE: 1,024 cycles of compute. M: 8 x 8.
const char* kOnePe = R"(version: 1
kind: mapping
name: one-pe
tree:
  tile: DRAM
  children:
    - tile: SRAM
      temporal: {M: 8, N: 8, K: 16}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// The mapping evaluated as a search's answer on `g` (searched: the exchange may replace it).
OperatorOnGraph found(const Operator& op, const ArchitectureGraph& g, const std::string& yaml,
                      bool searched = true) {
  const MappingEvaluation e = evaluate_mapping_text(op, g, yaml);
  REQUIRE(e.valid());
  OperatorOnGraph o{true, make_prediction(*e.program, e.result), yaml};
  o.prediction.searched = searched;
  o.prediction.mapping_origin = searched ? "mapper" : "file";
  return o;
}

// The tiny graph with DRAM at 1024 B/cycle, named `name`, its text changed by `edit`: mm64's
// 24 KiB of operands and result take 24 cycles, well under the compute.
ArchitectureGraph compute_bound_tiny(
    const std::string& name,
    const std::function<std::string(std::string)>& edit = [](std::string text) { return text; }) {
  return parse_architecture(
      edit(replace_once(tiny_arch("shared", "1024B/cycle"), "name: tiny", "name: " + name)),
      name + ".yaml");
}

}  // namespace

TEST_CASE("a faster graph whose search ended worse takes the mapping found on the slower one",
          "[mapper][exchange]") {
  // `fast` has PEs of twice the rate: it dominates `slow` in every figure.
  const ArchitectureGraph slow = compute_bound_tiny("slow");
  const ArchitectureGraph fast = compute_bound_tiny("fast", [](std::string text) {
    return replace_once(text, fp16_matmul(256), fp16_matmul(512));
  });
  const Workload w = parse_workload(tiny_workload(), "tiny-suite.yaml");
  const Operator& mm64 = w.operators.front();

  OperatorOnGraph on_slow = found(mm64, slow, kFourPes);           // 256 cycles of compute
  OperatorOnGraph on_fast = found(mm64, fast, kOnePe);             // 512: the search ended worse
  REQUIRE(on_fast.prediction.cycles > on_slow.prediction.cycles);  // not monotone, alone
  const double slow_before = on_slow.prediction.device_us;

  CHECK(exchange_best_mappings(mm64, {&slow, &fast}, {&on_slow, &on_fast}) == 1);
  // slow keeps its own (one PE is slower there too); fast takes four PEs: 262,144 / (4 x 512) =
  // 128 cycles of compute, half of slow's 256, plus the same transfers at the ends.
  CHECK(on_slow.prediction.device_us == slow_before);
  CHECK(on_slow.prediction.mapping_origin == "mapper");
  CHECK(on_fast.mapping_yaml == kFourPes);
  CHECK(on_fast.prediction.mapping_origin == "mapper, as found on 'slow'");
  CHECK(on_fast.prediction.searched);
  CHECK(on_fast.prediction.cycles >= 128);
  CHECK(on_fast.prediction.cycles < on_slow.prediction.cycles);
  CHECK(on_slow.prediction.cycles - on_fast.prediction.cycles == Approx(128).margin(24));
}

TEST_CASE("the exchange keeps file mappings and skips mappings another graph cannot run",
          "[mapper][exchange]") {
  const ArchitectureGraph slow = compute_bound_tiny("slow");
  // The same graph with its buffer named otherwise: slow's mappings name a node it lacks.
  const ArchitectureGraph renamed = compute_bound_tiny(
      "renamed", [](std::string text) { return replace_all(std::move(text), "SRAM", "SMEM"); });
  const Workload w = parse_workload(tiny_workload(), "tiny-suite.yaml");
  const Operator& mm64 = w.operators.front();

  // A mapping the user gave is the question asked: not replaced, though four PEs are faster.
  OperatorOnGraph given = found(mm64, slow, kOnePe, false);
  OperatorOnGraph searched = found(mm64, slow, kFourPes);
  const ArchitectureGraph twin = slow;
  CHECK(exchange_best_mappings(mm64, {&slow, &twin}, {&given, &searched}) == 0);
  CHECK(given.mapping_yaml == kOnePe);
  CHECK(given.prediction.mapping_origin == "file");

  OperatorOnGraph on_renamed =
      found(mm64, renamed, replace_all(kOnePe, "SRAM", "SMEM"));  // slower, yet kept:
  OperatorOnGraph on_slow = found(mm64, slow, kFourPes);          // this one names SRAM
  CHECK(exchange_best_mappings(mm64, {&renamed, &slow}, {&on_renamed, &on_slow}) == 0);
  CHECK(on_renamed.prediction.mapping_origin == "mapper");
}
