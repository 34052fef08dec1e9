// `tilescope correlate` end to end: a committed CSV of synthetic GEMM latencies on the Ascend
// 910B3 graph (tests/fixtures/csv/README.md), the results-database fixture, a cross-validated
// fit, and bad input (exit 2, one located line, nothing on stdout).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;

namespace {

using namespace ts::cli_test;
using nlohmann::json;
namespace fs = std::filesystem;

const std::vector<std::string> kCsvArgs{"correlate",
                                        "--csv",
                                        "tests/fixtures/csv/gemm-small.csv",
                                        "--arch",
                                        "samples/arch/ascend910b3.yaml",
                                        "--op",
                                        "gemm"};

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// What the tests of the output check does not need the default search (a fit does): a short
// one keeps them fast under the sanitizers.
const std::vector<std::string> kQuickCsvArgs = with(kCsvArgs, {"--budget", "5000"});

void check_stats(const json& s) {
  for (const char* field : {"count", "pearson", "spearman", "kendall", "mape", "log_rmse"})
    CHECK(s.contains(field));
  CHECK(s.at("mape").get<double>() >= 0);
  CHECK(s.at("mape").get<double>() < 1);  // a fraction, not a percentage
  CHECK(std::abs(s.at("spearman").get<double>()) <= 1);
}

}  // namespace

TEST_CASE("correlate --csv --by size: JSON per group, overall and the worst list",
          "[cli][correlate]") {
  const RunResult r = run_tilescope(with(kQuickCsvArgs, {"--by", "size", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  check_stats(j.at("overall"));
  CHECK(j.at("overall").at("count") == 24);
  CHECK(j.at("overall").at("pearson").get<double>() > 0.9);
  REQUIRE(j.at("groups").size() == 3);
  std::vector<std::string> names;
  size_t total = 0;
  for (const json& g : j.at("groups")) {
    check_stats(g);
    names.push_back(g.at("group"));
    total += g.at("count").get<size_t>();
  }
  CHECK(names == std::vector<std::string>{"small", "medium", "large"});
  CHECK(total == 24);
  // Terciles of 24 points: 8 per group (no two shapes have the same FLOPs).
  CHECK(j.at("groups")[0].at("count") == 8);
  CHECK(j.at("size_thresholds").size() == 2);
  REQUIRE(j.at("worst").size() == 10);
  for (const json& w : j.at("worst"))
    for (const char* field :
         {"operator", "shape", "mapping", "predicted_us", "measured_us", "error", "bound_by"})
      CHECK(w.contains(field));
  // Worst first: the error in log space does not grow down the list.
  double previous = 1e300;
  for (const json& w : j.at("worst")) {
    const double e =
        std::abs(std::log(w.at("predicted_us").get<double>() / w.at("measured_us").get<double>()));
    CHECK(e <= previous + 1e-12);
    previous = e;
  }
  CHECK(j.at("cross_validated") == false);
  CHECK_FALSE(j.contains("training"));
}

TEST_CASE("correlate --csv prints a table with every group and the overall row",
          "[cli][correlate]") {
  const RunResult r = run_tilescope(with(kQuickCsvArgs, {"--by", "size=1e9,1e10"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("small") && Catch::Contains("medium") &&
                        Catch::Contains("large") && Catch::Contains("overall") &&
                        Catch::Contains("worst predictions") && Catch::Contains("log-RMSE") &&
                        Catch::Contains("device + launch"));
  // Other than two thresholds: groups named by their bounds.
  const RunResult one =
      run_tilescope(with(kQuickCsvArgs, {"--by", "size=1e10", "--format", "json"}));
  REQUIRE(one.status == 0);
  const json j = json::parse(one.out);
  REQUIRE(j.at("groups").size() == 2);
  CHECK(j.at("groups")[0].at("group") == "<10G");
  CHECK(j.at("groups")[1].at("group") == ">=10G");
}

TEST_CASE("correlate --timing-scope device compares device time alone", "[cli][correlate]") {
  const RunResult host = run_tilescope(with(kQuickCsvArgs, {"--format", "json"}));
  const RunResult device =
      run_tilescope(with(kQuickCsvArgs, {"--timing-scope", "device", "--format", "json"}));
  REQUIRE(host.status == 0);
  REQUIRE(device.status == 0);
  // The same shapes and mappings: only the 12 us of launch differs.
  const double host_mape = json::parse(host.out).at("overall").at("mape").get<double>();
  const double device_mape = json::parse(device.out).at("overall").at("mape").get<double>();
  CHECK(device_mape > host_mape);
}

TEST_CASE("correlate --fit --folds: cross-validated figures beside training ones",
          "[cli][correlate][fit][slow]") {
  const RunResult r =
      run_tilescope(with(kCsvArgs, {"--by", "size", "--fit", "node:Cube.efficiency=0.3:1", "--fit",
                                    "launch_overhead", "--folds", "4", "--format", "json"}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  CHECK(j.at("cross_validated") == true);
  const json& training = j.at("training");
  check_stats(training);
  CHECK_THAT(training.at("kind").get<std::string>(), Catch::Contains("mean over the folds"));
  CHECK(training.at("groups").size() == 3);
  // Held-out figures are not the training figures.
  CHECK(training.at("mape").get<double>() != j.at("overall").at("mape").get<double>());
  CHECK(training.at("log_rmse").get<double>() != j.at("overall").at("log_rmse").get<double>());
  const json& folds = j.at("cross_validation").at("fold_results");
  REQUIRE(folds.size() == 4);
  size_t tested = 0;
  for (const json& f : folds) {
    tested += f.at("test_count").get<size_t>();
    const double efficiency = f.at("values").at("node:Cube.efficiency").get<double>();
    CHECK(efficiency > 0.6);  // the synthetic latencies were made with 0.84
    CHECK(efficiency < 1.0);
  }
  CHECK(tested == 24);
  // The fit helps: cross-validated MAPE below the unfitted graph's.
  const RunResult plain = run_tilescope(with(kCsvArgs, {"--format", "json"}));
  REQUIRE(plain.status == 0);
  CHECK(j.at("overall").at("mape").get<double>() <
        json::parse(plain.out).at("overall").at("mape").get<double>());

  const RunResult table =
      run_tilescope(with(kCsvArgs, {"--fit", "node:Cube.efficiency=0.3:1", "--folds", "3"}));
  REQUIRE(table.status == 0);
  CHECK_THAT(table.out, Catch::Contains("cross-validated: 3 folds") &&
                            Catch::Contains("train MAPE") && Catch::Contains("fold  train"));
}

TEST_CASE("correlate --db: stored predictions of the run, like with like", "[cli][correlate]") {
  const RunResult r = run_tilescope({"correlate", "--db", "tests/fixtures/db/results-v1.sqlite",
                                     "--run", "1", "--by", "class", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  // 4 measurements; the layernorm has no stored prediction.
  CHECK(j.at("overall").at("count") == 3);
  CHECK(j.at("architecture_hash") == "00112233445566aa");
  REQUIRE(j.at("groups").size() == 2);
  CHECK(j.at("groups")[0].at("group") == "matmul");
  CHECK(j.at("groups")[1].at("group") == "reduction");
  bool softmax_seen = false;
  for (const json& w : j.at("worst"))
    if (w.at("operator") == "softmax_1k") {
      softmax_seen = true;
      // A device-timed measurement meets the device time alone: 30 us, not 30 + 5.
      CHECK(w.at("predicted_us").get<double>() == Approx(30.0));
      CHECK(w.at("measured_us").get<double>() == Approx(42.0));
    } else if (w.at("mapping") == "tiled/gemm-tiles") {
      // A host_call one meets device + launch: 1000 + 5 us.
      CHECK(w.at("predicted_us").get<double>() == Approx(1005.0));
    }
  CHECK(softmax_seen);
  CHECK(j.at("per_shape").empty());
  // No shape ranked: the mean is over nothing, so it has no value (it was 0.0 before schema 2).
  CHECK(j.at("schema_version") == 2);
  CHECK(j.at("mean_per_shape_spearman").is_null());
  CHECK_THAT(j.at("notes").dump(), Catch::Contains("no stored prediction"));
}

TEST_CASE("correlate --db --arch re-predicts and stores under the new graph", "[cli][correlate]") {
  TempDir dir;
  const std::string db = dir.file("results.sqlite");
  fs::copy_file(fixture("db/results-v1.sqlite"), db);
  const std::vector<std::string> args{
      "correlate", "--db", db, "--run", "1", "--arch", "samples/arch/ascend910b3.yaml",
      "--format",  "json"};
  const RunResult r = run_tilescope(args);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  // The fixture's tiled GEMM names a mapping that is no mapping file: it is left out with a
  // note; the other three are predicted by the mapper and stored.
  CHECK(j.at("overall").at("count") == 3);
  CHECK_THAT(j.at("notes").dump(), Catch::Contains("could not be predicted") &&
                                       Catch::Contains("3 predictions stored under graph"));
  CHECK(j.at("architecture_hash") != "00112233445566aa");
  // The committed fixture is untouched; the copy took the predictions, and a second run on it
  // gives the same figures.
  const RunResult again = run_tilescope(args);
  REQUIRE(again.status == 0);
  CHECK(json::parse(again.out).at("overall") == j.at("overall"));
}

TEST_CASE("correlate: bad input exits 2 with a located message and no output",
          "[cli][correlate][errors]") {
  SECTION("a missing column") {
    const RunResult r =
        run_tilescope({"correlate", "--csv", "tests/fixtures/csv/missing-column.csv", "--arch",
                       "samples/arch/ascend910b3.yaml", "--op", "gemm"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("missing-column.csv:1:1") && Catch::Contains("'K'") &&
                          Catch::Contains("M, N, K, measured_us"));
  }
  SECTION("a bad number") {
    TempDir dir;
    const std::string csv = dir.file("bad.csv");
    std::ofstream(csv) << "M,N,K,measured_us\n128,128,128,13.0\n256,256,2x6,14\n";
    const RunResult r = run_tilescope(
        {"correlate", "--csv", csv, "--arch", "samples/arch/ascend910b3.yaml", "--op", "gemm"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains(csv + ":3:9") && Catch::Contains("'2x6'"));
  }
  SECTION("--csv without --arch, or without --op") {
    const RunResult no_arch =
        run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv", "--op", "gemm"});
    CHECK(no_arch.status == 2);
    CHECK_THAT(no_arch.err, Catch::Contains("--arch"));
    const RunResult no_op =
        run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv", "--arch",
                       "samples/arch/ascend910b3.yaml"});
    CHECK(no_op.status == 2);
    CHECK_THAT(no_op.err, Catch::Contains("--op"));
  }
  SECTION("an unknown class, grouping or parameter") {
    const RunResult op = run_tilescope({"correlate", "--csv", "tests/fixtures/csv/gemm-small.csv",
                                        "--arch", "samples/arch/ascend910b3.yaml", "--op", "conv"});
    CHECK(op.status == 2);
    CHECK_THAT(op.err, Catch::Contains("--op") && Catch::Contains("batched_gemm"));
    const RunResult by = run_tilescope(with(kQuickCsvArgs, {"--by", "colour"}));
    CHECK(by.status == 2);
    CHECK_THAT(by.err, Catch::Contains("--by") && Catch::Contains("'colour'"));
    const RunResult fit = run_tilescope(with(kCsvArgs, {"--fit", "node:Tensor.efficiency"}));
    CHECK(fit.status == 2);
    CHECK(fit.out.empty());
    CHECK_THAT(fit.err,
               Catch::Contains("--fit") && Catch::Contains("'Tensor'") && Catch::Contains("Cube"));
    const RunResult folds =
        run_tilescope(with(kCsvArgs, {"--fit", "launch_overhead", "--folds", "1"}));
    CHECK(folds.status == 2);
    CHECK_THAT(folds.err, Catch::Contains("--folds"));
  }
  SECTION("a database that is not one, or a run that is not there") {
    const RunResult corrupt =
        run_tilescope({"correlate", "--db", "tests/fixtures/db/corrupt.sqlite"});
    CHECK(corrupt.status == 2);
    CHECK(corrupt.out.empty());
    CHECK_THAT(corrupt.err, Catch::Contains("corrupt.sqlite"));
    const RunResult run =
        run_tilescope({"correlate", "--db", "tests/fixtures/db/results-v1.sqlite", "--run", "9"});
    CHECK(run.status == 2);
    CHECK_THAT(run.err, Catch::Contains("results-v1.sqlite: no run 9"));
    const RunResult both =
        run_tilescope({"correlate", "--db", "tests/fixtures/db/results-v1.sqlite", "--csv",
                       "tests/fixtures/csv/gemm-small.csv"});
    CHECK(both.status == 2);
  }
}
