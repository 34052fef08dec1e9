// Every command that runs the mapper says which operators' searches ran out of budget (one
// stderr warning line naming them and suggesting a larger budget; a JSON field where the command
// writes JSON), as predict does: correlate, measure --plan and simulate here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

// The lines of `text` that say `what`.
size_t lines_saying(const std::string& text, const std::string& what) {
  const std::vector<std::string> lines = split_lines(text);
  return static_cast<size_t>(std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
    return l.find(what) != std::string::npos;
  }));
}

}  // namespace

TEST_CASE("correlate names the operators whose search ran out of budget",
          "[cli][correlate][mapper]") {
  // Twenty evaluations per operator: no GEMM of the table (spaces of millions of points) has
  // finished its first descent by then.
  const RunResult r = run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv",
                                     "--arch", "samples/arch/ascend910b3.yaml", "--op", "gemm",
                                     "--budget", "20", "--format", "json"});
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const json doc = json::parse(r.out);
  const auto unconverged = doc.at("mapper_unconverged").get<std::vector<std::string>>();
  REQUIRE(!unconverged.empty());
  // One line for all of them, naming each, with the budget to try.
  CHECK(lines_saying(r.err, "warning:") == 1);
  CHECK(split_lines(r.err).size() == 1);
  CHECK(r.err.find("did not converge") != std::string::npos);
  CHECK(r.err.find("--budget 80") != std::string::npos);
  for (const std::string& op : unconverged) CHECK(r.err.find("'" + op + "'") != std::string::npos);
  if (unconverged.size() > 1)
    CHECK(r.err.find(std::to_string(unconverged.size()) + " operators") != std::string::npos);

  // Stored predictions: the mapper did not run, so there is nothing to say and no field.
  const RunResult stored = run_tilescope(
      {"correlate", "--db", "tests/fixtures/db/results-v1.sqlite", "--format", "json"});
  INFO(stored.err);
  REQUIRE(stored.status == 0);
  CHECK(stored.err.find("did not converge") == std::string::npos);
  CHECK_FALSE(json::parse(stored.out).contains("mapper_unconverged"));
}

TEST_CASE("measure --plan says which searches ran out of budget, on stderr and in the plan",
          "[cli][cupti][mapper]") {
  ts::test::TempDir dir("cupti-plan-budget");
  const std::string plan = dir / "suite.plan";
  const RunResult r = run_tilescope({"measure", "--collector", "cupti", "--workload",
                                     "tests/fixtures/cupti/small-gpu-suite.yaml", "--arch",
                                     "samples/arch/nvidia-h200.yaml", "--mappings-per-gemm", "2",
                                     "--repetitions", "10", "--budget", "20", "--plan", plan});
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK(lines_saying(r.err, "did not converge") == 1);
  // proj and ffn (2048 x 1024 and 4096 x 1024 GEMMs) cannot converge in twenty evaluations.
  CHECK(r.err.find("'proj'") != std::string::npos);
  CHECK(r.err.find("'ffn'") != std::string::npos);
  CHECK(r.err.find("--budget 80") != std::string::npos);
  std::string comment;
  for (const std::string& line : split_lines(read_text(plan)))
    if (line.find("did not converge") != std::string::npos) comment = line;
  CHECK(comment.rfind("# the mapper's search for ", 0) == 0);
  CHECK(comment.find("'proj'") != std::string::npos);
}

TEST_CASE("simulate's JSON lists the operators whose search ran out of budget", "[cli][mapper]") {
  const RunResult r =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     "samples/dist/strategies/gpt3-175b-seq-sel.yaml", "--cluster",
                     "samples/dist/clusters/selene.yaml", "--format", "json"});
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const json doc = json::parse(r.out);
  REQUIRE(doc.contains("mapper_unconverged"));
  // At the default budget: as many names in the field as the warning (if any) names.
  const auto unconverged = doc.at("mapper_unconverged").get<std::vector<std::string>>();
  CHECK(lines_saying(r.err, "did not converge") == (unconverged.empty() ? 0u : 1u));
  for (const std::string& op : unconverged) CHECK(r.err.find("'" + op + "'") != std::string::npos);
}
