// Loaders refuse what they cannot represent (issue 40), the parts outside the trace readers:
// statistics over no data, a wrong TILESCOPE_DATA, two outputs that are one file.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;

const std::string kRoot = std::string(TILESCOPE_ROOT) + "/";

}  // namespace

TEST_CASE("validate-dist over an empty list of runs is an error at `runs`, not 0.0 %",
          "[refusals]") {
  const std::string file = kRoot + "tests/fixtures/refusals/dist-validation-no-runs.yaml";
  const RunResult r = run_tilescope({"validate-dist", file});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.find("0.0 %") == std::string::npos);
  CHECK(r.err.rfind(file + ":7:", 0) == 0);
  CHECK(r.err.find("at least one run") != std::string::npos);
}

TEST_CASE("a wrong TILESCOPE_DATA is an error, not an install without profiles", "[refusals]") {
  ts::test::TempDir dir("data-env");
  ::setenv("TILESCOPE_DATA", (dir / "nowhere").c_str(), 1);
  const RunResult r = run_tilescope({"profiles", "list"});
  ::unsetenv("TILESCOPE_DATA");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.rfind("TILESCOPE_DATA: '" + (dir / "nowhere") + "' holds no samples/", 0) == 0);
}

TEST_CASE("operators a/b and a_b are not saved over each other", "[refusals]") {
  ts::test::TempDir dir("save-clash");
  const std::string suite = dir / "clash.yaml";
  {
    std::ofstream out(suite);
    out << "version: 1\nkind: workload\nname: clash\ndtype: fp16\noperators:\n"
           "  - {name: a/b, type: gemm, M: 64, N: 64, K: 64}\n"
           "  - {name: a_b, type: gemm, M: 128, N: 64, K: 64}\n";
  }
  const std::string saved = dir / "mappings";
  const RunResult r = run_tilescope({"predict", "--arch", kRoot + "tests/fixtures/arch/tiny.yaml",
                                     "--workload", suite, "--save-mappings", saved});
  INFO(r.out << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("two of the outputs are this one file") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(saved + "/tiny-clash-a_b.yaml"));
}
