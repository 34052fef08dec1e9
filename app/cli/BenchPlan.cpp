#include "BenchPlan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "TerminalProgress.hpp"
#include "analysis/AnalysisResult.hpp"
#include "common/WorkThreads.hpp"

namespace ts::cli {

double evaluations_per_second(const MappingProgram& program, double seconds, int repetitions) {
  using Clock = std::chrono::steady_clock;
  AnalysisScratch eval;
  prepare(program, eval);
  double best = 0;
  for (int r = 0; r < repetitions; ++r) {
    uint64_t n = 0;
    double sink = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
      for (int i = 0; i < 1000; ++i) sink += evaluate(program, eval);
      n += 1000;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (!(sink > 0)) throw std::runtime_error("the bench mapping does not evaluate");
    best = std::max(best, static_cast<double>(n) / elapsed);
  }
  return best;
}

namespace {

// Evaluations per second of `program` on every thread at once (one scratch each), as a parallel
// search gets them now: the cores and what else runs on them decide it.
double evaluations_per_second_on_all(const MappingProgram& program, double seconds) {
  using Clock = std::chrono::steady_clock;
  std::atomic<uint64_t> total{0};
  const auto start = Clock::now();
  for_each_item(static_cast<size_t>(available_threads()), [&](size_t) {
    AnalysisScratch eval;
    prepare(program, eval);
    uint64_t n = 0;
    double sink = 0;
    const auto mine = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - mine).count() < seconds) {
      for (int i = 0; i < 1000; ++i) sink += evaluate(program, eval);
      n += 1000;
    }
    if (!(sink > 0)) throw std::runtime_error("the bench mapping does not evaluate");
    total += n;
  });
  return static_cast<double>(total.load()) /
         std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

void BenchPlan::add(std::string what, double timed_s, double parallel_evaluations,
                    double serial_evaluations) {
  parts_.push_back(std::move(what));
  timed_s_ += timed_s;
  parallel_evaluations_ += parallel_evaluations;
  serial_evaluations_ += serial_evaluations;
}

void BenchPlan::measure(const MappingProgram& probe) {
  // Long enough to be steady, short beside any bench.
  constexpr double kProbeSeconds = 0.2;
  one_rate_ = evaluations_per_second(probe, kProbeSeconds, 1);
  all_rate_ = evaluations_per_second_on_all(probe, kProbeSeconds);
}

double BenchPlan::seconds() const {
  return timed_s_ + parallel_evaluations_ / all_rate_ + serial_evaluations_ / one_rate_;
}

std::string BenchPlan::line() const {
  std::string what;
  for (const std::string& p : parts_) what += (what.empty() ? "" : "; ") + p;
  const int threads = available_threads();
  return fmt::format("{}: {}: about {} on this machine ({} thread{}); Ctrl-C stops\n", bench_, what,
                     duration_text(seconds()), threads, threads == 1 ? "" : "s");
}

}  // namespace ts::cli
