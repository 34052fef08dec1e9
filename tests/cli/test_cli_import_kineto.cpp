// `tilescope import kineto`: a PyTorch profiler trace of a BERT layer's training step
// (tests/fixtures/trace/kineto, README there) into a database that correlate reads, and into a
// workload that predict runs on other chips; what cannot be stored is counted; a truncated
// trace leaves the database byte for byte as it was. The figures are worked out from the
// fixture's layout (make_fixtures.py's STEP table): 18 kernels of 16 distinct (operator,
// kernel) pairs, the residual add and its layer norm run twice.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

const std::string kKineto = "tests/fixtures/trace/kineto/";

// The operators the step ran twice (the residual add and its layer norm, count: 2).
bool ran_twice(const std::string& name) {
  return name == "add_512x768_fp16" || name == "native_layer_norm_layernorm_512x768_fp16";
}

}  // namespace

TEST_CASE("import kineto stores a training step that correlate and predict then use",
          "[cli][import][kineto]") {
  ts::test::TempDir dir("import-kineto");
  const std::string db = dir / "results.sqlite";
  const std::string workload = dir / "step.yaml";
  const RunResult r =
      run_tilescope({"import", "kineto", kKineto + "bert_step.json", "--db", db, "--workload-out",
                     workload, "--arch", "samples/arch/nvidia-a100.yaml"});
  REQUIRE(r.status == 0);
  CHECK(r.out == "run 1 kineto kernels device: 16 measurements\n");
  // every kernel found its operator and shapes: the only note is the copy, counted
  CHECK(r.err.find("lack shapes") == std::string::npos);
  CHECK(r.err.find("not stored") == std::string::npos);

  // 16 operators; the add and the layer norm ran twice
  const std::string written = read_text(workload);
  CHECK(written.find("kind: workload") != std::string::npos);
  CHECK(written.find("{name: addmm_512x2304x768_fp16, type: gemm, M: 512, N: 2304, K: 768, "
                     "dtype: fp16}") != std::string::npos);
  CHECK(written.find("{name: add_512x768_fp16, type: add, rows: 512, cols: 768, dtype: fp16, "
                     "count: 2}") != std::string::npos);
  CHECK(written.find("{name: bmm_48x128x128x64_fp16, type: batched_gemm, B: 48, M: 128, N: 128, "
                     "K: 64, dtype: fp16}") != std::string::npos);

  const RunResult correlated =
      run_tilescope({"correlate", "--db", db, "--arch", "samples/arch/nvidia-a100.yaml"}, 300);
  CHECK(correlated.status == 0);
  INFO(correlated.err);
  CHECK(correlated.out.find("addmm_512x2304x768_fp16") != std::string::npos);

  for (const char* arch : {"samples/arch/ascend910b3.yaml", "samples/arch/nvidia-h200.yaml"}) {
    const RunResult predicted =
        run_tilescope({"predict", "--arch", arch, "--workload", workload, "--budget", "2000"}, 300);
    INFO(arch << "\n" << predicted.err);
    CHECK(predicted.status == 0);
    CHECK(predicted.out.find("softmax_6144x128_fp16") != std::string::npos);
    // The total counts each operator `count` times: the add and the layer norm ran twice in
    // the step (their count: 2 above), every other operator once. Summed here from the rows.
    double expected_total = 0;
    double printed_total = -1;
    for (const std::string& line : split_lines(predicted.out)) {
      std::istringstream words(line);
      std::string name, word;
      words >> name;
      if (name == "total") {
        const size_t colon = line.find(": ");
        printed_total = std::stod(line.substr(colon + 2));
        continue;
      }
      if (name.find("_fp16") == std::string::npos) continue;
      while (words >> word && word.find('=') != std::string::npos) {
      }
      const double latency_us = std::stod(word);
      words >> word;
      const double launch_us = std::stod(word);
      const bool twice =
          name == "add_512x768_fp16" || name == "native_layer_norm_layernorm_512x768_fp16";
      expected_total += (twice ? 2 : 1) * (latency_us + launch_us);
    }
    // rows print 3 and 2 decimals: 16 rows round by at most 0.005 each
    CHECK(printed_total == Approx(expected_total).margin(0.1));
  }
}

TEST_CASE("a Kineto trace without shapes imports, its kernels counted as lacking shapes",
          "[cli][import][kineto]") {
  ts::test::TempDir dir("import-kineto-no-shapes");
  const std::string db = dir / "results.sqlite";
  const RunResult r =
      run_tilescope({"import", "kineto", kKineto + "bert_step_no_shapes.json", "--db", db});
  REQUIRE(r.status == 0);
  CHECK(r.out == "run 1 kineto kernels device: 0 measurements\n");
  CHECK(r.err.find("warning: 18 kernels lack shapes") != std::string::npos);
}

TEST_CASE("unmatched kernels of a Kineto trace are counted with examples",
          "[cli][import][kineto]") {
  ts::test::TempDir dir("import-kineto-unmatched");
  const RunResult r = run_tilescope(
      {"import", "kineto", kKineto + "bert_step_unmatched.json", "--db", dir / "results.sqlite"});
  REQUIRE(r.status == 0);
  // the step's 18 kernels as before, plus 6 with no launch: 2 GEMMs and an add by name, and
  // 2 NCCL all-reduces and a custom kernel that no rule knows
  CHECK(r.out == "run 1 kineto kernels device: 16 measurements\n");
  CHECK(r.err.find("warning: 3 kernels have no operator in the trace, classified by name only "
                   "(1 elementwise, 2 matmul)") != std::string::npos);
  CHECK(r.err.find("warning: 3 kernels match no operator and no kernel-name rule, not stored; "
                   "e.g. ncclKernel_AllReduce_RING_LL_Sum_half(ncclDevComm*, unsigned long, "
                   "ncclWork*); my_fused_rotary_embedding_kernel\n") != std::string::npos);
  CHECK(r.err.find("6 kernels have no launch in the trace") != std::string::npos);
}

TEST_CASE("a truncated Kineto trace exits 2 with one line and leaves the database as it was",
          "[cli][import][kineto]") {
  ts::test::TempDir dir("import-kineto-truncated");
  const std::string db = dir / "results.sqlite";
  REQUIRE(run_tilescope({"import", "kineto", kKineto + "bert_step.json.gz", "--db", db}).status ==
          0);
  const std::string before = read_text(db);
  const std::string file = kKineto + "bert_step_truncated.json";
  const RunResult r =
      run_tilescope({"import", "kineto", file, "--db", db, "--workload-out", dir / "step.yaml"});
  CHECK(r.status == 2);
  CHECK(r.err.rfind(file + ":", 0) == 0);
  CHECK(r.err.find("the JSON breaks at byte offset 17528 ") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(read_text(db) == before);
  CHECK(dir.names() == std::vector<std::string>{"results.sqlite"});
}

TEST_CASE("predict --format json and csv honour the count of a workload written from a trace",
          "[cli][import][kineto]") {
  ts::test::TempDir dir("import-kineto-counts");
  const std::string db = dir / "results.sqlite";
  const std::string workload = dir / "step.yaml";
  REQUIRE(run_tilescope({"import", "kineto", kKineto + "bert_step.json", "--db", db,
                         "--workload-out", workload})
              .status == 0);
  const std::vector<std::string> base = {"predict",    "--arch",  "samples/arch/nvidia-h200.yaml",
                                         "--workload", workload,  "--budget",
                                         "2000",       "--format"};
  std::vector<std::string> as_json = base, as_csv = base;
  as_json.push_back("json");
  as_csv.push_back("csv");

  const RunResult j = run_tilescope(as_json, 300);
  INFO(j.err);
  REQUIRE(j.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  // The total counts each operator `count` times, as the table's does (summed here by hand
  // from the rows: 2 x for the add and the layer norm, 1 x for the 14 others).
  double expected_total = 0;
  int twice = 0;
  for (const nlohmann::json& op : doc.at("operators")) {
    const std::string name = op.at("name");
    INFO(name);
    CHECK(op.at("count").get<int>() == (ran_twice(name) ? 2 : 1));
    twice += ran_twice(name);
    expected_total += (ran_twice(name) ? 2 : 1) * (op.at("latency_us").get<double>() +
                                                   op.at("launch_overhead_us").get<double>());
  }
  CHECK(twice == 2);
  CHECK(doc.at("operators").size() == 16);
  CHECK(doc.at("total_us").get<double>() == Approx(expected_total).epsilon(1e-9));

  const RunResult c = run_tilescope(as_csv, 300);
  REQUIRE(c.status == 0);
  const std::vector<std::string> lines = split_lines(c.out);
  REQUIRE(lines.size() == 17);
  CHECK(lines[0].substr(lines[0].rfind(',') + 1) == "count");
  int counted_twice = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string name = lines[i].substr(0, lines[i].find(','));
    const std::string count = lines[i].substr(lines[i].rfind(',') + 1);
    INFO(lines[i]);
    CHECK(count == (ran_twice(name) ? "2" : "1"));
    counted_twice += ran_twice(name);
  }
  CHECK(counted_twice == 2);
}
