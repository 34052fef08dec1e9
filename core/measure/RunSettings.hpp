#pragma once
// The settings a run was made with, as the store keeps them (the run's `settings_json`): what
// was measured (workload, graph, results file), how (repetitions, threads, timing scope) and by
// which command. One writer and one reader, so that every collector, importer and face agrees
// on the keys. Every field is optional: each collector writes the keys it has, and databases
// written before a key existed lack it.
#include <cstdint>
#include <optional>
#include <string>

#include "measure/MeasurementRecord.hpp"

namespace ts {

struct RunSettings {
  // Every run.
  std::optional<std::string> command;        // the command line that made the run
  std::optional<std::string> workload_file;  // the workload suite it measured
  std::optional<std::string> arch_file;      // the graph its predictions were made on
  std::optional<std::string> arch_hash;      // that graph's content hash (hash_text)
  std::optional<uint64_t> mapper_budget;     // mapper evaluations per operator
  // Imported runner results (one run per implementation and timing scope).
  std::optional<std::string> results_file;
  std::optional<std::string> implementation;  // tilescope, cublas, cublaslt, vector
  std::optional<TimingScope> timing_scope;    // what every measurement of the run covers
  // The host collector.
  std::optional<int64_t> repetitions;      // at least
  std::optional<int64_t> max_repetitions;  // at most, while the median is not pinned down
  std::optional<double> tolerance;         // the median's 95 % interval aimed at, +-
  std::optional<int64_t> warmup;
  std::optional<int64_t> threads;
  std::optional<int64_t> group_size;
  std::optional<bool> flush_caches;
  std::optional<uint64_t> seed;
  std::optional<std::string> mappings;  // a mapping set file, or "generated"
  std::optional<uint64_t> mappings_per_gemm;
};

// The stored JSON object: the fields that are set, under their names.
std::string run_settings_json(const RunSettings& settings);

// The settings a stored JSON text holds. A key that is missing, or of another type than the one
// written here (a foreign or damaged writer), reads as unset; text that is not a JSON object
// reads as no settings at all.
RunSettings read_run_settings(const std::string& json);

// The graph a run's predictions were made with (or that an import named with --arch), when it
// recorded one that still exists, or a profile reference (`profile:NAME`); otherwise "".
std::string recorded_arch_file(const RunInfo& run);

}  // namespace ts
