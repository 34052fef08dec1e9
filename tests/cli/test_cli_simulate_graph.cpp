// `tilescope simulate` on a graph model (`family: graph`): the MLP-Mixer sample under a small
// strategy, its summary, timeline and --out file, and exit status 2 for a model or strategy that
// does not fit.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

const std::vector<std::string> kMixer{"simulate",
                                      "--model",
                                      "samples/dist/models/mlp-mixer-b16.yaml",
                                      "--strategy",
                                      "samples/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml",
                                      "--cluster",
                                      "samples/dist/clusters/selene.yaml"};

}  // namespace

TEST_CASE("simulate runs the MLP-Mixer graph model", "[cli][simulate]") {
  TempDir dir;
  const std::string trace = dir.file("trace.json"), out = dir.file("sim.json");
  std::vector<std::string> args = kMixer;
  args.insert(args.end(), {"--format", "json", "--timeline", trace, "--out", out});
  const RunResult r = run_tilescope(args);
  INFO(r.command << "\n" << r.out << r.err);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"] == "mlp-mixer-b16");
  CHECK(j["strategy"] == "mlp-mixer-b16-tp2-pp2");
  CHECK(j["gpus"] == 8);
  const auto& summary = j["summary"];
  const double iteration = summary["iteration_s"].get<double>();
  CHECK(iteration > 0);
  // 512 images of 196 patches per iteration.
  CHECK(summary["tokens_per_s"].get<double>() * iteration == Approx(512.0 * 196));
  CHECK(summary["mfu"].get<double>() > 0);
  CHECK(summary["mfu"].get<double>() < 1);
  CHECK(summary["hfu"].get<double>() == summary["mfu"].get<double>());  // no recomputation
  CHECK(summary["bubble_fraction"].get<double>() > 0);                  // 2 stages
  CHECK_FALSE(summary["out_of_memory"].get<bool>());
  // 12 layers of 4.88 M parameters over 2 stages and 2 tensor-parallel ranks, 18 bytes each
  // (optimizer state sharded over 2 replicas by ZeRO 1): well under a GiB.
  CHECK(summary["model_state_gib_per_gpu"].get<double>() > 0);
  CHECK(summary["model_state_gib_per_gpu"].get<double>() < 1);
  CHECK(summary["peak_memory_gib_per_gpu"].get<double>() >=
        summary["activation_gib_per_gpu"].get<double>());
  REQUIRE(summary["breakdown"].size() == 8);
  double sum = 0;
  for (const auto& part : summary["breakdown"]) sum += part["s"].get<double>();
  CHECK(sum == Approx(iteration));
  CHECK(summary["breakdown"][1]["what"] == "tensor-parallel communication");
  CHECK(summary["breakdown"][1]["s"].get<double>() > 0);  // the two row-split GEMMs per layer

  // The timeline: 2 stages x 8 micro-batches, a forward and a backward each.
  std::ifstream in(trace);
  const auto t = nlohmann::json::parse(in);
  int compute = 0;
  for (const auto& e : t["traceEvents"])
    if (e["ph"] == "X" && e["tid"].get<int>() < 2) ++compute;
  CHECK(compute == 2 * 8 * 2);
  std::ifstream whole_in(out);
  const auto whole = nlohmann::json::parse(whole_in);
  CHECK(whole["schema_version"] == 2);
  CHECK(whole["summary"]["iteration_s"] == summary["iteration_s"]);
  CHECK(whole["traceEvents"] == t["traceEvents"]);  // --out is the --timeline trace, and more

  const RunResult table = run_tilescope(kMixer);
  REQUIRE(table.status == 0);
  CHECK_THAT(table.out, Catch::StartsWith("mlp-mixer-b16 with mlp-mixer-b16-tp2-pp2 on selene") &&
                            Catch::Contains("MFU / HFU"));

  const RunResult valid = run_tilescope({"validate", "samples/dist/models/mlp-mixer-b16.yaml"});
  CHECK(valid.status == 0);
  CHECK_THAT(valid.out, Catch::Contains("model 'mlp-mixer-b16': graph 12 layers, hidden 768"));
}

TEST_CASE("simulate refuses a graph model or strategy that does not fit", "[cli][simulate]") {
  TempDir dir;
  SECTION("a tensor-parallel degree that does not divide a split dimension") {
    const std::string path = dir.file("tp3.yaml");
    std::ofstream(path) << "version: 1\nkind: strategy\n"
                           "tensor_parallel: {degree: 5}\n"
                           "batch: {global: 64, micro: 8}\n";
    std::vector<std::string> args = kMixer;
    args[4] = path;
    const RunResult r = run_tilescope(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(path + ":3:") &&
                          Catch::Contains("tensor_parallel.degree 5 does not divide N = 384 of "
                                          "operator 'token_up'"));
  }
  SECTION("an unknown symbol in the model") {
    const std::string path = dir.file("m.yaml");
    std::ofstream(path) << "version: 1\nkind: model\nfamily: graph\nlayers: 2\nseq_len: 16\n"
                           "hidden: 64\nblock:\n"
                           "  - {name: up, type: gemm, M: batch*seq_len, N: 64, K: hidden}\n";
    std::vector<std::string> args = kMixer;
    args[2] = path;
    const RunResult r = run_tilescope(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains(path + ":8:") && Catch::Contains("unknown symbol 'batch'"));
  }
}
