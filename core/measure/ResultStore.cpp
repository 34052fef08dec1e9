#include "measure/ResultStore.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>

#include "common/InputError.hpp"
#include "common/UtcTime.hpp"
#include "common/WorkLimits.hpp"
#include "measure/StoreSchema.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// Long enough to ride out a writer's commit or checkpoint, short enough that a stuck lock is
// reported instead of hanging a command.
constexpr int kBusyTimeoutMs = 5000;
// quick_check reads every page: worth it on the files a person hands us by mistake, which are
// small; a large file is checked by reading its header and schema only.
constexpr uintmax_t kQuickCheckLimitBytes = 64ull << 20;

constexpr std::array<const char*, 6> kTables = {"devices",  "runs",         "operators",
                                                "mappings", "measurements", "predictions"};

// The schema that added sweep_points: a read-only open of an older file has none.
constexpr int kFirstSweepVersion = 3;
// The schema that added the energy and area of sweep points: older rows read them as unknown.
constexpr int kFirstSweepEnergyVersion = 4;

void bind_figure(SQLite::Statement& s, int index, const std::optional<double>& v) {
  if (v)
    s.bind(index, *v);
  else
    s.bind(index);  // NULL: not known
}

// One row of sweep_points (parameters_json, arch_hash, total_s, cost, operators_json, energy_j,
// area_m2, id), checked as it is read: a value of another type (text where a number is kept, a
// NULL where a time is needed) or operators that do not read is an InputError at the file and
// the row's id, never a JSON or SQLite exception from the middle of a report.
SweepPointRecord read_sweep_point(SQLite::Statement& s, const std::string& path,
                                  const std::string& sweep_key, const std::string& workload_hash) {
  const int64_t id = s.getColumn(7).getInt64();
  const SourceLocation where{
      path, id > 0 && id <= std::numeric_limits<int>::max() ? static_cast<int>(id) : 0, 0};
  const std::string row = fmt::format("sweep_points row {}", id);
  auto number = [&](int column, const char* name, bool nullable) -> std::optional<double> {
    const SQLite::Column c = s.getColumn(column);
    if (c.isNull() && nullable) return std::nullopt;
    if (!c.isInteger() && !c.isFloat())
      throw InputError(where, fmt::format("{}: {} is {}; expected a number", row, name,
                                          c.isNull()   ? "NULL"
                                          : c.isText() ? "text"
                                                       : "a blob"));
    return c.getDouble();
  };
  auto text = [&](int column, const char* name) {
    const SQLite::Column c = s.getColumn(column);
    if (!c.isText())
      throw InputError(where, fmt::format("{}: {} is not text; expected the text `tilescope "
                                          "sweep` writes",
                                          row, name));
    return c.getString();
  };
  SweepPointRecord p;
  p.sweep_key = sweep_key;
  p.workload_hash = workload_hash;
  p.parameters_json = text(0, "parameters_json");
  p.arch_hash = text(1, "arch_hash");
  p.total_s = *number(2, "total_s", false);
  p.cost = *number(3, "cost", false);
  p.energy_j = number(5, "energy_j", true);
  p.area_m2 = number(6, "area_m2", true);
  try {
    p.operators = sweep_operators_from_json(text(4, "operators_json"), where);
    check_sweep_point_figures(p, where);
  } catch (const InputError& e) {
    if (e.message().starts_with(row)) throw;
    throw InputError(where, row + ": " + e.message());
  }
  return p;
}

[[noreturn]] void refuse(const std::string& path, const std::string& message) {
  throw InputError(SourceLocation{path, 0, 0}, message);
}

[[noreturn]] void refuse_not_ours(const std::string& path, const std::string& why) {
  refuse(path, "not a tilescope results database: " + why);
}

// The fields of the 100-byte SQLite header that say whose file it is, read without SQLite so
// that looking at a file cannot change it.
struct FileHeader {
  uint32_t user_version = 0;
  uint32_t application_id = 0;
};

uint32_t big_endian_u32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | uint32_t{p[3]};
}

std::optional<FileHeader> read_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::array<unsigned char, 100> bytes{};
  if (!in.read(reinterpret_cast<char*>(bytes.data()), bytes.size())) return std::nullopt;
  static constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with its terminating NUL
  if (!std::equal(kMagic, kMagic + sizeof kMagic, bytes.begin())) return std::nullopt;
  return FileHeader{big_endian_u32(&bytes[60]), big_endian_u32(&bytes[68])};
}

// `immutable=1` makes SQLite read the main file only, take no locks and create no -wal, -shm or
// -journal file: the way to look at a file that may not be ours.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c <= 0x20 || c >= 0x7f)
      uri += fmt::format("%{:02X}", c);
    else
      uri += static_cast<char>(c);
  }
  return uri + "?immutable=1";
}

// What a look at a file finds. `tables` counts every table, ours or not.
struct Inspection {
  uint32_t application_id = 0;
  int user_version = 0;
  int tables = 0;
  std::string table_names;  // the first few, for messages
};

Inspection inspect(SQLite::Database& db, const std::string& path, bool quick_check) {
  Inspection seen;
  try {
    if (quick_check) {
      SQLite::Statement check(db, "PRAGMA quick_check(1)");
      if (check.executeStep() && check.getColumn(0).getString() != "ok")
        refuse_not_ours(
            path, "the file is damaged (quick_check: " + check.getColumn(0).getString() + ")");
    }
    seen.application_id = static_cast<uint32_t>(db.execAndGet("PRAGMA application_id").getInt());
    seen.user_version = db.execAndGet("PRAGMA user_version").getInt();
    SQLite::Statement tables(db,
                             "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rowid");
    while (tables.executeStep()) {
      if (++seen.tables <= 4)
        seen.table_names +=
            (seen.table_names.empty() ? "" : ", ") + tables.getColumn(0).getString();
    }
    if (seen.tables > 4) seen.table_names += ", ...";
  } catch (const SQLite::Exception& e) {
    refuse_not_ours(path, e.what());
  }
  return seen;
}

// Refuses a file this build must not read or write; lets through ours (any version it can
// migrate) and, when writing, an SQLite file that is still empty.
void judge(const Inspection& seen, const std::string& path, ResultStore::Mode mode) {
  const bool ours = seen.application_id == store::kApplicationId;
  // An SQLite file with no tables and no versions set is nobody's yet: writing may adopt it.
  if (!ours && (seen.application_id != 0 || seen.tables > 0 || seen.user_version != 0))
    refuse_not_ours(
        path,
        seen.tables > 0
            ? fmt::format("it is an SQLite file of another program (tables: {})", seen.table_names)
            : fmt::format("it is an SQLite file of another program (application_id {:#x}, "
                          "user_version {}, no tables)",
                          seen.application_id, seen.user_version));
  if (seen.user_version > ResultStore::kSchemaVersion)
    refuse(path,
           fmt::format("was written by a newer tilescope (schema {}, this build reads up to {})",
                       seen.user_version, ResultStore::kSchemaVersion));
  if (mode == ResultStore::Mode::read_only &&
      seen.user_version < ResultStore::kOldestReadableVersion) {
    if (!ours) refuse_not_ours(path, "it is an empty SQLite file");
    refuse(path, fmt::format("has the schema of an older tilescope (schema {}); a command that "
                             "writes to it (tilescope measure) migrates it to schema {}",
                             seen.user_version, ResultStore::kSchemaVersion));
  }
}

// Opening a WAL database creates a -wal and a -shm beside it, and an open that fails part way
// (a full disk cannot size the -shm) leaves them behind. Removes those that were not there
// before, once the connection is closed: a -wal only while it is empty (no commit is in it).
void remove_what_opening_made(const std::string& path, bool wal_before, bool shm_before) {
  std::error_code ec;
  const std::string wal = path + "-wal";
  if (!wal_before && fs::exists(wal, ec) && fs::file_size(wal, ec) == 0) fs::remove(wal, ec);
  if (!shm_before && !fs::exists(wal, ec)) fs::remove(path + "-shm", ec);
}

// SQLite's own message ("database or disk is full", "attempt to write a readonly database")
// names no file: every entry point below passes it on with the database's path.
[[noreturn]] void refuse_write(const std::string& path, const SQLite::Exception& e) {
  refuse(path, fmt::format("cannot write the results database: {}", e.what()));
}
[[noreturn]] void refuse_read(const std::string& path, const SQLite::Exception& e) {
  refuse(path, fmt::format("cannot read the results database: {}", e.what()));
}

// A folder we cannot write to holds no -wal and no -shm of ours, and SQLite cannot create them
// to read a WAL database the normal way: without a -wal beside the file, no writer has it open
// (a writer would have created one), so the main file is the whole database and reading it as
// immutable is exact.
bool folder_is_read_only(const std::string& path) {
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  return ::access(folder.c_str(), W_OK) != 0;
}

void require_writable(ResultStore::Mode mode, const std::string& path) {
  if (mode != ResultStore::Mode::read_write)
    throw std::logic_error(path + ": the results database was opened read-only");
}

RunStatus parse_status(const std::string& text) {
  if (text == "complete") return RunStatus::complete;
  if (text == "cancelled") return RunStatus::cancelled;
  return RunStatus::incomplete;
}

// Inserts the operator or finds it by its identity; returns its id. Descriptive columns that an
// earlier writer left empty are filled in, known ones are kept (an import may know less).
int64_t upsert_operator(SQLite::Database& db, const OperatorKey& op) {
  SQLite::Statement s(
      db,
      "INSERT INTO operators (suite, name, type, dims, dtypes, op_class, flops, spec) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
      "ON CONFLICT (suite, name, dims, dtypes) DO UPDATE SET "
      "type = CASE WHEN type = '' THEN excluded.type ELSE type END, "
      "op_class = CASE WHEN op_class = '' THEN excluded.op_class ELSE op_class END, "
      "flops = CASE WHEN flops = 0 THEN excluded.flops ELSE flops END, "
      "spec = CASE WHEN spec = '' THEN excluded.spec ELSE spec END "
      "RETURNING id");
  s.bind(1, op.suite);
  s.bind(2, op.name);
  s.bind(3, op.type);
  s.bind(4, op.dims);
  s.bind(5, op.dtypes);
  s.bind(6, op.op_class);
  s.bind(7, op.flops);
  s.bind(8, op.spec);
  s.executeStep();
  return s.getColumn(0).getInt64();
}

int64_t upsert_mapping(SQLite::Database& db, const MappingRecord& m) {
  SQLite::Statement s(db,
                      "INSERT INTO mappings (hash, name, yaml) VALUES (?, ?, ?) "
                      "ON CONFLICT (hash) DO UPDATE SET "
                      "name = CASE WHEN name = '' THEN excluded.name ELSE name END, "
                      "yaml = CASE WHEN yaml = '' THEN excluded.yaml ELSE yaml END "
                      "RETURNING id");
  s.bind(1, m.hash);
  s.bind(2, m.name);
  s.bind(3, m.yaml);
  s.executeStep();
  return s.getColumn(0).getInt64();
}

int64_t upsert_device(SQLite::Database& db, const DeviceInfo& d) {
  // The no-op update makes RETURNING hand back the existing row's id.
  SQLite::Statement s(db,
                      "INSERT INTO devices (name, kind, arch_hash, properties_json) "
                      "VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (name, kind, arch_hash, properties_json) DO UPDATE SET "
                      "name = excluded.name RETURNING id");
  s.bind(1, d.name);
  s.bind(2, d.kind);
  s.bind(3, d.arch_hash);
  s.bind(4, d.properties_json.empty() ? std::string("{}") : d.properties_json);
  s.executeStep();
  return s.getColumn(0).getInt64();
}

// The operator columns every read selects first, in this order.
constexpr const char* kOperatorColumns =
    "o.suite, o.name, o.type, o.dims, o.dtypes, o.op_class, o.flops, o.spec";
constexpr int kOperatorColumnCount = 8;

OperatorKey read_operator(const SQLite::Statement& s) {
  OperatorKey op;
  op.suite = s.getColumn(0).getString();
  op.name = s.getColumn(1).getString();
  op.type = s.getColumn(2).getString();
  op.dims = s.getColumn(3).getString();
  op.dtypes = s.getColumn(4).getString();
  op.op_class = s.getColumn(5).getString();
  op.flops = s.getColumn(6).getDouble();
  op.spec = s.getColumn(7).getString();
  return op;
}

const std::string kRunSelect =
    "SELECT r.id, r.started_at, r.finished_at, r.status, r.collector, r.workload, "
    "r.tool_version, r.settings_json, d.name, d.kind, d.arch_hash, d.properties_json, "
    "(SELECT count(*) FROM measurements m WHERE m.run_id = r.id) "
    "FROM runs r LEFT JOIN devices d ON d.id = r.device_id ";

RunInfo read_run(const SQLite::Statement& s) {
  RunInfo run;
  run.id = s.getColumn(0).getInt64();
  run.started_at = s.getColumn(1).getString();
  run.finished_at = s.getColumn(2).getString();  // NULL reads as ""
  run.status = parse_status(s.getColumn(3).getString());
  run.start.collector = s.getColumn(4).getString();
  run.start.workload = s.getColumn(5).getString();
  run.start.tool_version = s.getColumn(6).getString();
  run.start.settings_json = s.getColumn(7).getString();
  run.start.device.name = s.getColumn(8).getString();
  run.start.device.kind = s.getColumn(9).getString();
  run.start.device.arch_hash = s.getColumn(10).getString();
  run.start.device.properties_json = s.getColumn(11).getString();
  run.measurement_count = s.getColumn(12).getInt64();
  return run;
}

const std::string kPredictionSelect =
    std::string("SELECT ") + kOperatorColumns +
    ", p.mapping_hash, mp.name, mp.yaml, p.arch_hash, p.arch_name, p.device_s, p.launch_s, "
    "p.bound_by, p.chosen_mapping_yaml "
    "FROM predictions p JOIN operators o ON o.id = p.operator_id "
    "LEFT JOIN mappings mp ON mp.hash = p.mapping_hash ";

PredictionRecord read_prediction(const SQLite::Statement& s) {
  PredictionRecord p;
  p.op = read_operator(s);
  const int c = kOperatorColumnCount;
  const std::string mapping_hash = s.getColumn(c).getString();
  if (!mapping_hash.empty())
    p.mapping =
        MappingRecord{mapping_hash, s.getColumn(c + 1).getString(), s.getColumn(c + 2).getString()};
  p.arch_hash = s.getColumn(c + 3).getString();
  p.arch_name = s.getColumn(c + 4).getString();
  p.device_s = s.getColumn(c + 5).getDouble();
  p.launch_s = s.getColumn(c + 6).getDouble();
  p.bound_by = s.getColumn(c + 7).getString();
  p.chosen_mapping_yaml = s.getColumn(c + 8).getString();
  return p;
}

}  // namespace

ResultStore::ResultStore(const std::string& path, Mode mode) : path_(path), mode_(mode) {
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && !fs::is_regular_file(path, ec)) refuse(path, "is not a regular file");
  const uintmax_t size = exists ? fs::file_size(path, ec) : 0;
  // A -wal beside the file means another connection has it open, or one crashed: the main file
  // alone is then not the whole database.
  bool wal_beside = fs::exists(path + "-wal", ec);
  const bool shm_beside = fs::exists(path + "-shm", ec);
  if (mode == Mode::read_only && !exists) refuse(path, "no such results database");
  if (mode == Mode::read_only && size == 0 && !wal_beside)
    refuse_not_ours(path, "the file is empty");

  if (size > 0) {
    // Look before opening for real: a normal open may create -wal and -shm files beside a file
    // that turns out not to be ours, and nothing on disk may change when a file is refused.
    const std::optional<FileHeader> header = read_header(path);
    if (!header) refuse_not_ours(path, "not an SQLite file");
    if (header->application_id == store::kApplicationId &&
        header->user_version > static_cast<uint32_t>(kSchemaVersion))
      refuse(path, fmt::format("was written by a newer tilescope (schema {}, this build reads up "
                               "to {})",
                               header->user_version, kSchemaVersion));
    if (!wal_beside) {
      const auto written_at = fs::last_write_time(path, ec);
      try {
        try {
          SQLite::Database probe(immutable_uri(path), SQLite::OPEN_READONLY | SQLite::OPEN_URI);
          judge(inspect(probe, path, size <= kQuickCheckLimitBytes), path, mode);
        } catch (const SQLite::Exception& e) {
          refuse_not_ours(path, e.what());
        }
      } catch (const InputError&) {
        // The probe takes no lock: a writer that opened the file meanwhile (its -wal appears)
        // or checkpointed into it (its time or size moves) may have changed pages under the
        // probe, which then reads as damaged. Such a file is being written by a tilescope: it
        // is judged again through the real connection below, which waits on the writer's lock.
        std::error_code again;
        const bool written_meanwhile = fs::exists(path + "-wal", again) ||
                                       fs::last_write_time(path, again) != written_at ||
                                       fs::file_size(path, again) != size;
        if (!written_meanwhile) throw;
        wal_beside = true;
      }
    }
  }

  // SQLite answers "database is locked" without waiting in a few cases its busy handler does not
  // cover (a read that would have to become a write while another connection commits, a WAL
  // being checkpointed and removed by the last connection to close): several imports starting
  // on one new database at once met it. Such an open is started again, within the busy timeout.
  const auto started = std::chrono::steady_clock::now();
  for (int attempt = 0;; ++attempt) {
    try {
      const int flags = mode == Mode::read_only ? SQLite::OPEN_READONLY
                                                : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE;
      if (mode == Mode::read_only && !wal_beside && folder_is_read_only(path))
        db_ = std::make_unique<SQLite::Database>(immutable_uri(path), flags | SQLite::OPEN_URI,
                                                 kBusyTimeoutMs);
      else
        db_ = std::make_unique<SQLite::Database>(path, flags, kBusyTimeoutMs);
      // Again through the real connection where the probe could not judge: with a -wal beside,
      // only it sees the whole file; an empty file had no probe. (Where the probe judged, an
      // error here is one of opening, a full disk, not of the file: it is reported as such.)
      if (wal_beside || size == 0)
        judge(inspect(*db_, path, wal_beside && size <= kQuickCheckLimitBytes), path, mode);
      db_->exec("PRAGMA foreign_keys = ON");
      if (mode == Mode::read_write) {
        // WAL: readers (the GUI, `tilescope db`) never block the writer, and a commit is one
        // append, so a crash keeps every committed measurement. NORMAL sync keeps that across a
        // process crash; only a power loss may drop the last commits, never corrupt the file.
        db_->exec("PRAGMA journal_mode = WAL");
        db_->exec("PRAGMA synchronous = NORMAL");
        store::migrate(*db_, store::migration_steps());
      }
      file_version_ = schema_version();
      return;
    } catch (const SQLite::Exception& e) {
      db_.reset();
      const bool busy = (e.getErrorCode() & 0xff) == SQLITE_BUSY;
      if (busy &&
          std::chrono::steady_clock::now() - started < std::chrono::milliseconds(kBusyTimeoutMs)) {
        ::usleep(static_cast<useconds_t>(1000 * std::min(50, 5 * (attempt + 1))));
        continue;
      }
      remove_what_opening_made(path, wal_beside, shm_beside);
      refuse(path, fmt::format("cannot open the results database: {}", e.what()));
    } catch (const InputError&) {
      db_.reset();
      remove_what_opening_made(path, wal_beside, shm_beside);
      throw;
    }
  }
}

ResultStore::~ResultStore() = default;
ResultStore::ResultStore(ResultStore&&) noexcept = default;
ResultStore& ResultStore::operator=(ResultStore&&) noexcept = default;

void ResultStore::write_all(const std::function<void()>& writes) try {
  require_writable(mode_, path_);
  if (writing_all_) return writes();
  SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
  writing_all_ = true;
  try {
    writes();
  } catch (...) {
    writing_all_ = false;
    throw;  // the transaction rolls back as it goes out of scope
  }
  writing_all_ = false;
  transaction.commit();
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

void ResultStore::fold_into_one_file() try {
  require_writable(mode_, path_);
  db_->exec("PRAGMA journal_mode = DELETE");
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

int ResultStore::schema_version() const try {
  return db_->execAndGet("PRAGMA user_version").getInt();
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

int64_t ResultStore::begin_run(const RunStart& start) try {
  require_writable(mode_, path_);
  std::optional<SQLite::Transaction> transaction;  // none inside write_all's: they do not nest
  if (!writing_all_) transaction.emplace(*db_, SQLite::TransactionBehavior::IMMEDIATE);
  const int64_t device = upsert_device(*db_, start.device);
  SQLite::Statement s(*db_,
                      "INSERT INTO runs (started_at, status, collector, workload, tool_version, "
                      "settings_json, device_id) VALUES (?, 'incomplete', ?, ?, ?, ?, ?)");
  s.bind(1, utc_now_iso());
  s.bind(2, start.collector);
  s.bind(3, start.workload);
  s.bind(4, start.tool_version);
  s.bind(5, start.settings_json.empty() ? std::string("{}") : start.settings_json);
  s.bind(6, device);
  s.exec();
  const int64_t id = db_->getLastInsertRowid();
  if (transaction) transaction->commit();
  return id;
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

void ResultStore::add_measurement(int64_t run, const Measurement& m) try {
  require_writable(mode_, path_);
  // The operator, the mapping and the measurement go in together or not at all.
  std::optional<SQLite::Transaction> transaction;  // none inside write_all's: they do not nest
  if (!writing_all_) transaction.emplace(*db_, SQLite::TransactionBehavior::IMMEDIATE);
  {
    SQLite::Statement exists(*db_, "SELECT 1 FROM runs WHERE id = ?");
    exists.bind(1, run);
    if (!exists.executeStep())
      throw std::invalid_argument(fmt::format("{}: no run {} to add a measurement to", path_, run));
  }
  const int64_t op = upsert_operator(*db_, m.op);
  std::optional<int64_t> mapping;
  if (m.mapping) mapping = upsert_mapping(*db_, *m.mapping);
  SQLite::Statement s(*db_,
                      "INSERT INTO measurements (run_id, operator_id, mapping_id, implementation, "
                      "timing_scope, repetitions, min_ns, median_ns, spread, max_error, checked, "
                      "median_ci, unstable) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run);
  s.bind(2, op);
  if (mapping)
    s.bind(3, *mapping);
  else
    s.bind(3);  // NULL: a black-box kernel
  s.bind(4, m.implementation);
  s.bind(5, std::string(to_string(m.scope)));
  s.bind(6, m.repetitions);
  s.bind(7, m.min_ns);
  s.bind(8, m.median_ns);
  s.bind(9, m.spread);
  s.bind(10, m.max_error);
  s.bind(11, m.checked ? 1 : 0);
  if (m.median_ci)
    s.bind(12, *m.median_ci);
  else
    s.bind(12);  // NULL: not known
  s.bind(13, m.unstable);
  s.exec();
  if (transaction) transaction->commit();
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

void ResultStore::finish_run(int64_t run, RunStatus status) try {
  require_writable(mode_, path_);
  SQLite::Statement s(*db_, "UPDATE runs SET status = ?, finished_at = ? WHERE id = ?");
  s.bind(1, std::string(to_string(status)));
  s.bind(2, utc_now_iso());
  s.bind(3, run);
  if (s.exec() == 0)
    throw std::invalid_argument(fmt::format("{}: no run {} to finish", path_, run));
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

void ResultStore::add_prediction(const PredictionRecord& p) try {
  require_writable(mode_, path_);
  std::optional<SQLite::Transaction> transaction;  // none inside write_all's: they do not nest
  if (!writing_all_) transaction.emplace(*db_, SQLite::TransactionBehavior::IMMEDIATE);
  const int64_t op = upsert_operator(*db_, p.op);
  if (p.mapping) upsert_mapping(*db_, *p.mapping);
  SQLite::Statement s(*db_,
                      "INSERT INTO predictions (operator_id, mapping_hash, arch_hash, arch_name, "
                      "device_s, launch_s, bound_by, chosen_mapping_yaml) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (operator_id, mapping_hash, arch_hash) DO UPDATE SET "
                      "arch_name = excluded.arch_name, device_s = excluded.device_s, "
                      "launch_s = excluded.launch_s, bound_by = excluded.bound_by, "
                      "chosen_mapping_yaml = excluded.chosen_mapping_yaml");
  s.bind(1, op);
  s.bind(2, p.mapping ? p.mapping->hash : std::string());
  s.bind(3, p.arch_hash);
  s.bind(4, p.arch_name);
  s.bind(5, p.device_s);
  s.bind(6, p.launch_s);
  s.bind(7, p.bound_by);
  s.bind(8, p.chosen_mapping_yaml);
  s.exec();
  if (transaction) transaction->commit();
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

std::vector<RunInfo> ResultStore::runs() const try {
  SQLite::Statement s(*db_, kRunSelect + "ORDER BY r.id");
  std::vector<RunInfo> out;
  while (s.executeStep()) out.push_back(read_run(s));
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::optional<RunInfo> ResultStore::run(int64_t id) const try {
  SQLite::Statement s(*db_, kRunSelect + "WHERE r.id = ?");
  s.bind(1, id);
  if (!s.executeStep()) return std::nullopt;
  return read_run(s);
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::optional<int64_t> ResultStore::default_run() const {
  SQLite::Statement s(*db_, "SELECT max(run_id) FROM measurements");
  if (!s.executeStep() || s.getColumn(0).isNull()) return std::nullopt;
  return s.getColumn(0).getInt64();
}

std::vector<Measurement> ResultStore::measurements(
    int64_t run, const std::function<void(size_t rows_read)>& rows_read, size_t every) const try {
  SQLite::Statement s(
      *db_, std::string("SELECT ") + kOperatorColumns +
                ", mp.hash, mp.name, mp.yaml, m.implementation, m.timing_scope, m.repetitions, "
                "m.min_ns, m.median_ns, m.spread, m.max_error, m.checked, " +
                (file_version_ >= 2 ? "m.median_ci, m.unstable " : "NULL, '' ") +
                "FROM measurements m JOIN operators o ON o.id = m.operator_id "
                "LEFT JOIN mappings mp ON mp.id = m.mapping_id "
                "WHERE m.run_id = ? ORDER BY m.id");
  s.bind(1, run);
  std::vector<Measurement> out;
  while (s.executeStep()) {
    Measurement m;
    m.op = read_operator(s);
    const int c = kOperatorColumnCount;
    if (!s.getColumn(c).isNull())
      m.mapping = MappingRecord{s.getColumn(c).getString(), s.getColumn(c + 1).getString(),
                                s.getColumn(c + 2).getString()};
    m.implementation = s.getColumn(c + 3).getString();
    m.scope = parse_timing_scope(s.getColumn(c + 4).getString()).value_or(TimingScope::host_call);
    m.repetitions = s.getColumn(c + 5).getInt();
    m.min_ns = s.getColumn(c + 6).getDouble();
    m.median_ns = s.getColumn(c + 7).getDouble();
    m.spread = s.getColumn(c + 8).getDouble();
    m.max_error = s.getColumn(c + 9).getDouble();
    m.checked = s.getColumn(c + 10).getInt() != 0;
    if (!s.getColumn(c + 11).isNull()) m.median_ci = s.getColumn(c + 11).getDouble();
    m.unstable = s.getColumn(c + 12).getString();
    m.instability = m.unstable.empty() ? Instability::none : Instability::unknown;
    out.push_back(std::move(m));
    if (rows_read && out.size() % every == 0) rows_read(out.size());
  }
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::optional<PredictionRecord> ResultStore::prediction(const OperatorKey& op,
                                                        const std::string& mapping_hash,
                                                        const std::string& arch_hash) const try {
  SQLite::Statement s(*db_, kPredictionSelect +
                                "WHERE o.suite = ? AND o.name = ? AND o.dims = ? AND o.dtypes = ? "
                                "AND p.mapping_hash = ? AND p.arch_hash = ?");
  s.bind(1, op.suite);
  s.bind(2, op.name);
  s.bind(3, op.dims);
  s.bind(4, op.dtypes);
  s.bind(5, mapping_hash);
  s.bind(6, arch_hash);
  if (!s.executeStep()) return std::nullopt;
  return read_prediction(s);
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::vector<PredictionRecord> ResultStore::predictions(const std::string& arch_hash) const try {
  SQLite::Statement s(*db_, kPredictionSelect + "WHERE p.arch_hash = ? ORDER BY p.id");
  s.bind(1, arch_hash);
  std::vector<PredictionRecord> out;
  while (s.executeStep()) out.push_back(read_prediction(s));
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::vector<std::pair<std::string, int64_t>> ResultStore::table_counts() const try {
  std::vector<std::pair<std::string, int64_t>> out;
  for (const char* table : kTables)
    out.emplace_back(table,
                     db_->execAndGet(fmt::format("SELECT count(*) FROM {}", table)).getInt64());
  if (file_version_ >= kFirstSweepVersion)
    out.emplace_back("sweep_points",
                     db_->execAndGet("SELECT count(*) FROM sweep_points").getInt64());
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

void ResultStore::add_sweep_point(const SweepPointRecord& p) try {
  require_writable(mode_, path_);
  SQLite::Statement s(*db_,
                      "INSERT INTO sweep_points (sweep_key, workload_hash, parameters_json, "
                      "arch_hash, total_s, cost, operators_json, created_at, energy_j, area_m2) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (sweep_key, workload_hash, parameters_json) DO NOTHING");
  s.bind(1, p.sweep_key);
  s.bind(2, p.workload_hash);
  s.bind(3, p.parameters_json);
  s.bind(4, p.arch_hash);
  s.bind(5, p.total_s);
  s.bind(6, p.cost);
  s.bind(7, sweep_operators_json(p.operators));
  s.bind(8, utc_now_iso());
  bind_figure(s, 9, p.energy_j);
  bind_figure(s, 10, p.area_m2);
  s.exec();  // one statement: its own transaction outside write_all
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

void ResultStore::update_sweep_points(const std::vector<SweepPointRecord>& points) try {
  require_writable(mode_, path_);
  std::optional<SQLite::Transaction> transaction;  // none inside write_all's: they do not nest
  if (!writing_all_) transaction.emplace(*db_, SQLite::TransactionBehavior::IMMEDIATE);
  SQLite::Statement s(*db_,
                      "UPDATE sweep_points SET total_s = ?, operators_json = ?, energy_j = ? "
                      "WHERE sweep_key = ? AND workload_hash = ? AND parameters_json = ?");
  for (const SweepPointRecord& p : points) {
    s.bind(1, p.total_s);
    s.bind(2, sweep_operators_json(p.operators));
    bind_figure(s, 3, p.energy_j);
    s.bind(4, p.sweep_key);
    s.bind(5, p.workload_hash);
    s.bind(6, p.parameters_json);
    s.exec();
    s.reset();
  }
  if (transaction) transaction->commit();
} catch (const SQLite::Exception& e) {
  refuse_write(path_, e);
}

std::vector<std::string> ResultStore::sweep_point_keys(const std::string& sweep_key,
                                                       const std::string& workload_hash) const try {
  std::vector<std::string> out;
  if (file_version_ < kFirstSweepVersion) return out;
  SQLite::Statement s(*db_,
                      "SELECT parameters_json FROM sweep_points WHERE sweep_key = ? AND "
                      "workload_hash = ? ORDER BY parameters_json");
  s.bind(1, sweep_key);
  s.bind(2, workload_hash);
  while (s.executeStep()) out.push_back(s.getColumn(0).getString());
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::vector<SweepPointRecord> ResultStore::sweep_points(const std::string& sweep_key,
                                                        const std::string& workload_hash) const
    try {
  std::vector<SweepPointRecord> out;
  if (file_version_ < kFirstSweepVersion) return out;
  // A read-only open of a schema-3 file has no energy or area: they read as unknown.
  SQLite::Statement s(
      *db_, std::string("SELECT parameters_json, arch_hash, total_s, cost, "
                        "operators_json, ") +
                (file_version_ >= kFirstSweepEnergyVersion ? "energy_j, area_m2 " : "NULL, NULL ") +
                ", id FROM sweep_points WHERE sweep_key = ? AND workload_hash = ? "
                "ORDER BY parameters_json");
  s.bind(1, sweep_key);
  s.bind(2, workload_hash);
  while (s.executeStep()) {
    // The most points a sweep evaluates (common/WorkLimits.hpp): a store holding more of one
    // sweep was not written by `tilescope sweep`.
    if (out.size() >= kMaxSweepPoints)
      throw InputError(
          SourceLocation{path_, 0, 0},
          fmt::format("sweep_points holds more than {} points of one sweep; expected at most {}, "
                      "the points one sweep evaluates (docs/formats.md, \"Sizes\")",
                      kMaxSweepPoints, kMaxSweepPoints));
    out.push_back(read_sweep_point(s, path_, sweep_key, workload_hash));
  }
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

std::vector<std::pair<std::string, std::string>> ResultStore::sweeps() const try {
  std::vector<std::pair<std::string, std::string>> out;
  if (file_version_ < kFirstSweepVersion) return out;
  SQLite::Statement s(*db_,
                      "SELECT sweep_key, workload_hash FROM sweep_points "
                      "GROUP BY sweep_key, workload_hash ORDER BY max(id) DESC");
  while (s.executeStep()) out.emplace_back(s.getColumn(0).getString(), s.getColumn(1).getString());
  return out;
} catch (const SQLite::Exception& e) {
  refuse_read(path_, e);
}

int64_t run_to_read(const ResultStore& store, std::optional<int64_t> run) {
  if (run) return *run;
  if (const std::optional<int64_t> id = store.default_run()) return *id;
  const std::vector<RunInfo> runs = store.runs();
  if (runs.empty())
    throw InputError(SourceLocation{store.path(), 0, 0},
                     "the database holds no runs; `tilescope measure` records one");
  throw InputError(
      SourceLocation{store.path(), 0, 0},
      fmt::format("none of its {} run{} holds a measurement (the latest, run {}, is {}); "
                  "`tilescope measure` records one",
                  runs.size(), runs.size() > 1 ? "s" : "", runs.back().id,
                  to_string(runs.back().status)));
}

}  // namespace ts
