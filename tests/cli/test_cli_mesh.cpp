// The mesh sample: a core hands a block to its neighbour's scratchpad over the mesh link.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"

using namespace ts::cli_test;

TEST_CASE("a trans to the same memory crosses the mesh link", "[cli][mesh]") {
  const RunResult r = run_tilescope({"predict", "--arch", "samples/arch/mesh-4x4.yaml",
                                     "--workload", "samples/workloads/bert-base.yaml", "--mapping",
                                     "samples/mappings/mesh-4x4-neighbour-bias-gelu.yaml",
                                     "--format", "json", "--explain"});
  INFO(r.command << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["operators"].size() == 1);
  const auto& op = j["operators"][0];
  double link = 0, to_dram = 0;
  for (const auto& t : op["traffic"]) {
    if (t["edge"] == "Scratchpad->Scratchpad") link = t["bytes"].get<double>();
    if (t["edge"] == "Scratchpad->DRAM") to_dram = t["bytes"].get<double>();
  }
  // The intermediate T1 (4096 x 3072 fp16) crosses the link once; only Y goes back to DRAM.
  CHECK(link == Approx(4096.0 * 3072 * 2));
  CHECK(to_dram == Approx(4096.0 * 3072 * 2));
  CHECK(op["explain"].get<std::string>().find(
            "trans T1 -> Scratchpad  via Scratchpad->Scratchpad") != std::string::npos);
}
