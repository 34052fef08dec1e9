// `tilescope predict --objective latency|energy|edp`: what the mapper minimises. On the bundled
// Eyeriss-like graph (which gives energies) the energy objective prints and writes a mapping
// that uses less energy and takes longer than the default's; an unknown objective, and an
// energy objective on a graph without energy figures, are refused with exit status 2.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

RunResult predict_ffn_up(const std::vector<std::string>& more) {
  std::vector<std::string> args{"predict",
                                "--arch",
                                "samples/arch/eyeriss-12x14.yaml",
                                "--workload",
                                "samples/workloads/bert-base.yaml",
                                "--op",
                                "ffn_up"};
  args.insert(args.end(), more.begin(), more.end());
  return run_tilescope(args);
}

}  // namespace

TEST_CASE("predict --objective energy writes a mapping that trades time for energy",
          "[cli][predict][mapper][energy]") {
  const RunResult fast = predict_ffn_up({"--format", "json"});
  const RunResult frugal = predict_ffn_up({"--objective", "energy", "--format", "json"});
  INFO(frugal.command << "\nstderr: " << frugal.err);
  REQUIRE(fast.status == 0);
  REQUIRE(frugal.status == 0);
  const json a = json::parse(fast.out)["operators"][0];
  const json b = json::parse(frugal.out)["operators"][0];
  REQUIRE(a["energy_pj"].is_number());
  REQUIRE(b["energy_pj"].is_number());
  CHECK(b["energy_pj"].get<double>() < a["energy_pj"].get<double>());
  CHECK(b["latency_us"].get<double>() > a["latency_us"].get<double>());
  CHECK(a["mapping"] == "mapper");
  CHECK(b["mapping"] == "mapper, lowest energy");

  // The table says the objective in the mapping column and prints the energy.
  const RunResult table = predict_ffn_up({"--objective", "edp"});
  INFO(table.err);
  REQUIRE(table.status == 0);
  CHECK(table.out.find("mapper, lowest EDP") != std::string::npos);
  CHECK(table.out.find("\nenergy: ") != std::string::npos);
}

TEST_CASE("predict refuses an unknown objective and an energy objective without energies",
          "[cli][predict][mapper][energy]") {
  const RunResult wrong = predict_ffn_up({"--objective", "speed"});
  INFO(wrong.command << "\nstderr: " << wrong.err);
  CHECK(wrong.status == 2);
  CHECK(wrong.out.empty());
  CHECK(wrong.err.find("--objective") != std::string::npos);
  CHECK(wrong.err.find("speed") != std::string::npos);

  // A graph written here, without any energy key (a bundled one may gain them).
  ts::test::TempDir dir("objective");
  const std::string graph = dir / "plain.yaml";
  std::ofstream(graph) << R"(version: 1
kind: architecture
name: plain
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: SRAM, type: memory, capacity: 1MiB}
  - name: PE
    type: compute
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 256, granule: [8, 8, 4]}
edges:
  - {from: DRAM, to: SRAM, bandwidth: 64B/cycle}
  - {from: SRAM, to: DRAM, bandwidth: 64B/cycle}
  - {from: SRAM, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: SRAM, bandwidth: 1024B/cycle}
)";
  for (const char* objective : {"energy", "edp"}) {
    const RunResult r =
        run_tilescope({"predict", "--arch", graph, "--workload", "samples/workloads/bert-base.yaml",
                       "--op", "ffn_up", "--objective", objective});
    INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    const std::vector<std::string> lines = split_lines(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind(graph + ": ", 0) == 0);
    CHECK(lines[0].find("gives no energy") != std::string::npos);
    CHECK(lines[0].find("memory 'DRAM' has no `energy`") != std::string::npos);
    CHECK(lines[0].find("--objective " + std::string(objective) + " needs energy") !=
          std::string::npos);
  }
  // The default objective predicts on it as before.
  const RunResult plain = run_tilescope({"predict", "--arch", graph, "--workload",
                                         "samples/workloads/bert-base.yaml", "--op", "ffn_up"});
  INFO(plain.err);
  CHECK(plain.status == 0);
}
