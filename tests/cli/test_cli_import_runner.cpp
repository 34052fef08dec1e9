// `tilescope import runner` on committed synthetic runner results (tests/fixtures/cupti, written
// by make_results.py from small-gpu-suite.plan): runs per implementation and timing scope,
// stored predictions that `correlate` uses unchanged, and bad input that exits 2 with file:line
// and leaves the database byte-identical.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;

const std::string kResults = "tests/fixtures/cupti/small-gpu-results.jsonl";
const std::string kArch = "samples/arch/nvidia-h200.yaml";
const std::string kWorkload = "tests/fixtures/cupti/small-gpu-suite.yaml";

RunResult import_into(const std::string& db, const std::string& results) {
  return run_tilescope(
      {"import", "runner", results, "--db", db, "--arch", kArch, "--workload", kWorkload});
}

nlohmann::json correlate_json(const std::string& db, int run) {
  const RunResult r =
      run_tilescope({"correlate", "--db", db, "--run", std::to_string(run), "--format", "json"});
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

}  // namespace

TEST_CASE("import runner stores one run per implementation and timing scope", "[cli][cupti]") {
  ts::test::TempDir dir("import-runner");
  const std::string db = dir / "results.sqlite";
  const RunResult r = import_into(db, kResults);
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  // 6 tilescope-kernel jobs, 3 cuBLAS, 3 cuBLASLt, 4 vector (the fifth failed: an error record)
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] ==
        "run 1 tilescope device: 6 measurements (1 disagree with their reference: correlate "
        "leaves them out)");
  CHECK(lines[1].rfind("run 2 tilescope host_call: 6 measurements", 0) == 0);
  CHECK(lines[2] == "run 3 cublas device: 3 measurements");
  CHECK(lines[4] == "run 5 cublaslt device: 3 measurements");
  CHECK(lines[6] == "run 7 vector device: 4 measurements");
  CHECK(lines[7] == "run 8 vector host_call: 4 measurements");
  CHECK(r.err.find("add_norm vector: synthetic failure") != std::string::npos);
  CHECK(r.err.find("imported 8 runs and 16 predictions into") != std::string::npos);
}

TEST_CASE("correlate reads imported runner runs unchanged", "[cli][cupti]") {
  ts::test::TempDir dir("import-runner");
  const std::string db = dir / "results.sqlite";
  REQUIRE(import_into(db, kResults).status == 0);

  // tilescope kernel, device time: 5 checked of 6, compared with device time alone
  const nlohmann::json tiled = correlate_json(db, 1);
  CHECK(tiled["overall"]["count"] == 5);
  CHECK(tiled["compared"] == "5 device measurements with device time alone");
  CHECK(tiled["notes"][0].get<std::string>().find("1 measurements are left out: checked = false") ==
        0);
  CHECK(tiled["overall"]["mape"].get<double>() > 0);
  CHECK(tiled["overall"]["spearman"].get<double>() <= 1.0);

  // host_call: compared with device time plus launch overhead
  const nlohmann::json host = correlate_json(db, 2);
  CHECK(host["overall"]["count"] == 5);
  CHECK(host["compared"].get<std::string>().find("host_call") != std::string::npos);

  // cuBLAS: the fixture's rule is monotonic in FLOPs, as are the model's predictions here
  const nlohmann::json blas = correlate_json(db, 3);
  CHECK(blas["overall"]["count"] == 3);
  CHECK(blas["overall"]["spearman"].get<double>() == Approx(1.0));

  // re-predicting on a graph (--arch) uses the stored operator specs and mapping files
  const RunResult again =
      run_tilescope({"correlate", "--db", db, "--run", "1", "--arch", kArch, "--format", "json"});
  REQUIRE(again.status == 0);
  const nlohmann::json repredicted = nlohmann::json::parse(again.out);
  CHECK(repredicted["overall"]["count"] == 5);
  CHECK(repredicted["overall"]["mape"].get<double>() ==
        Approx(tiled["overall"]["mape"].get<double>()));
}

TEST_CASE("the stored medians are the runner's", "[cli][cupti]") {
  ts::test::TempDir dir("import-runner");
  const std::string db = dir / "results.sqlite";
  REQUIRE(import_into(db, kResults).status == 0);
  const RunResult r = run_tilescope({"db", "export", "--db", db, "--run", "3", "--format", "csv"});
  REQUIRE(r.status == 0);
  // proj on cuBLAS: 2 x 2048 x 1024 x 1024 FLOP at 600 TFLOP/s + 3 us = 10158.3 ns (min 0.97 x)
  CHECK(r.out.find("small-gpu-suite,proj,gemm,M=2048 N=1024 K=1024,cublas,,device,10,9.854,10.158,"
                   "0.08,true,") != std::string::npos);
}

TEST_CASE("import runner without a graph stores measurements only", "[cli][cupti]") {
  ts::test::TempDir dir("import-runner");
  const std::string db = dir / "results.sqlite";
  const RunResult r = run_tilescope({"import", "runner", kResults, "--db", db});
  REQUIRE(r.status == 0);
  CHECK(r.err.find("imported 8 runs and 0 predictions") != std::string::npos);
  const RunResult c =
      run_tilescope({"correlate", "--db", db, "--run", "3", "--arch", kArch, "--format", "json"});
  REQUIRE(c.status == 0);
  CHECK(nlohmann::json::parse(c.out)["overall"]["count"] == 3);
}

TEST_CASE("bad runner results exit 2 at file:line and leave the database as it was",
          "[cli][cupti]") {
  ts::test::TempDir dir("import-runner");
  const std::string db = dir / "results.sqlite";
  REQUIRE(import_into(db, kResults).status == 0);
  const std::string before = read_text(db);
  const auto names_before = dir.names();

  struct Case {
    std::string file, expected;
  };
  for (const Case& c :
       {Case{"tests/fixtures/cupti/malformed-results.jsonl",
             "tests/fixtures/cupti/malformed-results.jsonl:4:1: not a JSON object"},
        Case{"tests/fixtures/cupti/newer-version-results.jsonl",
             "tests/fixtures/cupti/newer-version-results.jsonl:3:1: record of runner version 2; "
             "this tilescope reads versions 1 to 1 (update tilescope)"},
        Case{"tests/fixtures/cupti/calibration-results.jsonl",
             "tests/fixtures/cupti/calibration-results.jsonl: no kernel records"}}) {
    INFO(c.file);
    const RunResult r = import_into(db, c.file);
    CHECK(r.status == 2);
    CHECK(r.err.rfind(c.expected, 0) == 0);
    CHECK(split_lines(r.err).size() == 1);
    CHECK(read_text(db) == before);
    CHECK(dir.names() == names_before);
  }
  // an operator the workload does not have (as measured)
  const RunResult other = run_tilescope(
      {"import", "runner", kResults, "--db", db, "--workload", "samples/workloads/bert-base.yaml"});
  CHECK(other.status == 2);
  CHECK(other.err.rfind(kResults + ":2:1: suite 'small-gpu-suite': expected 'bert-base'", 0) == 0);
  CHECK(read_text(db) == before);
}

TEST_CASE("calibrate --from-runner writes a graph with the measured figures", "[cli][cupti]") {
  ts::test::TempDir dir("calibrate-runner");
  const std::string out = dir / "nvidia-measured.yaml";
  const RunResult r =
      run_tilescope({"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-results.jsonl",
                     "--out", out, "--base", kArch});
  REQUIRE(r.status == 0);
  const std::string text = read_text(out);
  CHECK(text.find("#   HBM bandwidth 4.2 TB/s (synthetic copy)") != std::string::npos);
  CHECK(text.find("{from: L2, to: SMEM, bandwidth: 10TB/s") != std::string::npos);
  CHECK(text.find("clock: 1.98GHz") != std::string::npos);
  CHECK(text.find("launch_overhead: 5.5us") != std::string::npos);
  // The 8 KiB copy's device time is the floor of both units' kernels.
  CHECK(text.find("    min_kernel_time: 2500ns\n    operations:\n      - {class: matmul") !=
        std::string::npos);
  CHECK(text.find("    min_kernel_time: 2500ns\n    operations:\n      - {class: elementwise") !=
        std::string::npos);
  // 700 TFLOP/s / 2 / 132 SMs / 1.98 GHz = 1339 MACs per cycle per SM
  CHECK(text.find("{class: matmul, dtype: fp16, ops_per_cycle: 1339.") != std::string::npos);
  CHECK(text.find("{class: matmul, dtype: bf16, ops_per_cycle: 2048,") != std::string::npos);
  // Latencies: L2's 250 ns on L2->SMEM, HBM's 600 ns less L2's on HBM->L2, at 1.98 GHz.
  CHECK(text.find("{from: L2, to: SMEM, bandwidth: 10TB/s, sharing: shared, latency: 495}") !=
        std::string::npos);
  CHECK(text.find("{from: HBM, to: L2, bandwidth: 4.2TB/s, sharing: shared, latency: 693}") !=
        std::string::npos);
  // The mma.sync peak is recorded but not put in unless asked for.
  CHECK(text.find("# Measured, not put in: mma.sync peak 528 TFLOP/s") != std::string::npos);
  // the measured graph predicts
  const RunResult p = run_tilescope({"validate", out});
  CHECK(p.status == 0);

  // 528 TFLOP/s / 2 / 132 SMs / 1.98 GHz = 1010 MACs per cycle per SM, for fp16 and bf16
  const std::string mma_out = dir / "nvidia-mma-sync.yaml";
  const RunResult mma =
      run_tilescope({"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-results.jsonl",
                     "--out", mma_out, "--base", kArch, "--tensor-peak", "mma-sync"});
  REQUIRE(mma.status == 0);
  const std::string mma_text = read_text(mma_out);
  CHECK(mma_text.find("{class: matmul, dtype: fp16, ops_per_cycle: 1010.") != std::string::npos);
  CHECK(mma_text.find("{class: matmul, dtype: bf16, ops_per_cycle: 1010.") != std::string::npos);
  // 110 TFLOP/s / 2 / 132 SMs / 1.98 GHz = 210.4 MACs per cycle per SM: tilescope's own kernel
  const RunResult kernel =
      run_tilescope({"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-results.jsonl",
                     "--out", mma_out, "--base", kArch, "--tensor-peak", "wmma-kernel"});
  REQUIRE(kernel.status == 0);
  CHECK(read_text(mma_out).find("{class: matmul, dtype: fp16, ops_per_cycle: 210.4") !=
        std::string::npos);
  CHECK(read_text(mma_out).find("name: nvidia-h200-measured-wmma-kernel") != std::string::npos);
  const RunResult bad =
      run_tilescope({"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-results.jsonl",
                     "--out", mma_out, "--tensor-peak", "hmma"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("hmma") != std::string::npos);

  const RunResult none = run_tilescope({"calibrate", "--from-runner", kResults, "--out", out});
  CHECK(none.status == 2);
  CHECK(none.err.rfind(kResults + ": no calibration records", 0) == 0);
}

TEST_CASE("the H200 measurements of 2026-11-30 import and calibrate", "[cli][cupti]") {
  // Real runner output (samples/measurements/h200-cupti-2026-11-30): the BERT-base plan's 41
  // jobs, every one measured and checked on the device.
  const std::string folder = "samples/measurements/h200-cupti-2026-11-30/";
  ts::test::TempDir dir("import-h200");
  const std::string db = dir / "results.sqlite";
  const RunResult r = run_tilescope(
      {"import", "runner", folder + "results-h200-bert-base.jsonl", "--db", db, "--arch", kArch});
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  REQUIRE(lines.size() == 8);
  CHECK(lines[0] == "run 1 tilescope device: 22 measurements");
  CHECK(lines[2] == "run 3 cublas device: 6 measurements");
  CHECK(lines[6] == "run 7 vector device: 7 measurements");
  CHECK(r.err.find("runner job failed") == std::string::npos);
  CHECK(correlate_json(db, 3)["overall"]["count"] == 6);

  const std::string graph = dir / "h200-measured.yaml";
  const RunResult c = run_tilescope({"calibrate", "--from-runner", folder + "calibration.jsonl",
                                     "--out", graph, "--base", kArch});
  REQUIRE(c.status == 0);
  CHECK(c.out.find("measured: clock 1.98 GHz") != std::string::npos);
  CHECK(c.out.find("measured: HBM bandwidth 3.966 TB/s") != std::string::npos);
  CHECK(c.out.find("measured: L2 latency 145 ns = 288 cycles") != std::string::npos);
  CHECK(run_tilescope({"validate", graph}).status == 0);
}
