// Outputs are written whole or not at all. A file size limit (RLIMIT_FSIZE) stands in for a full
// disk: every write past it fails, as on a disk that fills up part way, and the command must exit
// 2 naming the file, with nothing changed or left behind in the folder.
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

#include "RunTilescope.hpp"

using namespace ts::cli_test;
namespace fs = std::filesystem;

namespace {

struct Folder {
  fs::path path;
  Folder() {
    path = fs::temp_directory_path() /
           ("tilescope-full-disk-" + std::to_string(::getpid()) + "-" + std::to_string(next()));
    fs::create_directories(path);
  }
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  static int next() {
    static int n = 0;
    return n++;
  }
  std::set<std::string> names() const {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(path))
      out.insert(fs::relative(e.path(), path).string());
    return out;
  }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string bytes_of(const std::string& path) { return read_text(path); }

// For run_tilescope's child: writes past `Bytes` fail (the captured output counts too).
template <rlim_t Bytes>
void limit_file_size() {
  const rlimit limit{Bytes, Bytes};
  ::setrlimit(RLIMIT_FSIZE, &limit);
}

}  // namespace

TEST_CASE("a PDF report cut short by a full disk is an error and leaves nothing",
          "[cli][report][files]") {
  Folder dir;
  const std::string db = dir / "results.sqlite";
  fs::copy_file(std::string(TILESCOPE_ROOT) + "/tests/fixtures/db/results-v1.sqlite", db);
  { std::ofstream(dir / "report.pdf") << "an older report"; }
  const auto before = dir.names();
  const std::string db_bytes = bytes_of(db);
  // The report is about 1 MB: 16 KiB is far short of it.
  const RunResult r =
      run_tilescope({"report", "--db", db, "--run", "1", "--out", dir / "report.pdf"}, 120,
                    limit_file_size<16 * 1024>);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(dir / "report.pdf") && Catch::Contains("cannot write") &&
                        Catch::Contains("File too large"));
  CHECK(dir.names() == before);
  CHECK(read_text(dir / "report.pdf") == "an older report");
  CHECK(bytes_of(db) == db_bytes);
}

TEST_CASE("saved mappings are written all together or not at all", "[cli][predict][files]") {
  Folder dir;
  fs::create_directories(dir / "mappings");
  // The mapping files are 0.4-1 KB: 600 bytes lets the small ones through and stops the others.
  const RunResult r =
      run_tilescope({"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
                     "samples/workloads/bert-base.yaml", "--save-mappings", dir / "mappings"},
                    120, limit_file_size<600>);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains("cannot write") && Catch::Contains("File too large"));
  CHECK(dir.names() == std::set<std::string>{"mappings"});
}

TEST_CASE("a graph's name cannot put saved mappings outside the folder", "[cli][predict][files]") {
  Folder dir;
  std::string graph = read_text(std::string(TILESCOPE_ROOT) + "/samples/arch/ascend910b3.yaml");
  const size_t at = graph.find("\nname:");
  REQUIRE(at != std::string::npos);
  graph.replace(at, graph.find('\n', at + 1) - at, "\nname: ../../escaped");
  // The graph's mapping templates are found relative to it, as in samples/.
  fs::create_directories(dir / "arch/out");
  fs::create_directories(dir / "mappings");
  for (const char* t : {"gemm", "vector"}) {
    const std::string name = std::string("ascend910b3-") + t + "-template.yaml";
    fs::copy_file(std::string(TILESCOPE_ROOT) + "/samples/mappings/" + name,
                  dir / ("mappings/" + name));
  }
  { std::ofstream(dir / "arch/graph.yaml") << graph; }
  const auto before = dir.names();
  const RunResult r = run_tilescope({"predict", "--arch", dir / "arch/graph.yaml", "--workload",
                                     "samples/workloads/bert-base.yaml", "--op", "ffn_down",
                                     "--save-mappings", dir / "arch/out"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Exactly one new file, inside the folder, its name made safe.
  std::vector<std::string> added;
  for (const std::string& n : dir.names())
    if (!before.count(n)) added.push_back(n);
  REQUIRE(added.size() == 1);
  CHECK(added[0].rfind("arch/out/", 0) == 0);
  CHECK(added[0].find('/', std::string("arch/out/").size()) == std::string::npos);
  CHECK_THAT(added[0], Catch::EndsWith("escaped-bert-base-ffn_down.yaml"));
}

TEST_CASE("an import into a new database that fails leaves no database behind",
          "[cli][import][files]") {
  Folder dir;
  const std::string db = dir / "new.sqlite";
  // The first pages of the schema fit, the runs do not.
  const RunResult r = run_tilescope(
      {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db}, 120,
      limit_file_size<8192>);
  INFO(r.err);
  CHECK(r.status == 2);
  // One line naming the database asked for, not the temporary it was built under.
  CHECK(split_lines(r.err).size() == 1);
  CHECK(r.err.rfind(db + ": cannot open the results database", 0) == 0);
  CHECK(dir.names().empty());  // no database, -wal, -shm or temporary

  // The same import with room succeeds, and the database appears whole.
  const RunResult ok = run_tilescope(
      {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db});
  INFO(ok.err);
  REQUIRE(ok.status == 0);
  CHECK(dir.names().count("new.sqlite") == 1);
  const RunResult runs = run_tilescope({"db", "runs", "--db", db});
  CHECK(runs.status == 0);
  CHECK_THAT(runs.out, Catch::Contains("complete"));
}

TEST_CASE("a failed import into an existing database changes nothing in it",
          "[cli][import][files]") {
  Folder dir;
  const std::string db = dir / "results.sqlite";
  fs::copy_file(std::string(TILESCOPE_ROOT) + "/tests/fixtures/db/results-v1.sqlite", db);
  // Migrate it first (a write), so that the failed import is the only thing that could change it.
  REQUIRE(run_tilescope(
              {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db})
              .status == 0);
  // Its runs, read from a copy: a reader of a WAL database leaves an empty -wal and a -shm beside
  // it (SQLite's, for the next reader), which would hide what the failed import leaves.
  Folder copy;
  fs::copy_file(db, copy / "results.sqlite");
  const RunResult before = run_tilescope({"db", "runs", "--db", copy / "results.sqlite"});
  REQUIRE(before.status == 0);
  const auto names = dir.names();
  REQUIRE(names == std::set<std::string>{"results.sqlite"});
  const std::string db_bytes = bytes_of(db);
  RunResult r;
  SECTION("too full to open it") {
    // Opening a WAL database sizes its -shm to 32 KiB: 4 KiB is not enough for that.
    r = run_tilescope(
        {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db}, 120,
        limit_file_size<4096>);
    CHECK_THAT(r.err, Catch::Contains("cannot open the results database"));
  }
  SECTION("full part way through the import") {
    // 64 KiB lets the -shm (32 KiB) and the database (under 32 KiB) through; 3000 rows of
    // measurements, each with its operator, fill the write-ahead log past it.
    Folder rows;  // apart, so that the folder of the database holds nothing new
    const std::string csv = rows / "rows.csv";
    {
      std::ofstream out(csv);
      out << "M,N,K,measured_us\n";
      for (int i = 1; i <= 3000; ++i) out << 16 * i << ",64,64," << i << "\n";
    }
    REQUIRE(fs::file_size(db) < 32 * 1024);
    r = run_tilescope({"import", "csv", csv, "--op", "gemm", "--scope", "host_call", "--db", db},
                      120, limit_file_size<64 * 1024>);
    CHECK_THAT(r.err, Catch::Contains("cannot write the results database"));
  }
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(split_lines(r.err).size() == 1);
  CHECK(r.err.rfind(db + ": ", 0) == 0);
  // The same bytes, the same runs, and no -wal, -shm or journal left beside it.
  CHECK(bytes_of(db) == db_bytes);
  CHECK(dir.names() == names);
  const RunResult after = run_tilescope({"db", "runs", "--db", db});
  CHECK(after.out == before.out);
}

TEST_CASE("a db export cut short by a full disk is an error and leaves nothing",
          "[cli][db][files]") {
  Folder dir;
  const std::string db = dir / "results.sqlite";
  fs::copy_file(std::string(TILESCOPE_ROOT) + "/tests/fixtures/db/results-v1.sqlite", db);
  { std::ofstream(dir / "export.csv") << "an older export"; }
  const auto before = dir.names();
  const std::string db_bytes = bytes_of(db);
  // With room, run 1's export (519 bytes) is more than the 256 bytes the full disk leaves.
  const RunResult whole = run_tilescope({"db", "export", "--db", db, "--run", "1"});
  REQUIRE(whole.status == 0);
  REQUIRE(whole.out.size() > 256);
  const RunResult r =
      run_tilescope({"db", "export", "--db", db, "--run", "1", "--out", dir / "export.csv"}, 120,
                    limit_file_size<256>);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(split_lines(r.err).size() == 1);
  CHECK(r.err.rfind(dir / "export.csv" + ": ", 0) == 0);
  CHECK_THAT(r.err, Catch::Contains("cannot write") && Catch::Contains("File too large"));
  CHECK(dir.names() == before);  // no temporary beside it
  CHECK(read_text(dir / "export.csv") == "an older export");
  CHECK(bytes_of(db) == db_bytes);
}

TEST_CASE("a measurement plan cut short by a full disk is an error and leaves nothing",
          "[cli][measure][cupti][files]") {
  // `measure --collector cupti --plan` writes the plan for the runner; the one collector that
  // writes without hardware (host measures for seconds before it writes, and each of its rows
  // is a committed transaction of its own).
  Folder dir;
  const std::vector<std::string> args{"measure",
                                      "--collector",
                                      "cupti",
                                      "--workload",
                                      "tests/fixtures/cupti/small-gpu-suite.yaml",
                                      "--arch",
                                      "samples/arch/nvidia-h200.yaml",
                                      "--mappings-per-gemm",
                                      "2",
                                      "--repetitions",
                                      "10",
                                      "--plan",
                                      dir / "suite.plan"};
  { std::ofstream(dir / "suite.plan") << "an older plan"; }
  const auto before = dir.names();
  const RunResult r = run_tilescope(args, 120, limit_file_size<1024>);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(split_lines(r.err).size() == 1);
  CHECK(r.err.rfind(dir / "suite.plan" + ": ", 0) == 0);
  CHECK_THAT(r.err, Catch::Contains("cannot write") && Catch::Contains("File too large"));
  CHECK(dir.names() == before);
  CHECK(read_text(dir / "suite.plan") == "an older plan");
  // With room, the plan is far larger than the 1 KiB the full disk left.
  const RunResult ok = run_tilescope(args);
  INFO(ok.err);
  REQUIRE(ok.status == 0);
  CHECK(read_text(dir / "suite.plan").size() > 1024);
}
