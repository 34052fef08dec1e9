// `tilescope predict` says whether each operator's mapper search converged, and warns on stderr
// (one line per operator, naming it and suggesting --budget) when the budget ran out first.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("predict warns when a mapper search runs out of budget", "[cli][predict][mapper]") {
  // Twenty evaluations on a space of billions of points: the first descent is still improving.
  const RunResult r = run_tilescope({"predict", "--arch", "samples/arch/nvidia-h100.yaml",
                                     "--workload", "samples/workloads/bert-base.yaml", "--op",
                                     "ffn_down", "--budget", "20", "--format", "json"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK(count_of(r.err, "warning:") == 1);
  CHECK(r.err.find("'ffn_down'") != std::string::npos);
  CHECK(r.err.find("did not converge") != std::string::npos);
  CHECK(r.err.find("--budget") != std::string::npos);
  const json doc = json::parse(r.out);
  REQUIRE(doc["operators"].size() == 1);
  CHECK(doc["operators"][0]["mapper_converged"] == false);
  CHECK(doc["operators"][0]["mapper_evaluations"].get<uint64_t>() >= 20);
  CHECK(doc["operators"][0]["mapping"] == "mapper");  // the existing keys stay
}

TEST_CASE("predict says a search converged and then warns of nothing", "[cli][predict][mapper]") {
  const RunResult r =
      run_tilescope({"predict", "--arch", "samples/arch/nvidia-h100.yaml", "--workload",
                     "samples/workloads/bert-base.yaml", "--op", "ffn_down"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find("warning:") == std::string::npos);
  CHECK(r.out.find(" search ") != std::string::npos);  // the column
  std::string row;
  for (const std::string& line : split_lines(r.out))
    if (line.rfind("ffn_down ", 0) == 0) row = line;
  CHECK(row.find(" converged ") != std::string::npos);
  // A mapping from a file was not searched: the column says so with a dash, and JSON has no key.
  const RunResult file =
      run_tilescope({"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
                     "samples/workloads/vit-b16.yaml", "--mapping",
                     "samples/mappings/bench-ascend-gemm.yaml", "--format", "json"});
  INFO(file.err);
  REQUIRE(file.status == 0);
  const json doc = json::parse(file.out);
  CHECK_FALSE(doc["operators"][0].contains("mapper_converged"));
}
