#include "fuzz/LoaderEntry.hpp"

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "arch/ArchitectureLoader.hpp"
#include "collectors/cupti/RunnerPlan.hpp"
#include "common/InputError.hpp"
#include "common/WorkspaceFile.hpp"
#include "fuzz/GeneratedSqlite.hpp"
#include "measure/ResultStore.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/MsprofSummary.hpp"
#include "trace/NsysExport.hpp"
#include "trace/RunnerResults.hpp"
#include "trace/TraceImport.hpp"
#include "training/Cluster.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/PublishedRuns.hpp"
#include "training/TransformerModel.hpp"
#include "workload/WorkloadLoader.hpp"
#include "workload/WorkloadWriter.hpp"

namespace ts::fuzz {
namespace {

// The name errors carry: as if the CLI had been given a file of that name.
constexpr const char* kInputName = "fuzz-input";

// A YAML file names others relative to itself (an architecture's mapping templates, ...): the
// input is named as if it lay among the bundled samples of its kind, so that a seed taken from
// there, and its mutations, resolve those paths as they do on the command line. Nothing is
// written there.
std::string sample_input_name(const char* samples_folder) {
  return std::string(TILESCOPE_SOURCE_DIR) + "/samples/" + samples_folder + "/" + kInputName +
         ".yaml";
}

// `load_published_runs` reads only from a path, and a validation file names its cluster, models
// and strategies relative to itself (`../clusters/...`). The bytes go to one file per process
// (fuzzing in parallel runs several), rewritten for every input, in a temporary folder that
// mirrors samples/dist with links to its folders, so that seeds from samples/dist/validation
// resolve as they do on the command line.
std::string write_published_runs_file(const std::string& bytes) {
  namespace fs = std::filesystem;
  const fs::path folder =
      fs::temp_directory_path() / ("tilescope-fuzz-" + std::to_string(getpid()));
  const fs::path samples = fs::path(TILESCOPE_SOURCE_DIR) / "samples" / "dist";
  // Removed when the process ends (the links only, never what they point to).
  struct RemovedAtExit {
    fs::path folder;
    ~RemovedAtExit() {
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  };
  static const RemovedAtExit removed_at_exit{folder};
  if (!fs::exists(folder / "validation")) {
    fs::create_directories(folder / "validation");
    for (const auto& entry : fs::directory_iterator(samples))
      if (entry.is_directory() && entry.path().filename() != "validation")
        fs::create_directory_symlink(entry.path(), folder / entry.path().filename());
  }
  const fs::path file = folder / "validation" / (std::string(kInputName) + ".yaml");
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write the fuzz input to " + file.string());
  return file.string();
}

// A workspace names its members relative to itself: the input is named as if it lay among the
// committed workspaces (the seeds), so that their members, and the workspaces among them that
// name each other, resolve as they do in the GUI. Nothing is written there.
std::string workspace_input_name() {
  return std::string(TILESCOPE_SOURCE_DIR) + "/tests/fixtures/workspaces/" + kInputName + ".yaml";
}

// A folder of this process's own (fuzzing in parallel runs several) for the inputs that a loader
// reads only from a path, removed with what is in it when the process ends.
std::filesystem::path scratch_folder() {
  namespace fs = std::filesystem;
  struct Folder {
    fs::path path =
        fs::temp_directory_path() / ("tilescope-fuzz-inputs-" + std::to_string(getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  };
  static const Folder folder;
  return folder.path;
}

// Writes `bytes` to the scratch file `name` (rewritten for every input); returns its path.
std::string scratch_file(const std::string& name, const std::string& bytes) {
  const std::filesystem::path file = scratch_folder() / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write the fuzz input to " + file.string());
  return file.string();
}

// A fresh database at `name` in the scratch folder (its -wal and -shm gone too).
std::string fresh_database(const std::string& name) {
  const std::filesystem::path db = scratch_folder() / name;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    std::filesystem::remove(db.string() + suffix);
  return db.string();
}

// What a trace import must never do with what its reader accepted, checked as the import does it
// up to the write (prepare_trace_import; the store itself is not opened): store a time that is not
// a finite duration >= 0, or write a workload its own loader refuses (the one size rule of
// workload/WorkloadLimits.hpp). The import's documented refusals (InputError) pass through.
void check_trace_import(TraceEvents events) {
  ImportRequest request;
  request.file = kInputName;
  const PreparedTraceImport prepared = prepare_trace_import(events, request);
  for (const Measurement& m : prepared.measurements)
    if (!std::isfinite(m.min_ns) || !std::isfinite(m.median_ns) || !std::isfinite(m.spread) ||
        m.min_ns < 0 || m.median_ns < m.min_ns || m.spread < 0)
      throw std::logic_error(
          "the import would store " + m.op.name + " with min " + std::to_string(m.min_ns) +
          " ns, median " + std::to_string(m.median_ns) + " ns, spread " + std::to_string(m.spread));
  if (!prepared.workload) return;
  const std::string yaml = workload_yaml(*prepared.workload);
  try {
    parse_workload(yaml, "the-imported-workload.yaml");
  } catch (const InputError& e) {
    throw std::logic_error(std::string("the import would write a workload its loader refuses: ") +
                           e.what());
  }
}

void load_kineto(const std::string& bytes) {
  check_trace_import(read_kineto_trace(scratch_file(std::string(kInputName) + ".json", bytes)));
}

void load_msprof(const std::string& bytes) {
  check_trace_import(read_msprof_summary(scratch_file(std::string(kInputName) + ".csv", bytes)));
}

void load_nsys(const std::string& bytes) {
  const std::string db = fresh_database(std::string(kInputName) + ".sqlite");
  write_generated_sqlite(db, bytes);
  check_trace_import(read_nsys_export(db));
}

// The sweep_points columns a fuzz row fills, in the order its values are written.
const std::vector<std::string> kSweepPointColumns = {
    "sweep_key", "workload_hash",  "parameters_json", "arch_hash", "total_s",
    "cost",      "operators_json", "created_at",      "energy_j",  "area_m2"};

// A results database with the current schema and no rows, made once per process by the store
// itself and copied for every input.
const std::string& empty_store() {
  static const std::string path = [] {
    const std::string db = fresh_database("empty-store.sqlite");
    { ResultStore store(db, ResultStore::Mode::read_write); }
    return db;
  }();
  return path;
}

void load_sweep_store(const std::string& bytes) {
  const std::string db = fresh_database(std::string(kInputName) + "-store.sqlite");
  std::filesystem::copy_file(empty_store(), db);
  write_generated_sqlite(db, bytes, GeneratedTables{"sweep_points", kSweepPointColumns});
  // What `report --sweep` and a resumed sweep read: every sweep, its points and their keys.
  const ResultStore store(db, ResultStore::Mode::read_only);
  for (const auto& [sweep_key, workload_hash] : store.sweeps()) {
    store.sweep_point_keys(sweep_key, workload_hash);
    store.sweep_points(sweep_key, workload_hash);
  }
}

void load_csv_measurements(const std::string& bytes) {
  // `correlate --csv` and `fit --measurements` read the table and then the shape columns of the
  // operator class given on the command line: every class is tried, each may refuse the table.
  const CsvTable table = parse_csv(bytes, kInputName);
  for (const std::string& op_type : csv_operator_types()) {
    try {
      shape_measurements(table, op_type, DataType::fp16);
    } catch (const InputError&) {
    }
  }
}

void load_runner_plan(const std::string& bytes) {
  std::istringstream in(bytes);
  cupti::parse_plan(in, kInputName);
}

}  // namespace

const std::vector<LoaderEntry>& loader_entries() {
  static const std::vector<LoaderEntry> entries = {
      {"architecture", "architecture graph (kind: architecture)",
       [](const std::string& b) { parse_architecture(b, sample_input_name("arch")); }},
      {"workload", "workload (kind: workload)",
       [](const std::string& b) { parse_workload(b, sample_input_name("workloads")); }},
      {"mapping", "mapping (kind: mapping)",
       [](const std::string& b) { parse_mapping(b, sample_input_name("mappings")); }},
      {"model", "training model (kind: model)",
       [](const std::string& b) { parse_transformer_model(b, sample_input_name("dist/models")); }},
      {"strategy", "parallel strategy (kind: strategy)",
       [](const std::string& b) {
         parse_parallel_strategy(b, sample_input_name("dist/strategies"));
       }},
      {"cluster", "cluster (kind: cluster)",
       [](const std::string& b) { parse_cluster(b, sample_input_name("dist/clusters")); }},
      {"published_runs", "published training runs (kind: dist-validation)",
       [](const std::string& b) { load_published_runs(write_published_runs_file(b)); }},
      {"csv", "CSV measurements (correlate --csv, fit --measurements)", load_csv_measurements},
      {"runner_results", "runner results (JSON lines of tilescope-cupti-runner)",
       [](const std::string& b) { parse_runner_results(b, kInputName); }},
      {"runner_plan", "runner plan (measure --collector cupti --plan)", load_runner_plan},
      {"workspace", "GUI workspace (kind: workspace)",
       [](const std::string& b) { parse_workspace(b, workspace_input_name()); }},
      {"kineto", "PyTorch profiler (Kineto) Chrome trace, imported up to the store", load_kineto},
      {"nsys", "Nsight Systems export: SQLite made from the input (fuzz/GeneratedSqlite.hpp)",
       load_nsys},
      {"msprof", "msprof op_summary CSV, imported up to the store", load_msprof},
      {"sweep_store", "sweep store: sweep_points rows made from the input, read as report reads",
       load_sweep_store},
  };
  return entries;
}

const LoaderEntry& loader_entry(std::string_view target) {
  for (const LoaderEntry& entry : loader_entries())
    if (entry.target == target) return entry;
  throw std::out_of_range("no fuzz target '" + std::string(target) + "'");
}

LoaderOutcome feed_loader(const LoaderEntry& entry, const std::string& bytes) {
  try {
    entry.load(bytes);
    return LoaderOutcome::accepted;
  } catch (const InputError&) {
    return LoaderOutcome::refused;
  } catch (const cupti::PlanError&) {
    // The runner's own error type (it builds without core/): file:line and what was expected.
    return LoaderOutcome::refused;
  }
}

}  // namespace ts::fuzz
