// `tilescope db info|runs|export` on committed results databases (tests/fixtures/db, written by
// make_fixtures.py). Every case works on a copy in a fresh folder, so that it can also check
// that the command changed nothing: not the file's bytes, and no -wal, -shm or -journal beside.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunTilescope.hpp"

namespace {

using namespace ts::cli_test;
namespace fs = std::filesystem;

// A fresh folder holding a copy of one fixture; removed at the end of the test.
class FixtureCopy {
 public:
  explicit FixtureCopy(const std::string& name) {
    std::string pattern = (fs::temp_directory_path() / "tilescope-db-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    dir_ = pattern;
    path_ = (dir_ / name).string();
    fs::copy_file(fixture("db/" + name), path_);
    bytes_ = read_text(path_);
  }
  ~FixtureCopy() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  FixtureCopy(const FixtureCopy&) = delete;
  FixtureCopy& operator=(const FixtureCopy&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename());
    std::sort(out.begin(), out.end());
    return out;
  }
  void check_untouched() const {
    CHECK(read_text(path_) == bytes_);
    CHECK(names() == std::vector<std::string>{fs::path(path_).filename().string()});
  }

 private:
  fs::path dir_;
  std::string path_;
  std::string bytes_;
};

#define CHECK_RAN(r)                                                         \
  do {                                                                       \
    INFO((r).command << "\nexit " << (r).status << "\nstderr: " << (r).err); \
    REQUIRE((r).status == 0);                                                \
    CHECK((r).err.empty());                                                  \
  } while (0)

}  // namespace

TEST_CASE("db info: schema, rows per table, runs by status", "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const RunResult table = run_tilescope({"db", "info", "--db", db.path()});
  CHECK_RAN(table);
  CHECK_THAT(table.out, Catch::Contains(db.path()));
  CHECK_THAT(table.out, Catch::Contains("schema version  1 (this build reads up to 4)"));
  CHECK_THAT(table.out, Catch::Contains("3 (1 incomplete, 1 complete, 1 cancelled)"));
  CHECK_THAT(table.out, Catch::Contains("10240 bytes"));

  const RunResult json = run_tilescope({"db", "info", "--db", db.path(), "--format", "json"});
  CHECK_RAN(json);
  const auto info = nlohmann::json::parse(json.out);
  CHECK(info["schema_version"] == 1);
  CHECK(info["file_bytes"] == 10240);
  CHECK(info["runs"]["total"] == 3);
  CHECK(info["runs"]["incomplete"] == 1);
  CHECK(info["tables"]["devices"] == 1);
  CHECK(info["tables"]["operators"] == 3);
  CHECK(info["tables"]["mappings"] == 1);
  CHECK(info["tables"]["measurements"] == 5);
  CHECK(info["tables"]["predictions"] == 4);
  db.check_untouched();
}

TEST_CASE("db runs: one line per run, oldest first", "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const RunResult table = run_tilescope({"db", "runs", "--db", db.path()});
  CHECK_RAN(table);
  const std::vector<std::string> lines = split_lines(table.out);
  REQUIRE(lines.size() == 4);
  CHECK_THAT(lines[0], Catch::Contains("started") && Catch::Contains("measurements"));
  CHECK_THAT(lines[1], Catch::StartsWith("   1  2026-11-29T17:30:00Z  complete"));
  // The measurement count, then the label: the three runs differ only by when they started.
  CHECK_THAT(lines[1], Catch::Contains("Test CPU (host-cpu)") &&
                           Catch::EndsWith(" 4  host-suite, 2026-11-29 17:30"));
  CHECK_THAT(lines[2],
             Catch::Contains("incomplete") && Catch::EndsWith(" 1  host-suite, 2026-11-30 08:00"));
  CHECK_THAT(lines[3],
             Catch::Contains("cancelled") && Catch::EndsWith(" 0  host-suite, 2026-11-30 09:00"));

  const RunResult json = run_tilescope({"db", "runs", "--db", db.path(), "--format", "json"});
  CHECK_RAN(json);
  const auto runs = nlohmann::json::parse(json.out)["runs"];
  REQUIRE(runs.size() == 3);
  CHECK(runs[0]["id"] == 1);
  CHECK(runs[0]["finished_at"] == "2026-11-29T17:31:00Z");
  CHECK(runs[0]["device"]["arch_hash"] == "00112233445566aa");
  CHECK(runs[0]["measurements"] == 4);
  CHECK(runs[0]["label"] == "host-suite, 2026-11-29 17:30");
  CHECK(runs[1]["status"] == "incomplete");
  CHECK(runs[1]["finished_at"].is_null());
  CHECK(runs[2]["status"] == "cancelled");
  db.check_untouched();
}

TEST_CASE("db export: each measurement with the prediction for its timing scope", "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const RunResult csv = run_tilescope({"db", "export", "--db", db.path(), "--run", "1"});
  CHECK_RAN(csv);
  const std::vector<std::string> lines = split_lines(csv.out);
  REQUIRE(lines.size() == 5);
  CHECK(lines[0] ==
        "suite,name,type,dims,implementation,mapping_hash,timing_scope,repetitions,min_us,"
        "median_us,spread,checked,predicted_us");
  // host_call: device + launch (1000 + 5 us); the other graph's prediction is not this run's.
  CHECK(lines[1] ==
        "host-suite,gemm_512,gemm,M=512 N=512 K=512,tiled,0123456789abcdef,host_call,20,"
        "1200.000,1250.000,0.05,true,1005.000");
  // A black box meets the mapper-chosen prediction.
  CHECK(lines[2] ==
        "host-suite,gemm_512,gemm,M=512 N=512 K=512,openblas,,host_call,20,800.000,850.000,0.05,"
        "true,905.000");
  // device: the device time alone.
  CHECK(lines[3] ==
        "host-suite,softmax_1k,softmax,R=1024 C=1024,vector,,device,20,40.000,42.000,0.05,true,"
        "30.000");
  CHECK(lines[4] ==
        "host-suite,layernorm_1k,layernorm,R=1024 C=1024,vector,,device,20,60.000,61.000,0.05,"
        "true,");

  const RunResult json =
      run_tilescope({"db", "export", "--db", db.path(), "--run", "1", "--format", "json"});
  CHECK_RAN(json);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["run"]["id"] == 1);
  CHECK(doc["run"]["arch_hash"] == "00112233445566aa");
  const auto rows = doc["measurements"];
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["mapping_hash"] == "0123456789abcdef");
  CHECK(rows[0]["predicted_us"].get<double>() == Approx(1005.0));
  CHECK(rows[1]["mapping_hash"].is_null());
  CHECK(rows[2]["timing_scope"] == "device");
  CHECK(rows[2]["predicted_us"].get<double>() == Approx(30.0));
  CHECK(rows[3]["predicted_us"].is_null());
  CHECK(rows[0]["min_us"].get<double>() == Approx(1200.0));
  db.check_untouched();
}

TEST_CASE(
    "db export: the latest run with a measurement by default, and --out through a "
    "temporary file",
    "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const RunResult second = run_tilescope({"db", "export", "--db", db.path(), "--run", "2"});
  CHECK_RAN(second);
  REQUIRE(split_lines(second.out).size() == 2);
  CHECK_THAT(split_lines(second.out)[1], Catch::StartsWith("host-suite,softmax_1k,"));
  // Run 3 was cancelled before it measured anything: the default is run 2, not an empty export.
  const RunResult latest = run_tilescope({"db", "export", "--db", db.path()});
  CHECK_RAN(latest);
  CHECK(latest.out == second.out);

  // Into a folder of its own, so that a leftover temporary file would show.
  TempFile marker;  // a unique name for the folder
  const fs::path out_dir = marker.path() + ".d";
  fs::create_directory(out_dir);
  const std::string out = (out_dir / "run2.csv").string();
  const RunResult written =
      run_tilescope({"db", "export", "--db", db.path(), "--run", "2", "--out", out});
  CHECK_RAN(written);
  CHECK(written.out.empty());
  CHECK(read_text(out) == second.out);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out_dir)) names.push_back(e.path().filename());
  CHECK(names == std::vector<std::string>{"run2.csv"});
  fs::remove_all(out_dir);
  db.check_untouched();
}

TEST_CASE("db export: an unknown run is an input error naming the database", "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const RunResult r = run_tilescope({"db", "export", "--db", db.path(), "--run", "9"});
  INFO(r.command << "\nstderr: " << r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == db.path() + ": no run 9 (its runs are 1 to 3)\n");
  db.check_untouched();
}

TEST_CASE("db: a missing database is an input error and is not created", "[cli][db]") {
  FixtureCopy db("results-v1.sqlite");
  const std::string missing = db.file("missing.sqlite");
  for (const char* sub : {"info", "runs", "export"}) {
    const RunResult r = run_tilescope({"db", sub, "--db", missing});
    INFO(r.command << "\nstderr: " << r.err);
    CHECK(r.status == 2);
    CHECK(r.err == missing + ": no such results database\n");
    CHECK_FALSE(fs::exists(missing));
  }
}

namespace {

struct BadDatabase {
  std::string fixture;
  std::string message;  // after `<path>: `
};

}  // namespace

TEST_CASE("db: a corrupt, foreign or newer file is refused and left as it was", "[cli][db]") {
  const BadDatabase bad = GENERATE(
      BadDatabase{"corrupt.sqlite", "not a tilescope results database: file is not a database"},
      BadDatabase{"foreign.sqlite",
                  "not a tilescope results database: it is an SQLite file of another program "
                  "(tables: contacts)"},
      BadDatabase{"newer-schema.sqlite",
                  "was written by a newer tilescope (schema 99, this build reads up to 4)"});
  const std::string sub = GENERATE("info", "runs", "export");
  FixtureCopy db(bad.fixture);
  const RunResult r = run_tilescope({"db", sub, "--db", db.path()});
  INFO(r.command << "\nexit " << r.status << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK_FALSE(r.signaled);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == db.path() + ": " + bad.message + "\n");
  db.check_untouched();
}
