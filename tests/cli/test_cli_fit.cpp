// `tilescope fit`: writes a fitted graph that `predict` loads, with a header that records how it
// was made; bad input exits 2 and writes nothing.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;

namespace {

using namespace ts::cli_test;
namespace fs = std::filesystem;

double overall_mape(const std::string& correlate_json) {
  return nlohmann::json::parse(correlate_json).at("overall").at("mape").get<double>();
}

}  // namespace

TEST_CASE("fit writes a graph that predict loads, with its provenance", "[cli][fit][slow]") {
  TempDir dir;
  const std::string out = dir.file("ascend.fitted.yaml");
  const RunResult r =
      run_tilescope({"fit", "--arch", "samples/arch/ascend910b3.yaml", "--measurements",
                     "tests/fixtures/csv/gemm-small.csv", "--op", "gemm", "--param",
                     "node:Cube.efficiency=0.3:1", "--param", "launch_overhead", "--out", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(fs::exists(out));
  CHECK_THAT(r.out,
             Catch::Contains("node:Cube.efficiency") && Catch::Contains("training log-RMSE"));
  const std::string text = read_text(out);
  CHECK_THAT(text,
             Catch::Contains("# command: tilescope fit --arch samples/arch/ascend910b3.yaml"));
  CHECK_THAT(text, Catch::Contains("# measurements: tests/fixtures/csv/gemm-small.csv (") &&
                       Catch::Contains("bytes, FNV-1a "));
  CHECK_THAT(text, Catch::Contains("# Fitted by tilescope") && Catch::Contains("Z\n"));
  // The fitted efficiency moved off its start, inside the bounds given on the command line.
  const std::string tag = "#   node:Cube.efficiency: 1 -> ";
  const size_t at = text.find(tag);
  REQUIRE(at != std::string::npos);
  const double efficiency = std::stod(text.substr(at + tag.size()));
  CHECK(efficiency >= 0.3);
  CHECK(efficiency < 0.99);
  CHECK_THAT(text, Catch::Contains("#   launch_overhead: 12 us -> "));
  CHECK_THAT(text,
             Catch::Contains("# training log-RMSE: ") && Catch::Contains("# training MAPE: "));
  CHECK_THAT(text, Catch::Contains("fixed during the fit"));

  const RunResult predict = run_tilescope(
      {"predict", "--arch", out, "--workload", "tests/fixtures/cli/small-suite.yaml"});
  INFO(predict.err);
  CHECK(predict.status == 0);
  CHECK_THAT(predict.out, Catch::Contains("gemm_wide"));

  // The fitted graph correlates better with the data than the one it started from (training
  // figures: the same data).
  const RunResult before =
      run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv", "--arch",
                     "samples/arch/ascend910b3.yaml", "--op", "gemm", "--format", "json"});
  const RunResult after = run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv",
                                         "--arch", out, "--op", "gemm", "--format", "json"});
  REQUIRE(before.status == 0);
  REQUIRE(after.status == 0);
  CHECK(overall_mape(after.out) < overall_mape(before.out));
}

TEST_CASE("fit reads a results database by its header bytes", "[cli][fit]") {
  TempDir dir;
  const std::string out = dir.file("fitted.yaml");
  // The fixture has no .sqlite-specific handling in the command: it is recognised by content.
  const std::string db = dir.file("measurements.bin");
  fs::copy_file(fixture("db/results-v1.sqlite"), db);
  const RunResult r =
      run_tilescope({"fit", "--arch", "samples/arch/ascend910b3.yaml", "--measurements", db,
                     "--run", "1", "--param", "launch_overhead=1us:2ms", "--out", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(read_text(out), Catch::Contains("run 1") && Catch::Contains("mappings: each"));
}

TEST_CASE("fit: bad input exits 2 and writes no graph", "[cli][fit][errors]") {
  TempDir dir;
  const std::string out = dir.file("never.yaml");
  auto fit = [&](std::vector<std::string> extra) {
    std::vector<std::string> args{"fit", "--arch", "samples/arch/ascend910b3.yaml", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_tilescope(args);
  };
  SECTION("a CSV without its K column") {
    const RunResult r = fit({"--measurements", "tests/fixtures/csv/missing-column.csv", "--op",
                             "gemm", "--param", "launch_overhead"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("missing-column.csv:1:1") && Catch::Contains("'K'"));
  }
  SECTION("a bad number") {
    const std::string csv = dir.file("bad.csv");
    std::ofstream(csv) << "M,N,K,measured_us\n128,128,128,fast\n";
    const RunResult r = fit({"--measurements", csv, "--op", "gemm", "--param", "launch_overhead"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(csv + ":2:13"));
  }
  SECTION("an unknown parameter") {
    const RunResult r = fit({"--measurements", "tests/fixtures/csv/gemm-small.csv", "--op", "gemm",
                             "--param", "edge:HBM->L0A.bandwidth"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--param") && Catch::Contains("HBM->L2"));
  }
  SECTION("bad bounds") {
    const RunResult r = fit({"--measurements", "tests/fixtures/csv/gemm-small.csv", "--op", "gemm",
                             "--param", "launch_overhead=20us:2us"});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("launch_overhead=20us:2us"));
  }
  SECTION("a CSV without --op, and no file at all") {
    const RunResult no_op =
        fit({"--measurements", "tests/fixtures/csv/gemm-small.csv", "--param", "launch_overhead"});
    CHECK(no_op.status == 2);
    CHECK_THAT(no_op.err, Catch::Contains("--op"));
    const RunResult none = fit(
        {"--measurements", dir.file("absent.csv"), "--op", "gemm", "--param", "launch_overhead"});
    CHECK(none.status == 2);
    CHECK_THAT(none.err, Catch::Contains("absent.csv"));
  }
  CHECK_FALSE(fs::exists(out));
}
