#pragma once
// An import that must fail into a results database that already holds a run: exit 2, one line
// on stderr that starts with `expected_start` and holds each of `words`, nothing on stdout, and
// the database byte for byte what it was, with nothing beside it. Shared by the CLI tests of
// the trace importers and of what they refuse.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace ts::cli_test {

inline void check_refused_unchanged(const std::vector<std::string>& import_args,
                                    const std::string& expected_start,
                                    const std::vector<std::string>& words = {}) {
  ts::test::TempDir dir("import-refused");
  const std::string db = dir / "results.sqlite";
  REQUIRE(run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db", db, "--op",
                         "gemm", "--scope", "device"})
              .status == 0);
  const std::string before = read_text(db);
  const std::vector<std::string> names = dir.names();
  std::vector<std::string> args = import_args;
  args.insert(args.end(), {"--db", db});
  const RunResult r = run_tilescope(args);
  INFO(r.command << "\nexit " << r.status << "\nstderr: " << r.err);
  CHECK_FALSE(r.signaled);
  CHECK(r.status == 2);
  CHECK(r.err.rfind(expected_start, 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  for (const std::string& word : words) {
    INFO("the message should mention '" << word << "'");
    CHECK(r.err.find(word) != std::string::npos);
  }
  CHECK(r.out.empty());
  CHECK(read_text(db) == before);
  CHECK(dir.names() == names);
}

}  // namespace ts::cli_test
