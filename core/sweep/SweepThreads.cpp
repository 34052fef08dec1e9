#include "sweep/SweepThreads.hpp"

#include <mutex>

#include "common/WorkThreads.hpp"
#include "mapper/OperatorPrediction.hpp"

namespace ts {

size_t evaluate_sweep_points(const SweepSpace& sweep, const std::vector<size_t>& pending,
                             int threads, const std::atomic<bool>* cancel,
                             const std::function<void(const SweepPointRecord&)>& finished) {
  std::mutex lock;
  size_t done = 0;
  const auto one = [&](size_t i) {
    if (cancel && cancel->load()) return;
    try {
      const SweepPointRecord point = sweep.evaluate(pending[i], cancel);
      const std::lock_guard<std::mutex> hold(lock);
      finished(point);
      ++done;
    } catch (const MapperCancelled&) {
      // Stopped part way: the point is not stored, so a rerun computes it.
    }
  };
  // Every point its own task, taken as a thread frees up: the one way core spreads work over
  // threads (common/WorkThreads), as predict does with a suite's operators.
  run_with_threads(threads, [&] { for_each_item(pending.size(), one); });
  return done;
}

}  // namespace ts
