// `tilescope trace`: the analyses of a trace from the command line, on the hand-written
// two-stream fixture (tests/fixtures/trace/kineto/two_streams.json; its figures are worked by hand
// in tests/unit/test_trace_analysis.cpp): a diff against a copy whose kernels were made longer and
// shorter names the operators that changed with signed times; every bad input exits 2 with one
// line naming the path, and prints nothing on stdout.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

// As the binary sees it (it runs in TILESCOPE_ROOT), and as this process reads it (ctest runs
// it in the build folder).
const std::string kTwoStreams = "tests/fixtures/trace/kineto/two_streams.json";
const std::string kTwoStreamsHere = std::string(TILESCOPE_ROOT) + "/" + kTwoStreams;

// The fixture with the sgemm 1.5 times longer (30 -> 45 us) and the add half as long (10 -> 5).
void write_scaled_copy(const std::string& path) {
  nlohmann::json trace = nlohmann::json::parse(read_text(kTwoStreamsHere));
  for (auto& e : trace["traceEvents"]) {
    const std::string name = e.value("name", "");
    if (name == "ampere_sgemm_128x64_tn") e["dur"] = e["dur"].get<double>() * 1.5;
    if (name == "vectorized_elementwise_kernel<add>") e["dur"] = e["dur"].get<double>() * 0.5;
  }
  std::ofstream(path) << trace.dump(1);
}

}  // namespace

TEST_CASE("trace diff names the operators whose kernels changed, with signed times",
          "[cli][trace]") {
  ts::test::TempDir dir("trace-diff");
  const std::string after = dir / "after.json";
  write_scaled_copy(after);

  const RunResult text = run_tilescope({"trace", "diff", kTwoStreams, after, "--step", "1"});
  REQUIRE(text.status == 0);
  INFO(text.out);
  CHECK(text.out.find("+15.0 us   +50.0 %  aten::mm") != std::string::npos);
  CHECK(text.out.find("-5.00 us   -50.0 %  aten::add") != std::string::npos);
  CHECK(text.out.find("GPU time 89.0 us -> 99.0 us (+10.0 us)") != std::string::npos);

  const RunResult json =
      run_tilescope({"trace", "diff", kTwoStreams, after, "--step", "1", "--format", "json"});
  REQUIRE(json.status == 0);
  const auto diff = nlohmann::json::parse(json.out);
  CHECK(diff["before_gpu_us"].get<double>() == Approx(89.0));
  CHECK(diff["after_gpu_us"].get<double>() == Approx(99.0));
  REQUIRE(diff["operators"].size() == 7);
  // Largest change first; the rest unchanged.
  CHECK(diff["operators"][0]["operator"] == "aten::mm");
  CHECK(diff["operators"][0]["change_us"].get<double>() == Approx(15.0));
  CHECK(diff["operators"][1]["operator"] == "aten::add");
  CHECK(diff["operators"][1]["change_us"].get<double>() == Approx(-5.0));
  for (size_t i = 2; i < diff["operators"].size(); ++i)
    CHECK(diff["operators"][i]["change_us"].get<double>() == 0.0);

  const RunResult csv =
      run_tilescope({"trace", "diff", kTwoStreams, after, "--step", "1", "--format", "csv"});
  REQUIRE(csv.status == 0);
  CHECK(csv.out.rfind("operator,before_us,after_us,change_us,before_kernels,after_kernels\n"
                      "aten::mm,30.000,45.000,+15.000,1,1\n"
                      "aten::add,10.000,5.000,-5.000,1,1\n",
                      0) == 0);
}

TEST_CASE("trace summary as CSV and JSON carries the hand-worked figures", "[cli][trace]") {
  const RunResult csv =
      run_tilescope({"trace", "summary", kTwoStreams, "--step", "1", "--format", "csv"});
  REQUIRE(csv.status == 0);
  CHECK(csv.out ==
        "rank,step,wall_us,compute_us,communication_us,memory_us,idle_us,overlap_fraction,"
        "host_bound_idle_us,launch_delay_p50_us,max_queue\n"
        "3,1,90.000,44.000,20.000,5.000,21.000,0.5000,18.000,8.000,2\n");

  const RunResult json =
      run_tilescope({"trace", "breakdown", kTwoStreams, "--format", "json", "--top", "1"});
  REQUIRE(json.status == 0);
  const auto ranks = nlohmann::json::parse(json.out);
  REQUIRE(ranks.size() == 1);
  CHECK(ranks[0]["rank"] == 3);
  CHECK(ranks[0]["window"]["wall_us"].get<double>() == Approx(120.0));
  CHECK(ranks[0]["breakdown"]["idle_us"].get<double>() == Approx(41.0));
  CHECK(ranks[0]["kernels"]["kernels"].size() == 1);
  CHECK(ranks[0]["kernels"]["distinct_kernels"] == 8);
}

TEST_CASE("trace refuses bad input with exit 2 and one line naming it", "[cli][trace]") {
  ts::test::TempDir dir("trace-errors");
  std::filesystem::create_directory(dir / "empty");
  std::filesystem::create_directory(dir / "twice");
  std::filesystem::copy_file(kTwoStreamsHere, dir / "twice/a.json");
  std::filesystem::copy_file(kTwoStreamsHere, dir / "twice/b.json");
  std::ofstream(dir / "notes.json") << "{\"hello\": [1, 2";

  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"trace", "summary", dir / "missing.json"}, "missing.json: no such file or folder"},
      {{"trace", "summary", dir / "empty"}, "the folder holds no trace"},
      {{"trace", "summary", dir / "twice"}, "rank 3 again"},
      {{"trace", "summary", "tests/fixtures/trace/kineto/bert_step_truncated.json"},
       "bert_step_truncated.json:81:14"},
      {{"trace", "idle", kTwoStreams, "--step", "9"}, "has no ProfilerStep#9; it has steps 1, 2"},
      {{"trace", "summary", "samples/arch/nvidia-a100.yaml"}, "not a trace tilescope reads"},
      {{"trace", "summary", dir / "notes.json"}, "notes.json"},
      {{"trace", "diff", kTwoStreams, dir / "missing.json"}, "missing.json"},
  };
  for (const Case& c : cases) {
    const RunResult r = run_tilescope(c.args);
    INFO(r.command << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.says) != std::string::npos);
    // One line: no dump of the input.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') <= 2);
  }
}
