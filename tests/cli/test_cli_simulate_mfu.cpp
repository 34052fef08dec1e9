// `tilescope simulate`'s MFU is the papers' MFU: model FLOPs per iteration over the iteration
// time and the GPUs' datasheet peak (312 TFLOP/s dense fp16 for an A100), not over the rate a
// fit derated the tensor cores to. The FLOPs come from Korthikanti et al. 2022's formula
// (Reducing Activation Recomputation in Large Transformer Models, eq. for model FLOPs without
// recomputation): 72 B s l h^2 (1 + s / 6h + V / 12hl), worked out here from the sample files,
// independently of the simulator's own count.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "RunTilescope.hpp"

using namespace ts::cli_test;

namespace {

// A top-level `key: number` of a sample YAML file (the first one).
double yaml_number(const std::string& text, const std::string& key) {
  std::smatch m;
  const std::regex re("(^|\\n)" + key + ":\\s*([0-9.eE+]+)");
  REQUIRE(std::regex_search(text, m, re));
  return std::stod(m[2].str());
}

// A negative zero as a table prints it: "-0", "-0.0", "-0.000" not followed by a non-zero digit.
bool has_negative_zero(const std::string& text) {
  static const std::regex re("(^|[^0-9.eE])-0(\\.0*)?(?![0-9.])");
  return std::regex_search(text, re);
}

}  // namespace

TEST_CASE("simulate: MFU of GPT-3 175B on Selene is the FLOPs formula over the datasheet peak",
          "[cli][simulate][slow]") {
  const std::string model = "samples/dist/models/gpt3-175b.yaml";
  const std::string strategy = "samples/dist/strategies/gpt3-175b-full.yaml";
  const std::string cluster = "samples/dist/clusters/selene.yaml";
  const std::string m = read_text(root_path(model));
  const double l = yaml_number(m, "layers"), h = yaml_number(m, "hidden"),
               s = yaml_number(m, "seq_len"), V = yaml_number(m, "vocab");
  const std::string st = read_text(root_path(strategy));
  std::smatch batch;
  REQUIRE(std::regex_search(st, batch, std::regex("global:\\s*([0-9]+)")));
  const double B = std::stod(batch[1].str());
  const double model_flops = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * h * l));
  constexpr double kA100DatasheetFlops = 312e12;  // dense fp16/bf16 tensor core, A100 datasheet

  const RunResult js = run_tilescope({"simulate", "--model", model, "--strategy", strategy,
                                      "--cluster", cluster, "--format", "json"});
  INFO(js.out << js.err);
  REQUIRE(js.status == 0);
  const auto j = nlohmann::json::parse(js.out);
  const double gpus = j.at("gpus").get<double>();
  const double iteration = j.at("summary").at("iteration_s").get<double>();
  const double expected_mfu = model_flops / (iteration * gpus * kA100DatasheetFlops) * 100;
  INFO("formula MFU " << expected_mfu << " % at " << iteration << " s on " << gpus << " GPUs");
  CHECK(j.at("summary").at("mfu").get<double>() * 100 == Approx(expected_mfu).margin(2.0));
  CHECK(j.at("summary").at("peak_tflops_per_gpu").get<double>() == Approx(312).epsilon(0.01));
  // The fitted tensor-core efficiency (0.72) is not what MFU divides by: were it, MFU would
  // read about 1 / 0.72 times the formula's.
  CHECK(j.at("summary").at("mfu").get<double>() * 100 < expected_mfu / 0.8);

  const RunResult text =
      run_tilescope({"simulate", "--model", model, "--strategy", strategy, "--cluster", cluster});
  INFO(text.out << text.err);
  REQUIRE(text.status == 0);
  std::smatch printed;
  REQUIRE(std::regex_search(text.out, printed, std::regex("MFU / HFU\\s+([0-9.]+) %")));
  CHECK(std::stod(printed[1].str()) == Approx(expected_mfu).margin(2.0));
  CHECK_FALSE(has_negative_zero(text.out));
  CHECK_FALSE(has_negative_zero(js.out));
  for (const auto& part : j.at("summary").at("breakdown")) {
    INFO(part.dump());
    CHECK_FALSE(std::signbit(part.at("s").get<double>()));
  }
}

TEST_CASE("the negative-zero check of the simulate test sees what it must", "[cli][simulate]") {
  CHECK(has_negative_zero("data-parallel all-reduce     -0.000 s"));
  CHECK(has_negative_zero("x -0 y"));
  CHECK_FALSE(has_negative_zero("a -0.001 s"));
  CHECK_FALSE(has_negative_zero("1e-05"));
  CHECK_FALSE(has_negative_zero("0.000 s"));
}
