// `tilescope simulate`: a summary in JSON or a table, and exit status 2 with the field named for
// a strategy that does not fit.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

TEST_CASE("simulate prints the iteration of a Table 5 configuration", "[cli][simulate]") {
  const RunResult r =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     "samples/dist/strategies/gpt3-175b-seq-sel.yaml", "--cluster",
                     "samples/dist/clusters/selene.yaml", "--format", "json"});
  INFO(r.command << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  CHECK(j["gpus"] == 64);
  const auto& summary = j["summary"];
  CHECK(summary["iteration_s"].get<double>() > 0);
  CHECK(summary["mfu"].get<double>() > 0);
  CHECK(summary["mfu"].get<double>() < 1);
  // 64 sequences of 2048 tokens per iteration.
  CHECK(summary["tokens_per_s"].get<double>() * summary["iteration_s"].get<double>() ==
        Approx(64.0 * 2048));
  CHECK(summary["breakdown"].size() == 5);

  const RunResult table =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     "samples/dist/strategies/gpt3-175b-seq-sel.yaml", "--cluster",
                     "samples/dist/clusters/selene.yaml"});
  REQUIRE(table.status == 0);
  CHECK_THAT(table.out, Catch::Contains("iteration") && Catch::Contains("pipeline bubble"));
}

TEST_CASE("simulate refuses a strategy that does not fit, naming the field", "[cli][simulate]") {
  TempDir dir;
  const std::string path = dir.file("bad.yaml");
  std::ofstream(path) << "version: 1\nkind: strategy\n"
                         "tensor_parallel: {degree: 5}\n"
                         "pipeline_parallel: {degree: 8}\n"
                         "data_parallel: {degree: 1}\n"
                         "batch: {global: 64, micro: 1}\n";
  const RunResult r =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     path, "--cluster", "samples/dist/clusters/selene.yaml"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(path + ":3:") &&
                        Catch::Contains("tensor_parallel.degree 5 does not divide the 96 heads"));
}
