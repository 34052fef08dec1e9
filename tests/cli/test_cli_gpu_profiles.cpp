// `tilescope profiles new gpu` (issue 35, must-show 1): the L4's datasheet figures give a profile
// that `predict --arch` accepts, by its graph's path and as profile:l4; every figure not given is
// printed with the rule it comes from; a missing figure or an occupied --out is refused with exit
// status 2 and nothing written.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
namespace fs = std::filesystem;

namespace {

// The L4's datasheet figures as flags (NVIDIA L4 datasheet, 2023: dense tensor rates, half the
// printed sparse ones); shared memory and registers per SM are left to the ada rules.
std::vector<std::string> l4_flags(const std::string& out) {
  // clang-format off
  return {"profiles", "new", "gpu",
          "--name", "l4", "--product", "NVIDIA L4", "--generation", "ada",
          "--sms", "58", "--clock", "2.04GHz",
          "--memory-bandwidth", "300GB/s", "--memory-capacity", "24GB", "--l2", "48MiB",
          "--fp32", "30.3TFLOP/s",
          "--tensor", "fp16=121TFLOP/s,bf16=121TFLOP/s,tf32=60TFLOP/s,fp8=242.5TFLOP/s,int8=242.5TOP/s",
          "--power", "72W", "--calibration", "none", "--out", out};
  // clang-format on
}

std::vector<std::string> without(std::vector<std::string> args, const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) {
      args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
      break;
    }
  return args;
}

std::string line_with(const std::string& text, const std::string& part) {
  for (const std::string& line : split_lines(text))
    if (line.find(part) != std::string::npos) return line;
  return {};
}

}  // namespace

TEST_CASE(
    "profiles new gpu writes the L4's profile from its datasheet figures, and predict takes "
    "it",
    "[cli][gpu-spec]") {
  ts::test::TempDir tmp("gpu-profile");
  const std::string out = tmp / "l4";
  const RunResult r = run_tilescope(l4_flags(out));
  INFO(r.err << r.out);
  REQUIRE(r.status == 0);
  for (const char* file : {"profile.yaml", "l4.yaml", "l4.spec.yaml", "kernels/sgemm-128x64.yaml",
                           "kernels/tensorcore-gemm.yaml", "kernels/softmax-warp-per-row.yaml"})
    CHECK(fs::exists(out + "/" + file));
  // Every figure is printed with where it comes from: the ones not given, with their rule.
  CHECK_THAT(line_with(r.out, "node:RF.capacity"),
             Catch::Contains("256KiB") && Catch::Contains("rule: NVIDIA Ada GPU architecture "
                                                          "whitepaper (2022)"));
  CHECK_THAT(line_with(r.out, "node:SMEM.capacity"), Catch::Contains("rule: NVIDIA Ada tuning"));
  CHECK_THAT(line_with(r.out, "node:DRAM.bandwidth"), Catch::EndsWith("given"));
  CHECK_THAT(r.out, Catch::Contains("calibration: none (--calibration none)"));
  // The spec as used marks what came from a rule.
  const std::string spec = read_text(out + "/l4.spec.yaml");
  CHECK_THAT(spec, Catch::Contains("registers_per_sm: 256KiB") && Catch::Contains("# rule (ada)"));

  // predict takes the graph by its path ...
  const std::vector<std::string> predict = {
      "predict", "--workload", "samples/workloads/bert-base.yaml", "--op", "qkv_proj", "--format",
      "csv",     "--arch"};
  std::vector<std::string> by_path = predict;
  by_path.push_back(out + "/l4.yaml");
  const RunResult p = run_tilescope(by_path);
  INFO(p.err);
  REQUIRE(p.status == 0);
  CHECK(split_lines(p.out).size() == 2);
  // ... and as a profile on the search path.
  ts::test::TempDir xdg("gpu-profile-xdg");
  ::setenv("XDG_DATA_HOME", xdg.path().c_str(), 1);
  ::setenv("TILESCOPE_PLUGIN_PATH", tmp.path().c_str(), 1);
  std::vector<std::string> by_profile = predict;
  by_profile.push_back("profile:l4");
  const RunResult q = run_tilescope(by_profile);
  ::unsetenv("TILESCOPE_PLUGIN_PATH");
  ::unsetenv("XDG_DATA_HOME");
  INFO(q.err);
  REQUIRE(q.status == 0);
  CHECK(q.out == p.out);

  // A folder that is not empty is refused, and left as it was; --force writes into it.
  const std::string before = read_text(out + "/l4.yaml");
  const RunResult again = run_tilescope(l4_flags(out));
  CHECK(again.status == 2);
  CHECK_THAT(again.err, Catch::StartsWith("--out: " + out + " is not empty"));
  CHECK(read_text(out + "/l4.yaml") == before);
  std::vector<std::string> force = l4_flags(out);
  force.push_back("--force");
  CHECK(run_tilescope(force).status == 0);
}

TEST_CASE("profiles new gpu refuses a missing figure, naming its flag", "[cli][gpu-spec]") {
  ts::test::TempDir tmp("gpu-profile");
  const std::string out = tmp / "l4";
  const RunResult r = run_tilescope(without(l4_flags(out), "--sms"));
  CHECK(r.status == 2);
  CHECK(split_lines(r.err).size() == 1);
  CHECK_THAT(r.err, Catch::StartsWith("--sms: missing the SMs (NVIDIA) or CUs (AMD) one kernel "
                                      "sees; expected e.g. `--sms 58`"));
  CHECK_FALSE(fs::exists(out));
  // A bad quantity names its flag too.
  std::vector<std::string> bad = without(l4_flags(out), "--clock");
  bad.insert(bad.end(), {"--clock", "2.04GB"});
  const RunResult unit = run_tilescope(bad);
  CHECK(unit.status == 2);
  CHECK_THAT(unit.err, Catch::StartsWith("--clock: expected a frequency"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("profiles new gpu --spec takes a spec file, flags overriding its figures",
          "[cli][gpu-spec]") {
  ts::test::TempDir tmp("gpu-profile");
  const std::string out = tmp / "t4";
  const RunResult r =
      run_tilescope({"profiles", "new", "gpu", "--spec", "plugins/nvidia/gpus/t4.spec.yaml",
                     "--memory-bandwidth", "280GB/s", "--calibration", "none", "--out", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(line_with(r.out, "node:DRAM.bandwidth"), Catch::Contains("280GB/s"));
  CHECK_THAT(read_text(out + "/t4.spec.yaml"),
             Catch::Contains("memory_bandwidth: 280GB/s") &&
                 Catch::Contains("memory_bandwidth: the command line (--memory-bandwidth)"));
  // A spec's error is at its file:line:col.
  const RunResult bad =
      run_tilescope({"profiles", "new", "gpu", "--spec", fixture("gpu-spec/unknown-key.spec.yaml"),
                     "--out", tmp / "bad"});
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::StartsWith(fixture("gpu-spec/unknown-key.spec.yaml") + ":8:1: "));
}
