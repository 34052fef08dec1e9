#pragma once
// What a collector is: a way of measuring a workload's operators and storing the measurements
// (with the predictions they are compared with) in a results database. `tilescope measure
// --collector NAME` finds the collector by name here; a new collector implements `Collector` and
// adds one line to the list that registers the built-in ones (collectors/BuiltinCollectors.cpp,
// register_builtin_collectors), so that nothing else in the CLI changes. The registry is filled by
// that explicit call rather than by static objects, which the linker drops from a static library
// when nothing names them.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "measure/MeasurementRecord.hpp"

namespace ts {

// The settings of one `tilescope measure`, common to every collector; a collector reads those
// that apply to it. A zero count means "the collector's default".
struct MeasureRequest {
  std::string workload_file;
  std::string arch_file;     // empty: the collector's default graph
  std::string db_path;       // empty: no database (a collector may then only write a plan)
  std::string mappings_dir;  // mapping files (each naming its operator) instead of generated ones
  std::string save_mappings_dir;
  std::string plan_file;             // cupti: write the runner's plan here and stop
  std::string runner_path;           // cupti: the runner to run (empty: the one beside tilescope)
  std::string kernel_template_file;  // cupti: the schedule of tilescope's own CUDA GEMM
  size_t mappings_per_gemm = 0;
  uint64_t seed = 20261129;
  int repetitions = 0;  // at least, per operator (0: the collector's default)
  int max_repetitions =
      0;                 // host: at most, while the median is not within `tolerance` (0: default)
  double tolerance = 0;  // host: the median's 95 % interval aimed at, +- (0: default)
  int threads = 0;       // 0: one per core
  int group_size = 8;
  bool flush_caches = true;
  bool openblas = true;
  uint64_t mapper_budget = 0;  // mapper evaluations per operator
  std::string command_line;    // recorded with the run
  std::string tool_version;
};

struct CollectorProgress {
  enum class Stage { planning, measuring };
  Stage stage = Stage::measuring;
  size_t done = 0;      // planning: operators begun; measuring: jobs whose repetitions are over
  size_t total = 0;     // fixed for a stage; 0: the stage is over (a terminal clears its line)
  std::string current;  // operator name
};

// How a collector talks to whoever runs it (a terminal, a GUI, a test): result lines, warnings,
// progress, and a flag that asks it to stop between repetitions.
struct CollectorSession {
  std::function<void(const std::string& line)> print;  // results (the CLI's stdout)
  std::function<void(const std::string& line)> warn;   // warnings and summaries (stderr)
  std::function<void(const CollectorProgress&)> progress;
  const std::atomic<bool>* cancel = nullptr;
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string name() const = 0;      // `--collector NAME`
  virtual std::string measures() const = 0;  // one line: what it runs and where
  // The timing scopes its measurements record (a run holds one scope, so that correlate compares
  // like with like).
  virtual std::vector<TimingScope> scopes() const = 0;
  // The implementations its measurements name (`Measurement::implementation`).
  virtual std::vector<std::string> implementations() const = 0;
  // Plans the suite, measures it and stores runs, measurements and predictions. Returns the exit
  // status (0; 1 when some jobs failed; 130 when cancelled); throws InputError for bad input
  // before anything is written.
  virtual int measure(const MeasureRequest& request, CollectorSession& session) const = 0;
};

// The collectors of this process, in the order they were added.
class CollectorRegistry {
 public:
  // Throws std::invalid_argument when the name is taken.
  void add(std::unique_ptr<Collector> collector);
  const Collector* find(std::string_view name) const;
  // Throws InputError at `where` naming the registered collectors when none has the name.
  const Collector& get(std::string_view name, const std::string& where) const;
  std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<Collector>> collectors_;
};

CollectorRegistry& collectors();

}  // namespace ts
