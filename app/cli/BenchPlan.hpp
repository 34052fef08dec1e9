#pragma once
// The line a long bench prints before it starts: what it will do and about how long on this
// machine, so that nobody waits minutes without knowing why. The time is worked out from the
// bench's work counts (the seconds it times, the mapper evaluations it makes) at this machine's
// evaluation rates, on one thread and on all at once, measured first for a tenth of a second
// each, never a constant: a slower machine, or one busy with other work, is told a longer time.
// A search makes at most its budget of evaluations and stops sooner once it has converged, so
// the mapper's part is an upper bound, of the right order.
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"

namespace ts::cli {

// Evaluations per second of `program` on the calling thread: the best of `repetitions` runs of
// `seconds` each.
double evaluations_per_second(const MappingProgram& program, double seconds, int repetitions);

class BenchPlan {
 public:
  explicit BenchPlan(std::string bench) : bench_(std::move(bench)) {}

  // A part: what it does, in words, the seconds it times, the mapper evaluations it makes
  // spread over every thread and those it makes on one thread alone.
  void add(std::string what, double timed_s, double parallel_evaluations,
           double serial_evaluations = 0);
  // Measures this machine's evaluation rates on `probe`, on one thread and on every thread at
  // once (a fifth of a second each): what line() and ceiling() say.
  void measure(const MappingProgram& probe);
  // The seconds the parts take at the rates measure() found.
  double seconds() const;
  // "bench model: A; B: about 1 min 30 s on this machine (2 threads); Ctrl-C stops\n".
  std::string line() const;
  // How many times as fast as one thread every thread evaluated, in measure(): the most any
  // speed-up of threads can be on this machine just then (a machine shared with other work
  // gives less than its cores).
  double ceiling() const { return all_rate_ / one_rate_; }

 private:
  std::string bench_;
  std::vector<std::string> parts_;
  double timed_s_ = 0, parallel_evaluations_ = 0, serial_evaluations_ = 0;
  double one_rate_ = 1, all_rate_ = 1;  // evaluations per second
};

}  // namespace ts::cli
