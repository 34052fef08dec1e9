#include "fuzz/LoaderEntry.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "arch/ArchitectureLoader.hpp"
#include "collectors/cupti/RunnerPlan.hpp"
#include "common/InputError.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/RunnerResults.hpp"
#include "training/Cluster.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/PublishedRuns.hpp"
#include "training/TransformerModel.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::fuzz {
namespace {

// The name errors carry: as if the CLI had been given a file of that name.
constexpr const char* kInputName = "fuzz-input";

// For the loaders that only read from a path: the bytes go to one file per process (fuzzing in
// parallel runs several), rewritten for every input, removed with the process's temp folder by
// the system. Relative paths inside it resolve against that folder, which holds nothing else.
std::string write_input_file(const std::string& bytes, const char* extension) {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("tilescope-fuzz-" + std::to_string(getpid()));
  std::filesystem::create_directories(folder);
  const std::filesystem::path file = folder / (std::string(kInputName) + extension);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write the fuzz input to " + file.string());
  return file.string();
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
       [](const std::string& b) { parse_architecture(b, kInputName); }},
      {"workload", "workload (kind: workload)",
       [](const std::string& b) { parse_workload(b, kInputName); }},
      {"mapping", "mapping (kind: mapping)",
       [](const std::string& b) { parse_mapping(b, kInputName); }},
      {"model", "training model (kind: model)",
       [](const std::string& b) { parse_transformer_model(b, kInputName); }},
      {"strategy", "parallel strategy (kind: strategy)",
       [](const std::string& b) { parse_parallel_strategy(b, kInputName); }},
      {"cluster", "cluster (kind: cluster)",
       [](const std::string& b) { parse_cluster(b, kInputName); }},
      {"published_runs", "published training runs (kind: dist-validation)",
       [](const std::string& b) { load_published_runs(write_input_file(b, ".yaml")); }},
      {"csv", "CSV measurements (correlate --csv, fit --measurements)", load_csv_measurements},
      {"runner_results", "runner results (JSON lines of tilescope-cupti-runner)",
       [](const std::string& b) { parse_runner_results(b, kInputName); }},
      {"runner_plan", "runner plan (measure --collector cupti --plan)", load_runner_plan},
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
