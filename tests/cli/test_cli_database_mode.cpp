// A database tilescope creates is as readable as any file the user creates: mode 0666 less the
// umask (0644 under the usual 022), not mkstemp's 0600, whichever way it is created (an import
// links a finished temporary into place; a sweep opens it through SQLite).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

void child_umask_022() { ::umask(022); }
void child_umask_027() { ::umask(027); }

unsigned database_mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 0777;
}

}  // namespace

TEST_CASE("an imported database is created with the umask's mode", "[cli][import][store]") {
  ts::test::TempDir dir("db-mode");
  for (const auto& [in_child, expected] :
       {std::pair{&child_umask_022, 0644u}, {&child_umask_027, 0640u}}) {
    const std::string db = dir / ("results-" + std::to_string(expected) + ".sqlite");
    const RunResult r = run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db",
                                       db, "--op", "gemm", "--scope", "device"},
                                      120, in_child);
    INFO(r.command << "\n" << r.err);
    REQUIRE(r.status == 0);
    CHECK(database_mode_of(db) == expected);
  }
}

TEST_CASE("a sweep's database is created with the umask's mode", "[cli][sweep][store]") {
  ts::test::TempDir dir("db-mode");
  const std::string db = dir / "points.sqlite";
  const std::string workload = dir / "ffn.yaml";
  std::ofstream(workload) << "version: 1\nkind: workload\nname: ffn\noperators:\n"
                             "  - {name: ffn_down, type: gemm, M: 512, N: 512, K: 512}\n";
  const RunResult r =
      run_tilescope({"sweep", "--arch", "samples/arch/nvidia-h100.yaml", "--workload", workload,
                     "--budget", "20", "--db", db, "--vary", "node:HBM.capacity=80GiB"},
                    120, &child_umask_022);
  INFO(r.command << "\n" << r.err);
  REQUIRE(r.status == 0);
  CHECK(database_mode_of(db) == 0644u);
}
