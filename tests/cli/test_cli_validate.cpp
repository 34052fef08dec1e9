// `tilescope validate` on every bundled input file.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "RunTilescope.hpp"

using namespace ts::cli_test;

TEST_CASE("validate accepts every bundled file", "[cli][validate][slow]") {
  const std::string folder =
      GENERATE(as<std::string>{}, "samples/arch", "samples/workloads", "samples/mappings",
               "samples/dist/models", "samples/dist/strategies", "samples/dist/clusters",
               "samples/dist/validation");
  const std::vector<std::string> files = files_in(folder);
  REQUIRE_FALSE(files.empty());

  SECTION("one at a time") {
    for (const std::string& file : files) {
      const RunResult r = run_tilescope({"validate", file});
      INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.status == 0);
      CHECK(r.err.empty());
      const auto lines = split_lines(r.out);
      REQUIRE(lines.size() == 1);
      CHECK(lines[0].rfind(file + ":", 0) == 0);
    }
  }
  SECTION("all together") {
    std::vector<std::string> args{"validate"};
    args.insert(args.end(), files.begin(), files.end());
    const RunResult r = run_tilescope(args);
    INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(split_lines(r.out).size() == files.size());  // one line per file
  }
}

TEST_CASE("validate checks the bench mapping against its graph and operator", "[cli][validate]") {
  const RunResult r =
      run_tilescope({"validate", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
                     "samples/workloads/vit-b16.yaml", "samples/mappings/bench-ascend-gemm.yaml"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(split_lines(r.out).size() == 1);
}
