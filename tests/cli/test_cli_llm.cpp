// `tilescope predict` on the LLM suites (samples/workloads/llm): every suite on every bundled
// graph, and the time per token of Llama-2 7B decode on the H200 against its weight-bytes bound.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "SuiteTotals.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

// A budget that finds a valid mapping for every LLM operator on the graphs below; the default
// (larger) would triple the test's time.
json predict_llm(const std::vector<std::string>& args) {
  std::vector<std::string> full{"predict", "--format", "json", "--budget", "5000"};
  full.insert(full.end(), args.begin(), args.end());
  const RunResult r = run_tilescope(full);
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out);
}

}  // namespace

// A suite whose largest operator needs more than a graph's outermost memory holds cannot run
// there: predict refuses it (exit 2, naming the operator and the memory), and runs every other.
// Eyeriss's DRAM is the 1 GiB of its test board (1073741824 B); all other graphs hold every suite.
struct TooLarge {
  const char* arch;
  const char* suite;
  const char* op;
  double bytes;  // the operator's tensors, worked from the model's sizes
};
const std::vector<TooLarge>& too_large() {
  // Llama-2 and Llama-3 70B prefill, 2048 tokens, gate_up_proj 2048 x 57344 x 8192 fp16:
  //   A 2048 x 8192 + W 8192 x 57344 + C 2048 x 57344, x 2 B.
  // Llama-3 70B decode at batch 1: the LM head's 128256 x 8192 fp16 weights alone.
  // Mixtral 8x7B prefill, 2048 tokens over 8 experts, 512 each (top-2): experts_gate_up
  //   8 x (512 x 4096 + 4096 x 28672 + 512 x 28672) x 2 B.
  static const std::vector<TooLarge> cases{
      {"eyeriss", "llama2-70b-prefill", "gate_up_proj",
       (2048.0 * 8192 + 8192.0 * 57344 + 2048.0 * 57344) * 2},
      {"eyeriss", "llama3-70b-prefill", "gate_up_proj",
       (2048.0 * 8192 + 8192.0 * 57344 + 2048.0 * 57344) * 2},
      {"eyeriss", "llama3-70b-decode", "lm_head", 128256.0 * 8192 * 2},
      {"eyeriss", "mixtral-8x7b-prefill", "experts_gate_up",
       8 * (512.0 * 4096 + 4096.0 * 28672 + 512.0 * 28672) * 2},
  };
  return cases;
}

const TooLarge* too_large_for(const std::string& arch, const std::string& suite) {
  for (const TooLarge& t : too_large())
    if (arch.find(t.arch) != std::string::npos &&
        suite.find(std::string("/") + t.suite + ".yaml") != std::string::npos)
      return &t;
  return nullptr;
}

TEST_CASE("every LLM suite predicts on every bundled graph", "[cli][predict][llm][slow]") {
  // The suites, not the model files they name (those hold hyper-parameters only).
  std::vector<std::string> suites;
  for (const std::string& f : files_in("samples/workloads/llm"))
    if (f.find("-decode.yaml") != std::string::npos ||
        f.find("-prefill.yaml") != std::string::npos || f.find("-step.yaml") != std::string::npos)
      suites.push_back(f);
  REQUIRE(suites.size() == 11);
  const std::string arch = GENERATE_COPY(from_range(files_in("samples/arch")));
  for (const std::string& suite : suites) {
    INFO("--arch " << arch << " --workload " << suite);
    // Timeloop's designs have integer MACs and no unit for a norm, a softmax or an activation:
    // an LLM is refused at its first such operator, with the operator's line (exit 2).
    if (arch.find("/timeloop-") != std::string::npos) {
      const RunResult r =
          run_tilescope({"predict", "--arch", arch, "--workload", suite, "--budget", "5000"});
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(r.err.find(suite + ":") == 0);
      CHECK(r.err.find("has no compute node that runs") != std::string::npos);
      CHECK(r.out.empty());
      continue;
    }
    if (const TooLarge* t = too_large_for(arch, suite)) {
      CHECK(t->bytes > 1073741824.0);
      const RunResult r =
          run_tilescope({"predict", "--arch", arch, "--workload", suite, "--budget", "5000"});
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(r.err.find(suite + ":") == 0);
      CHECK(r.err.find("operator '" + std::string(t->op) + "'") != std::string::npos);
      CHECK(r.err.find("the outermost memory of") != std::string::npos);
      CHECK(r.err.find("holds 1 GiB") != std::string::npos);
      CHECK(r.out.empty());
      continue;
    }
    const json doc = predict_llm({"--arch", arch, "--workload", suite});
    REQUIRE(doc.contains("forward_pass"));
    const json& pass = doc["forward_pass"];
    double sum_us = 0;
    for (const json& t : pass.at("operator_types")) sum_us += t.at("device_us").get<double>();
    CHECK(pass.at("device_us").get<double>() > 0);
    CHECK(pass.at("device_us").get<double>() == Approx(sum_us));
    CHECK(pass.at("tokens_per_s").get<double>() > 0);
    for (const json& op : doc.at("operators")) CHECK(op.at("latency_us").get<double>() > 0);
  }
}

// The LLM suites at the default budget are no slower than before issue 37 (the test above runs
// a smaller budget to stay short). Some 10 minutes on two cores: a hidden test, run by name:
//   build/tests/tilescope_cli_tests "[totals-llm]"
TEST_CASE("every LLM suite on every bundled graph is no slower than before", "[.][totals-llm]") {
  const std::string arch = GENERATE_COPY(from_range(files_in("samples/arch")));
  for (const std::string& suite : files_in("samples/workloads/llm")) {
    if (suite.find("-decode.yaml") == std::string::npos &&
        suite.find("-prefill.yaml") == std::string::npos &&
        suite.find("-step.yaml") == std::string::npos)
      continue;
    if (too_large_for(arch, suite)) continue;
    const RunResult r =
        run_tilescope({"predict", "--format", "json", "--arch", arch, "--workload", suite}, 600);
    INFO(r.command << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    check_total_no_slower(arch, suite, json::parse(r.out));
  }
}

TEST_CASE("Llama-2 7B decode on the H200 at batch 1, context 4096: time per token",
          "[cli][predict][llm]") {
  const RunResult table =
      run_tilescope({"predict", "--arch", "samples/arch/nvidia-h200.yaml", "--workload",
                     "samples/workloads/llm/llama2-7b-decode.yaml", "--batch", "1", "--context",
                     "4096", "--budget", "5000"});
  INFO(table.command << "\n" << table.out << table.err);
  REQUIRE(table.status == 0);
  CHECK(table.out.find("time per token: ") != std::string::npos);
  CHECK(table.out.find("tokens per second: ") != std::string::npos);

  const json doc = predict_llm({"--arch", "samples/arch/nvidia-h200.yaml", "--workload",
                                "samples/workloads/llm/llama2-7b-decode.yaml", "--batch", "1",
                                "--context", "4096"});
  const json& pass = doc.at("forward_pass");
  CHECK(pass.at("phase") == "decode");
  CHECK(pass.at("tokens_per_pass") == 1);
  // The weights: 32 layers x 202375168 + the LM head's 32000 x 4096 = 6607077376 fp16 values,
  // 13214154752 B, each read once per token from HBM at 4.8 TB/s: 2752.95 us, a floor no
  // prediction may go under. The KV cache adds 2 x 4096 x 32 x 128 x 2 B x 32 layers =
  // 2147483648 B (447.39 us): 3200.34 us for the bytes that must come from HBM. A decode step
  // this large runs near the HBM's speed; we require it within 1.5 x the weights' bound.
  const double weights_bound_us = 13214154752.0 / 4.8e12 * 1e6;
  const double t_us = pass.at("time_per_token_us").get<double>();
  CHECK(t_us >= weights_bound_us);
  CHECK(t_us <= 1.5 * weights_bound_us);
  CHECK(pass.at("tokens_per_s").get<double>() == Approx(1e6 / t_us));
  // The GEMMs are bound by HBM, not by the tensor cores (M = 1).
  for (const json& c : pass.at("operator_types"))
    if (c.at("type") == "gemm")
      CHECK(c.at("bound_by").get<std::string>().find("HBM") != std::string::npos);
}

TEST_CASE("predict's --batch and --context size only llm-model files", "[cli][predict][llm]") {
  const RunResult r =
      run_tilescope({"predict", "--arch", "samples/arch/nvidia-h200.yaml", "--workload",
                     "samples/workloads/bert-base.yaml", "--batch", "4"});
  CHECK(r.status == 2);
  CHECK(r.err.find("samples/workloads/bert-base.yaml:1:1: ") != std::string::npos);
  CHECK(r.err.find("kind: llm-model") != std::string::npos);
}

// Ascend 910B3 prefill attention against its bounds, on both Ascend graphs. The lower bound takes
// the faster figure of the two graphs: the cube's nominal 20 x 4096 MACs x 2 x 1.8 GHz =
// 294.9 TFLOP/s (the fitted graph's is 262.6) and the fitted graph's HBM, 1.7244 TB/s (the
// nominal one's is 1.6).
// - Llama-2 7B, 2048 tokens: 32 heads of 2048 x 2048 x 128; the two matmuls take
//   2 x 2 x 32 x 2048 x 2048 x 128 = 68.72 GFLOP, 233.0 us at the peak; Q, K, V and O are
//   4 x 32 x 2048 x 128 x 2 B = 67.1 MB, 38.9 us. Bound: 233.0 us.
// - DiT-XL/2, 8 images of 256 tokens: 128 heads of 256 x 256 x 72: 4 x 128 x 256 x 256 x 72 =
//   2.416 GFLOP, 8.19 us; Q, K, V, O 4 x 128 x 256 x 72 x 2 B = 18.87 MB, 10.94 us. Bound:
//   10.94 us.
// The passes write the fp32 scores and the fp16 probabilities to HBM and read them back (the
// 910B3's workspace; 512 + 256 MiB for Llama-2 7B, each written and read): they, not the cube,
// bound the prediction, seen at 3.0 to 3.3 x the bound for Llama-2 7B and 4.6 to 4.9 x for DiT
// (whose head dimension, 72, also pads to the cube's 16). Required: within 4 x and 6 x.
TEST_CASE("Ascend prefill and DiT attention predict within a factor of their bounds",
          "[cli][predict][llm][slow]") {
  struct Case {
    const char* suite;
    double bound_us;
    double factor;
  };
  const Case c = GENERATE(Case{"samples/workloads/llm/llama2-7b-prefill.yaml", 233.0, 4.0},
                          Case{"samples/workloads/llm/dit-xl2-step.yaml", 10.94, 6.0});
  const std::string arch = GENERATE(as<std::string>{}, "samples/arch/ascend910b3.yaml",
                                    "samples/arch/ascend910b3-fitted.yaml");
  INFO("--arch " << arch << " --workload " << c.suite);
  const json doc = predict_llm({"--arch", arch, "--workload", c.suite, "--op", "attention"});
  REQUIRE(doc.at("operators").size() == 1);
  const json& attention = doc.at("operators")[0];
  CHECK(attention.at("type") == "prefill_attention");
  const double t_us = attention.at("latency_us").get<double>();
  CHECK(std::isfinite(t_us));
  CHECK(t_us >= c.bound_us);
  CHECK(t_us <= c.factor * c.bound_us);
}
