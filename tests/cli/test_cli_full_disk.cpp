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
  const RunResult before = run_tilescope({"db", "info", "--db", db});
  REQUIRE(before.status == 0);
  const auto names = dir.names();
  // Pages of the import go to the write-ahead log first: 4 KiB of it is far from enough.
  const RunResult r = run_tilescope(
      {"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db", db}, 120,
      limit_file_size<4096>);
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::Contains(db));
  const RunResult after = run_tilescope({"db", "info", "--db", db});
  CHECK(after.out == before.out);
}
