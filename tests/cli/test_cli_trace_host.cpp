// `tilescope trace host`: the host's time per call by kind from a profile (the hand-written
// fixture tests/fixtures/trace/kineto/host_calls.json, its figures worked in
// tests/unit/test_host_call_costs.cpp), printed as a cluster file's `host:` section that
// `simulate` then prices the host with.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

const std::string kHostCalls = "tests/fixtures/trace/kineto/host_calls.json";

double iteration_s(const RunResult& r) {
  return nlohmann::json::parse(r.out).at("summary").at("iteration_s").get<double>();
}

}  // namespace

TEST_CASE("trace host prints the profile's cost per call as a cluster's host section",
          "[cli][trace][host]") {
  const RunResult text = run_tilescope({"trace", "host", kHostCalls});
  REQUIRE(text.status == 0);
  INFO(text.out);
  CHECK(text.out.find("autograd_node        1    18.0 us    18.0 us    18.0 us") !=
        std::string::npos);
  CHECK(text.out.find("8 launch calls, median 4.00 us") != std::string::npos);
  const std::string host_line =
      "host: {aten_op: 6.0us, gemm: 16.0us, fused_op: 7.0us, collective: 15.0us, "
      "autograd_node: 18.0us, view: 2.0us}";
  REQUIRE(text.out.find(host_line) != std::string::npos);

  const RunResult json =
      run_tilescope({"trace", "host", kHostCalls, "--step", "2", "--format", "json"});
  REQUIRE(json.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at(0).at("kinds").at("aten_op").at("median_ns") == 20000);
  CHECK(doc.at(0).at("host").at("aten_op") == "20.0us");
  CHECK_FALSE(doc.at(0).at("host").contains("gemm"));
  // Step 2 has no GEMM: no time for it, not 0.
  CHECK(doc.at(0).at("kinds").at("gemm").at("calls") == 0);
  CHECK(doc.at(0).at("kinds").at("gemm").at("median_ns").is_null());
  const RunResult csv2 =
      run_tilescope({"trace", "host", kHostCalls, "--step", "2", "--format", "csv"});
  REQUIRE(csv2.status == 0);
  CHECK(csv2.out.find("0,gemm,0,n/a,n/a,n/a\n") != std::string::npos);

  const RunResult csv = run_tilescope({"trace", "host", kHostCalls, "--format", "csv"});
  REQUIRE(csv.status == 0);
  CHECK(csv.out.find("0,gemm,2,16000,16000,26000\n") != std::string::npos);

  const RunResult missing = run_tilescope({"trace", "host", kHostCalls, "--step", "7"});
  CHECK(missing.status == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err.find("no ProfilerStep#7") != std::string::npos);

  // The section pasted into the one-node DGX A100 cluster: the profile's autograd nodes (18 us
  // against the default 3) make the host-bound GPT 0.355B step slower than the defaults do.
  ts::test::TempDir dir("trace-host");
  std::string cluster =
      read_text(std::string(TILESCOPE_ROOT) + "/samples/dist/clusters/dgx-a100.yaml");
  cluster = std::regex_replace(cluster, std::regex("device: \\.\\./\\.\\./arch/"),
                               "device: " + std::string(TILESCOPE_ROOT) + "/samples/arch/");
  cluster = std::regex_replace(cluster, std::regex("\nhost: \\{[^}]*\\}"), "\n" + host_line);
  REQUIRE(cluster.find(host_line) != std::string::npos);
  std::ofstream(dir / "profiled.yaml") << cluster;
  const std::vector<std::string> run = {"simulate",
                                        "--model",
                                        "samples/dist/models/gpt-355m.yaml",
                                        "--strategy",
                                        "samples/dist/strategies/gpt-355m-tp8.yaml",
                                        "--format",
                                        "json",
                                        "--cluster"};
  auto with = [&](const std::string& c) {
    std::vector<std::string> args = run;
    args.push_back(c);
    return args;
  };
  const RunResult defaults = run_tilescope(with("samples/dist/clusters/dgx-a100.yaml"));
  const RunResult profiled = run_tilescope(with(dir / "profiled.yaml"));
  REQUIRE(defaults.status == 0);
  REQUIRE(profiled.status == 0);
  CHECK(iteration_s(profiled) > 1.1 * iteration_s(defaults));
}
