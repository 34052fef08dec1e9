#pragma once
// Where `correlate` and `fit` get their pairs: a CSV table of shapes predicted with the mapper,
// or a run of a results database joined with its stored predictions or re-predicted on a
// graph. Each point can carry a FitSample (operator + concrete mapping) so that a fit can
// re-predict it under changed parameters.
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/ParameterFit.hpp"
#include "correlate/Correlation.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/ResultStore.hpp"
#include "trace/TraceTimeCoverage.hpp"

namespace ts {

// Called as work completes, from any thread but never from two at once. It may throw to abandon
// the input (the exception propagates to the caller).
using InputProgress = std::function<void(size_t done, size_t total)>;

// The share of an imported trace's kernel time that the compared operators stand for: each
// operator's measured median times its runs against the trace's kernel time, per class, and the
// predictions for the same runs; what the import left out, by why. So that a MAPE over 16
// operators is not read as the error on a whole step they are a third of.
struct TraceTimeShare {
  struct ClassShare {
    double trace_ns = 0;      // the class's kernel time in the trace
    double compared_ns = 0;   // of it, in compared operators (median x runs)
    double predicted_ns = 0;  // their predictions for the same runs
  };
  TraceTimeCoverage trace;  // as the import recorded it
  double compared_ns = 0;
  double predicted_ns = 0;
  std::map<std::string, ClassShare> classes;
};
std::string trace_time_share_text(const TraceTimeShare& share);
nlohmann::json trace_time_share_json(const TraceTimeShare& share);

struct CorrelationInput {
  std::vector<ComparedPoint> points;
  std::vector<FitSample> samples;  // one per point, in the same order, when asked for
  std::vector<std::string> notes;  // what was left out and why, for the report
  std::string source;              // "FILE (N rows)" or "FILE run N (collector, workload)"
  std::string arch_hash;           // of the graph the predictions come from
  // Measurements the collector marked unstable (Measurement::unstable): kept in `points`, or
  // left out when asked (DbInputOptions::exclude_unstable); a note says which.
  size_t unstable = 0;
  bool unstable_excluded = false;
  // Operators the mapper mapped here whose search ran out of budget while still improving.
  UnconvergedSearches unconverged;
  // For a run imported from a trace (its settings record the trace's time): the share of it
  // compared.
  std::optional<TraceTimeShare> trace_share;
};

struct CsvInputOptions {
  std::string path;
  // A builder (gemm, batched_gemm, softmax, ...), by-row, neusight, or empty for a table that
  // says its own format (NeuSight's).
  std::string op_type;
  // Only the rows of this device, for a table of several (NeuSight's `device`); empty: every
  // row, and a table of more than one device is refused (one graph cannot stand for several).
  std::string device;
  DataType dtype = DataType::fp16;
  TimingScope scope = TimingScope::host_call;
  MapperOptions mapper;
  bool with_samples = false;
  InputProgress progress;
};

// Every row predicted on `graph` with the mapper (rows in parallel). A row the mapper cannot map
// is left out and named in a note; bad input (the table, the class) throws InputError.
CorrelationInput csv_input(const ArchitectureGraph& graph, const CsvInputOptions& options);

struct DbInputOptions {
  std::string path;
  std::optional<int64_t> run;  // the default run (run_to_read) when none
  // null: the stored predictions of the run's device.arch_hash; else every measurement is
  // re-predicted on this graph (its measured mapping, or the mapper for a black box).
  const ArchitectureGraph* graph = nullptr;
  bool store_predictions = false;  // with a graph: keep the new predictions in the database
  // With a graph: a measurement whose operator and mapping already have a prediction stored
  // under this graph's content hash takes it instead of running the mapper again (a graph that
  // changed has another hash). Not with samples: a fit needs each point's mapping.
  bool reuse_stored = false;
  MapperOptions mapper;
  bool with_samples = false;      // needs a graph
  bool exclude_unstable = false;  // leave out measurements the collector marked unstable
  InputProgress progress;
};

// Measurements with checked = false, and measurements without a prediction, are left out and
// counted in notes; unstable ones are counted, and left out when asked. Throws InputError for a
// file that is not a results database, an unknown run, or a run without any usable measurement.
CorrelationInput db_input(const DbInputOptions& options);

// True when the file starts with the SQLite header ("SQLite format 3\0"), or, when it cannot be
// read, when its extension is .sqlite, .sqlite3 or .db.
bool is_sqlite_file(const std::string& path);

}  // namespace ts
