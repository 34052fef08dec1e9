// The run-settings contract: what `measure` and the runner import store in a run's
// settings_json, and what the faces read back from databases old and new.
#include <catch2/catch.hpp>
#include <fstream>

#include "TempDir.hpp"
#include "measure/RunSettings.hpp"

using namespace ts;

TEST_CASE("run settings are stored under the keys the databases already hold", "[measure]") {
  RunSettings s;
  s.command = "tilescope import";
  s.results_file = "r.jsonl";
  s.implementation = "cublas";
  s.timing_scope = TimingScope::host_call;
  s.mapper_budget = 500;
  // Keys sorted as nlohmann writes an object; unset fields write no key at all.
  CHECK(run_settings_json(s) ==
        R"({"command":"tilescope import","implementation":"cublas","mapper_budget":500,)"
        R"("results_file":"r.jsonl","timing_scope":"host_call"})");
  CHECK(run_settings_json(RunSettings{}) == "{}");
}

TEST_CASE("run settings written by measure read back field by field", "[measure]") {
  // As `tilescope measure --collector host` wrote them before the settings had a type.
  const std::string stored =
      R"({"arch_file":"a.yaml","arch_hash":"00000000000000ff","command":"tilescope measure",)"
      R"("flush_caches":false,"group_size":8,"mapper_budget":50000,"mappings":"generated",)"
      R"("mappings_per_gemm":8,"repetitions":7,"seed":20261129,"threads":2,"warmup":1,)"
      R"("workload_file":"w.yaml"})";
  const RunSettings s = read_run_settings(stored);
  CHECK(s.arch_file == "a.yaml");
  CHECK(s.arch_hash == "00000000000000ff");
  CHECK(s.workload_file == "w.yaml");
  CHECK(s.flush_caches == false);
  CHECK(s.group_size == 8);
  CHECK(s.repetitions == 7);
  CHECK(s.threads == 2);
  CHECK(s.warmup == 1);
  CHECK(s.seed == 20261129u);
  CHECK(s.mappings == "generated");
  CHECK(s.mappings_per_gemm == 8u);
  CHECK(s.mapper_budget == 50000u);
  CHECK_FALSE(s.timing_scope);
  CHECK_FALSE(s.results_file);
  // Written back, the same text: the writer and the reader agree on every key.
  CHECK(run_settings_json(s) == stored);
}

TEST_CASE("run settings of an old or foreign writer read as unset, not as an error", "[measure]") {
  CHECK_FALSE(read_run_settings("").arch_file);
  CHECK_FALSE(read_run_settings("[1, 2]").arch_file);
  CHECK_FALSE(read_run_settings(R"({"repetitions": 20})").arch_file);
  CHECK(read_run_settings(R"({"repetitions": 20})").repetitions == 20);
  // Wrong types: a number where a path belongs, a string where a count belongs, an unknown scope.
  const RunSettings s =
      read_run_settings(R"({"arch_file": 3, "repetitions": "7", "timing_scope": "wall"})");
  CHECK_FALSE(s.arch_file);
  CHECK_FALSE(s.repetitions);
  CHECK_FALSE(s.timing_scope);
  CHECK(read_run_settings(R"({"timing_scope": "device"})").timing_scope == TimingScope::device);
}

TEST_CASE("a run's recorded graph file is given only while it exists", "[measure]") {
  test::TempDir dir("run-settings");
  const std::string graph = dir / "graph.yaml";
  std::ofstream(graph) << "kind: architecture\n";
  RunInfo run;
  RunSettings s;
  s.arch_file = graph;
  run.start.settings_json = run_settings_json(s);
  CHECK(recorded_arch_file(run) == graph);
  s.arch_file = dir / "gone.yaml";
  run.start.settings_json = run_settings_json(s);
  CHECK(recorded_arch_file(run).empty());
  run.start.settings_json = R"({"arch_file": 7})";
  CHECK(recorded_arch_file(run).empty());
}
