// The results database: what goes in comes back out, a crash keeps what was committed, older
// layouts are migrated, and a file that is not ours (or is newer) is refused without a byte of
// it, or anything beside it, changing.
#include <SQLiteCpp/SQLiteCpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "measure/StoreSchema.hpp"

using ts::test::TempDir;

using namespace ts;
namespace fs = std::filesystem;

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

OperatorKey gemm_key() {
  OperatorKey op;
  op.suite = "host-suite";
  op.name = "gemm_512";
  op.type = "gemm";
  op.dims = "M=512 N=512 K=512";
  op.dtypes = "fp32,fp32,fp32";
  op.op_class = "matmul";
  op.flops = 2.0 * 512 * 512 * 512;
  op.spec = "{type: gemm, M: 512, N: 512, K: 512}";
  return op;
}

OperatorKey softmax_key() {
  OperatorKey op;
  op.suite = "host-suite";
  op.name = "softmax_1k";
  op.type = "softmax";
  op.dims = "R=1024 C=1024";
  op.dtypes = "fp32,fp32";
  op.op_class = "reduction";
  op.flops = 5.0 * 1024 * 1024;
  return op;
}

MappingRecord gemm_mapping() {
  return {"0123456789abcdef", "gemm-tiles", "version: 1\nkind: mapping\n"};
}

RunStart host_run() {
  RunStart start;
  start.collector = "host";
  start.workload = "host-suite";
  start.tool_version = "0.1.0";
  start.settings_json = R"({"repetitions": 20})";
  start.device = {"Test CPU", "host-cpu", "00112233445566aa", R"({"cores": 4})"};
  return start;
}

Measurement tiled_gemm() {
  Measurement m;
  m.op = gemm_key();
  m.mapping = gemm_mapping();
  m.implementation = "tiled";
  m.scope = TimingScope::host_call;
  m.repetitions = 20;
  m.min_ns = 1.2e6;
  m.median_ns = 1.25e6;
  m.spread = 0.05;
  m.max_error = 3e-7;
  m.checked = true;
  m.median_ci = 0.021;
  return m;
}

Measurement openblas_gemm() {
  Measurement m = tiled_gemm();
  m.mapping.reset();  // a black box
  m.implementation = "openblas";
  m.min_ns = 8e5;
  m.median_ns = 8.5e5;
  m.checked = false;
  return m;
}

Measurement softmax_on_device() {
  Measurement m;
  m.op = softmax_key();
  m.implementation = "vector";
  m.scope = TimingScope::device;
  m.repetitions = 7;
  m.min_ns = 4e4;
  m.median_ns = 4.2e4;
  m.spread = 0.1;
  m.checked = true;
  m.median_ci = 0.08;
  m.unstable = "median known to +-8.0 % after 7 repetitions (tolerance +-5.0 %)";
  return m;
}

void check_same(const OperatorKey& a, const OperatorKey& b) {
  CHECK(a.suite == b.suite);
  CHECK(a.name == b.name);
  CHECK(a.type == b.type);
  CHECK(a.dims == b.dims);
  CHECK(a.dtypes == b.dtypes);
  CHECK(a.op_class == b.op_class);
  CHECK(a.flops == b.flops);
  CHECK(a.spec == b.spec);
}

void check_same(const Measurement& a, const Measurement& b) {
  check_same(a.op, b.op);
  REQUIRE(a.mapping.has_value() == b.mapping.has_value());
  if (a.mapping) {
    CHECK(a.mapping->hash == b.mapping->hash);
    CHECK(a.mapping->name == b.mapping->name);
    CHECK(a.mapping->yaml == b.mapping->yaml);
  }
  CHECK(a.implementation == b.implementation);
  CHECK(a.scope == b.scope);
  CHECK(a.repetitions == b.repetitions);
  CHECK(a.min_ns == b.min_ns);
  CHECK(a.median_ns == b.median_ns);
  CHECK(a.spread == b.spread);
  CHECK(a.max_error == b.max_error);
  CHECK(a.checked == b.checked);
  CHECK(a.median_ci == b.median_ci);
  CHECK(a.unstable == b.unstable);
}

int64_t count_of(const ResultStore& store, const std::string& table) {
  for (const auto& [name, count] : store.table_counts())
    if (name == table) return count;
  FAIL("no table " << table);
  return -1;
}

const std::regex kIsoUtc(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");

}  // namespace

TEST_CASE("store: runs and measurements come back as they went in", "[store]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  ResultStore store(path);
  CHECK(store.path() == path);
  CHECK(store.schema_version() == ResultStore::kSchemaVersion);
  CHECK(store.runs().empty());
  CHECK_FALSE(store.default_run());

  const int64_t run = store.begin_run(host_run());
  const std::optional<RunInfo> started = store.run(run);
  REQUIRE(started);
  CHECK(started->status == RunStatus::incomplete);
  CHECK(std::regex_match(started->started_at, kIsoUtc));
  CHECK(started->finished_at.empty());
  CHECK(started->start.collector == "host");
  CHECK(started->start.workload == "host-suite");
  CHECK(started->start.tool_version == "0.1.0");
  CHECK(started->start.settings_json == R"({"repetitions": 20})");
  CHECK(started->start.device.name == "Test CPU");
  CHECK(started->start.device.kind == "host-cpu");
  CHECK(started->start.device.arch_hash == "00112233445566aa");
  CHECK(started->start.device.properties_json == R"({"cores": 4})");
  CHECK(started->measurement_count == 0);

  const std::vector<Measurement> written = {tiled_gemm(), openblas_gemm(), softmax_on_device()};
  for (const Measurement& m : written) store.add_measurement(run, m);
  const std::vector<Measurement> read = store.measurements(run);
  REQUIRE(read.size() == written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    INFO("measurement " << i);
    check_same(read[i], written[i]);
  }
  // The two GEMMs are one operator; the black box has no mapping row.
  CHECK(count_of(store, "operators") == 2);
  CHECK(count_of(store, "mappings") == 1);
  CHECK(count_of(store, "measurements") == 3);

  store.finish_run(run, RunStatus::complete);
  const std::optional<RunInfo> finished = store.run(run);
  REQUIRE(finished);
  CHECK(finished->status == RunStatus::complete);
  CHECK(std::regex_match(finished->finished_at, kIsoUtc));
  CHECK(finished->finished_at >= finished->started_at);
  CHECK(finished->measurement_count == 3);

  const int64_t second = store.begin_run(host_run());
  CHECK(second != run);
  store.finish_run(second, RunStatus::cancelled);
  // The second run holds no measurement: the default stays the first, the latest that has one
  // (an empty run left by a kill at the start is never what a command reads by default).
  CHECK(store.default_run() == run);
  const std::vector<RunInfo> runs = store.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].id == run);
  CHECK(runs[1].status == RunStatus::cancelled);
  CHECK(runs[1].measurement_count == 0);
  CHECK(store.measurements(second).empty());
  CHECK_FALSE(store.run(second + 100));
  // Same device both times: one row.
  CHECK(count_of(store, "devices") == 1);

  RunStart elsewhere = host_run();
  elsewhere.device.arch_hash = "ffffffffffffffff";
  store.begin_run(elsewhere);
  CHECK(count_of(store, "devices") == 2);
}

TEST_CASE("store: a measurement needs an existing run, a finish an existing run", "[store]") {
  TempDir dir;
  ResultStore store(dir.file("results.sqlite"));
  CHECK_THROWS_AS(store.add_measurement(42, tiled_gemm()), std::invalid_argument);
  CHECK_THROWS_AS(store.finish_run(42, RunStatus::complete), std::invalid_argument);
  // The refused measurement left no operator or mapping behind: it was one transaction.
  CHECK(count_of(store, "operators") == 0);
  CHECK(count_of(store, "mappings") == 0);
}

TEST_CASE("store: an operator row keeps what it knows when a later writer knows less", "[store]") {
  TempDir dir;
  ResultStore store(dir.file("results.sqlite"));
  const int64_t run = store.begin_run(host_run());
  Measurement bare = openblas_gemm();
  bare.op.spec.clear();
  bare.op.type.clear();
  store.add_measurement(run, bare);  // an import that knows only the identity
  store.add_measurement(run, tiled_gemm());
  store.add_measurement(run, bare);
  const std::vector<Measurement> read = store.measurements(run);
  REQUIRE(read.size() == 3);
  for (const Measurement& m : read) {
    CHECK(m.op.spec == gemm_key().spec);
    CHECK(m.op.type == "gemm");
  }
  CHECK(count_of(store, "operators") == 1);
}

TEST_CASE("store: a prediction replaces the one for the same operator, mapping and graph",
          "[store]") {
  TempDir dir;
  ResultStore store(dir.file("results.sqlite"));
  PredictionRecord mapped;
  mapped.op = gemm_key();
  mapped.mapping = gemm_mapping();
  mapped.arch_hash = "00112233445566aa";
  mapped.arch_name = "test-cpu";
  mapped.device_s = 1e-3;
  mapped.launch_s = 5e-6;
  mapped.bound_by = "DRAM->L2";
  store.add_prediction(mapped);

  PredictionRecord chosen = mapped;  // the mapper's own choice for the black box
  chosen.mapping.reset();
  chosen.device_s = 9e-4;
  chosen.chosen_mapping_yaml = "version: 1\nkind: mapping\nname: chosen\n";
  store.add_prediction(chosen);

  PredictionRecord other_graph = chosen;
  other_graph.arch_hash = "ffffffffffffffff";
  other_graph.arch_name = "other";
  other_graph.device_s = 5.0;
  store.add_prediction(other_graph);

  CHECK(store.predictions("00112233445566aa").size() == 2);
  CHECK(store.predictions("ffffffffffffffff").size() == 1);
  CHECK(store.predictions("0000000000000000").empty());

  mapped.device_s = 2e-3;
  mapped.bound_by = "compute";
  store.add_prediction(mapped);
  CHECK(count_of(store, "predictions") == 3);

  const auto again = store.prediction(gemm_key(), gemm_mapping().hash, "00112233445566aa");
  REQUIRE(again);
  CHECK(again->device_s == 2e-3);
  CHECK(again->launch_s == 5e-6);
  CHECK(again->bound_by == "compute");
  CHECK(again->arch_name == "test-cpu");
  REQUIRE(again->mapping);
  CHECK(again->mapping->name == "gemm-tiles");
  CHECK(again->mapping->yaml == gemm_mapping().yaml);
  check_same(again->op, gemm_key());

  const auto black_box = store.prediction(gemm_key(), "", "00112233445566aa");
  REQUIRE(black_box);
  CHECK_FALSE(black_box->mapping);
  CHECK(black_box->device_s == 9e-4);
  CHECK(black_box->chosen_mapping_yaml == chosen.chosen_mapping_yaml);

  CHECK_FALSE(store.prediction(softmax_key(), "", "00112233445566aa"));
  CHECK_FALSE(store.prediction(gemm_key(), "", "0000000000000000"));
}

TEST_CASE("store: a reopened database has everything, and reopening changes nothing", "[store]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  int64_t run = 0;
  {
    ResultStore store(path);
    run = store.begin_run(host_run());
    store.add_measurement(run, tiled_gemm());
    store.finish_run(run, RunStatus::complete);
  }
  // The last connection checkpointed the log and removed it.
  CHECK(dir.names() == std::vector<std::string>{"results.sqlite"});
  const std::string before = bytes_of(path);
  {
    ResultStore again(path, ResultStore::Mode::read_write);
    CHECK(again.schema_version() == ResultStore::kSchemaVersion);
    REQUIRE(again.run(run));
    CHECK(again.run(run)->status == RunStatus::complete);
    REQUIRE(again.measurements(run).size() == 1);
    check_same(again.measurements(run)[0], tiled_gemm());
  }
  CHECK(bytes_of(path) == before);  // nothing to migrate, nothing written
  {
    const ResultStore reader(path, ResultStore::Mode::read_only);
    CHECK(reader.runs().size() == 1);
  }
  CHECK(bytes_of(path) == before);
}

TEST_CASE("store: a read-only store needs the file and writes nothing", "[store]") {
  TempDir dir;
  const std::string missing = dir.file("missing.sqlite");
  const InputError e =
      test::input_error_of([&] { ResultStore(missing, ResultStore::Mode::read_only); });
  CHECK(e.where().file == missing);
  CHECK_THAT(e.message(), Catch::Contains("no such results database"));
  CHECK(dir.names().empty());

  const std::string path = dir.file("results.sqlite");
  { ResultStore create(path); }
  ResultStore reader(path, ResultStore::Mode::read_only);
  CHECK_THROWS_AS(reader.begin_run(host_run()), std::logic_error);
  CHECK(reader.runs().empty());
}

TEST_CASE("store: a zero-length file is created fresh when writing", "[store]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  std::ofstream(path).close();
  const InputError e =
      test::input_error_of([&] { ResultStore(path, ResultStore::Mode::read_only); });
  CHECK_THAT(e.message(), Catch::Contains("empty"));
  ResultStore store(path);
  CHECK(store.schema_version() == ResultStore::kSchemaVersion);
  CHECK(store.begin_run(host_run()) == 1);
}

TEST_CASE("store: a reader sees what a writer has committed while the writer goes on", "[store]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  ResultStore writer(path);
  const int64_t run = writer.begin_run(host_run());
  writer.add_measurement(run, tiled_gemm());
  const ResultStore reader(path, ResultStore::Mode::read_only);
  CHECK(reader.measurements(run).size() == 1);
  writer.add_measurement(run, openblas_gemm());  // the reader does not block the writer
  CHECK(reader.measurements(run).size() == 2);
  CHECK(reader.run(run)->status == RunStatus::incomplete);
}

TEST_CASE("store: a writer killed mid-run leaves every committed measurement", "[store]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Killed without closing anything: the log is neither checkpointed nor removed.
    try {
      ResultStore store(path);
      const int64_t run = store.begin_run(host_run());
      for (int i = 0; i < 5; ++i) store.add_measurement(run, tiled_gemm());
      ::raise(SIGKILL);  // while the store is still open
    } catch (...) {
    }
    ::_exit(3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK(fs::exists(path + "-wal"));

  const ResultStore store(path, ResultStore::Mode::read_only);
  const std::vector<RunInfo> runs = store.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].status == RunStatus::incomplete);
  CHECK(runs[0].finished_at.empty());
  CHECK(runs[0].measurement_count == 5);
  CHECK(store.measurements(runs[0].id).size() == 5);
}

namespace {

// Migration steps that log the order they ran in.
std::vector<store::MigrationStep> logging_steps(int count, int failing = -1) {
  std::vector<store::MigrationStep> steps;
  for (int from = 0; from < count; ++from)
    steps.push_back({from, "step", [from, failing](SQLite::Database& db) {
                       if (from == 0) db.exec("CREATE TABLE log (step INTEGER)");
                       db.exec("INSERT INTO log VALUES (" + std::to_string(from + 1) + ")");
                       if (from == failing) throw std::runtime_error("step failed");
                     }});
  return steps;
}

std::vector<int> logged(SQLite::Database& db) {
  std::vector<int> out;
  SQLite::Statement s(db, "SELECT step FROM log ORDER BY rowid");
  while (s.executeStep()) out.push_back(s.getColumn(0).getInt());
  return out;
}

int user_version(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

}  // namespace

TEST_CASE("store migrations: pending steps run in order, once, from the file's version",
          "[store][migration]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const auto steps = logging_steps(3);
  CHECK(store::migrate(db, steps) == 3);
  CHECK(user_version(db) == 3);
  CHECK(logged(db) == std::vector<int>{1, 2, 3});
  CHECK(store::migrate(db, steps) == 0);
  CHECK(logged(db) == std::vector<int>{1, 2, 3});

  // A file at version 1 gets steps 2 and 3 only.
  SQLite::Database older(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  older.exec(
      "CREATE TABLE log (step INTEGER); INSERT INTO log VALUES (1); PRAGMA user_version = 1");
  CHECK(store::migrate(older, steps) == 2);
  CHECK(logged(older) == std::vector<int>{1, 2, 3});
  CHECK(user_version(older) == 3);
}

TEST_CASE("store migrations: a failing step rolls back every step before it",
          "[store][migration]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  CHECK_THROWS_WITH(store::migrate(db, logging_steps(3, 1)), "step failed");
  CHECK(user_version(db) == 0);
  CHECK_FALSE(db.tableExists("log"));
}

TEST_CASE("store migrations: steps must continue one another", "[store][migration]") {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  auto steps = logging_steps(3);
  steps.erase(steps.begin() + 1);  // 0->1, then 2->3: no way from 1 to 2
  CHECK_THROWS_AS(store::migrate(db, steps), std::logic_error);
  CHECK(user_version(db) == 0);

  // The real list starts at an empty file and ends at this build's version, without gaps.
  const auto& real = store::migration_steps();
  REQUIRE_FALSE(real.empty());
  for (size_t i = 0; i < real.size(); ++i) CHECK(real[i].from_version == static_cast<int>(i));
  CHECK(real.back().from_version + 1 == ResultStore::kSchemaVersion);
}

namespace {

// The layout of a database as SQLite records it, with whitespace runs made one space.
std::vector<std::string> layout_of(const std::string& path) {
  SQLite::Database db(path, SQLite::OPEN_READONLY);
  SQLite::Statement s(db, "SELECT type, name, sql FROM sqlite_master ORDER BY type, name");
  std::vector<std::string> out;
  while (s.executeStep()) {
    std::string sql = s.getColumn(2).getString();
    sql = std::regex_replace(sql, std::regex(R"(\s+)"), " ");
    out.push_back(s.getColumn(0).getString() + " " + s.getColumn(1).getString() + ": " + sql);
  }
  out.push_back("application_id " +
                std::to_string(db.execAndGet("PRAGMA application_id").getInt()));
  out.push_back("user_version " + std::to_string(db.execAndGet("PRAGMA user_version").getInt()));
  return out;
}

}  // namespace

TEST_CASE("store: the version-1 fixture opens, migrates to this build's layout and reads back",
          "[store][migration]") {
  TempDir dir;
  const std::string fresh = dir.file("fresh.sqlite");
  { ResultStore create(fresh); }
  const std::string old = dir.file("results-v1.sqlite");
  fs::copy_file(test::fixture("db/results-v1.sqlite"), old);
  {
    ResultStore store(old);
    CHECK(store.schema_version() == ResultStore::kSchemaVersion);
  }
  CHECK(layout_of(old) == layout_of(fresh));

  const ResultStore store(old, ResultStore::Mode::read_only);
  const std::vector<RunInfo> runs = store.runs();
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].status == RunStatus::complete);
  CHECK(runs[0].started_at == "2026-11-29T17:30:00Z");
  CHECK(runs[1].status == RunStatus::incomplete);
  CHECK(runs[1].finished_at.empty());
  CHECK(runs[2].status == RunStatus::cancelled);
  CHECK(runs[0].start.device.arch_hash == "00112233445566aa");
  const std::vector<Measurement> first = store.measurements(runs[0].id);
  REQUIRE(first.size() == 4);
  REQUIRE(first[0].mapping);
  CHECK(first[0].mapping->hash == "0123456789abcdef");
  CHECK(first[0].op.spec == "{type: gemm, M: 512, N: 512, K: 512}");
  CHECK_FALSE(first[1].mapping);
  CHECK(first[2].scope == TimingScope::device);
  CHECK(first[3].op.name == "layernorm_1k");
  CHECK(store.predictions("00112233445566aa").size() == 3);
  CHECK(store.predictions("ffffffffffffffff").size() == 1);
  // Version-1 rows say nothing of their stability.
  CHECK_FALSE(first[0].median_ci);
  CHECK(first[0].unstable.empty());
}

TEST_CASE("store: a version-1 file reads back read-only, as it is", "[store][migration]") {
  TempDir dir;
  const std::string old = dir.file("results-v1.sqlite");
  fs::copy_file(test::fixture("db/results-v1.sqlite"), old);
  const std::string before = bytes_of(old);
  {
    const ResultStore store(old, ResultStore::Mode::read_only);
    CHECK(store.schema_version() == 1);
    const std::vector<RunInfo> runs = store.runs();
    REQUIRE(runs.size() == 3);
    const std::vector<Measurement> first = store.measurements(runs[0].id);
    REQUIRE(first.size() == 4);
    CHECK_FALSE(first[0].median_ci);
    CHECK(first[0].unstable.empty());
  }
  // A read never migrates.
  CHECK(bytes_of(old) == before);
  CHECK(dir.names() == std::vector<std::string>{"results-v1.sqlite"});
}

namespace {

struct BadFile {
  std::string fixture;                // under tests/fixtures/db
  std::vector<std::string> mentions;  // words the message must contain
};

}  // namespace

TEST_CASE("store: a file that is not ours, is damaged or is newer is refused and left alone",
          "[store][errors]") {
  const BadFile bad =
      GENERATE(BadFile{"corrupt.sqlite", {"not a tilescope results database", "not a database"}},
               BadFile{"foreign.sqlite",
                       {"not a tilescope results database", "another program", "contacts"}},
               BadFile{"newer-schema.sqlite",
                       {"newer tilescope", "schema 99",
                        "up to " + std::to_string(ResultStore::kSchemaVersion)}});
  const ResultStore::Mode mode =
      GENERATE(ResultStore::Mode::read_write, ResultStore::Mode::read_only);
  INFO(bad.fixture << (mode == ResultStore::Mode::read_only ? " read_only" : " read_write"));
  TempDir dir;
  const std::string path = dir.file(bad.fixture);
  fs::copy_file(test::fixture("db/" + bad.fixture), path);
  const std::string before = bytes_of(path);

  const InputError e = test::input_error_of([&] { ResultStore(path, mode); });
  CHECK(e.where().file == path);
  for (const std::string& word : bad.mentions) CHECK_THAT(e.message(), Catch::Contains(word));
  CHECK(bytes_of(path) == before);
  CHECK(dir.names() == std::vector<std::string>{bad.fixture});  // no -wal, -shm or -journal
}

TEST_CASE("store: a text file is not an SQLite file", "[store][errors]") {
  TempDir dir;
  const std::string path = dir.file("notes.sqlite");
  std::ofstream(path) << "version: 1\nkind: workload\n";
  const std::string before = bytes_of(path);
  const InputError e = test::input_error_of([&] { ResultStore store(path); });
  CHECK(e.where().file == path);
  CHECK_THAT(e.message(), Catch::Contains("not an SQLite file"));
  CHECK(bytes_of(path) == before);
  CHECK(dir.names() == std::vector<std::string>{"notes.sqlite"});
}

TEST_CASE("store: a newer schema hidden in the write-ahead log is refused too", "[store][errors]") {
  // The main file's header still says version 1; only the log knows better.
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  { ResultStore create(path); }
  SQLite::Database other(path, SQLite::OPEN_READWRITE);
  other.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; PRAGMA user_version = 7");
  const InputError e =
      test::input_error_of([&] { ResultStore(path, ResultStore::Mode::read_only); });
  CHECK_THAT(e.message(), Catch::Contains("schema 7"));
}

TEST_CASE("store: another program's WAL database is refused without a -wal or -shm beside it",
          "[store][errors]") {
  // Opening a WAL database the ordinary way creates both files, even read-only.
  TempDir dir;
  const std::string path = dir.file("other.sqlite");
  {
    SQLite::Database other(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("PRAGMA journal_mode = WAL; CREATE TABLE notes (text TEXT)");
  }
  REQUIRE(dir.names() == std::vector<std::string>{"other.sqlite"});
  const std::string before = bytes_of(path);
  for (const auto mode : {ResultStore::Mode::read_only, ResultStore::Mode::read_write}) {
    const InputError e = test::input_error_of([&] { ResultStore store(path, mode); });
    CHECK_THAT(e.message(), Catch::Contains("notes"));
    CHECK(bytes_of(path) == before);
    CHECK(dir.names() == std::vector<std::string>{"other.sqlite"});
  }
}

TEST_CASE("store: an SQLite file with no tables is adopted when writing, unless it has a version",
          "[store][errors]") {
  TempDir dir;
  const std::string path = dir.file("blank.sqlite");
  {
    SQLite::Database blank(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    blank.exec("CREATE TABLE t (x); DROP TABLE t");  // a header and an empty schema
  }
  const InputError e =
      test::input_error_of([&] { ResultStore store(path, ResultStore::Mode::read_only); });
  CHECK_THAT(e.message(), Catch::Contains("empty SQLite file"));
  {
    ResultStore store(path);
    CHECK(store.schema_version() == ResultStore::kSchemaVersion);
    store.begin_run(host_run());
  }
  CHECK(ResultStore(path, ResultStore::Mode::read_only).runs().size() == 1);

  const std::string versioned = dir.file("versioned.sqlite");
  {
    SQLite::Database(versioned, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE)
        .exec("PRAGMA user_version = 3");
  }
  const std::string before = bytes_of(versioned);
  const InputError other = test::input_error_of([&] { ResultStore store(versioned); });
  CHECK_THAT(other.message(),
             Catch::Contains("another program") && Catch::Contains("user_version 3"));
  CHECK(bytes_of(versioned) == before);
}

TEST_CASE("store: a tilescope database with a damaged page is refused by the quick check",
          "[store][errors]") {
  TempDir dir;
  const std::string path = dir.file("results.sqlite");
  { ResultStore create(path); }
  {
    // Page 2 is a table's root; its first byte says what kind of b-tree page it is. Reading the
    // header and the schema (page 1) does not notice; only a check of every page does.
    const std::string header = bytes_of(path).substr(0, 100);
    const int page_size = (static_cast<unsigned char>(header[16]) << 8) |
                          static_cast<unsigned char>(header[17]);  // big-endian at offset 16
    REQUIRE(page_size >= 512);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(page_size);
    f.put(static_cast<char>(0x7f));
  }
  const std::string before = bytes_of(path);
  const InputError e = test::input_error_of([&] { ResultStore store(path); });
  CHECK(e.where().file == path);
  CHECK_THAT(e.message(),
             Catch::Contains("not a tilescope results database") && Catch::Contains("damaged"));
  CHECK(bytes_of(path) == before);
  CHECK(dir.names() == std::vector<std::string>{"results.sqlite"});
}
