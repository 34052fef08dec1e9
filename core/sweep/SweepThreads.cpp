#include "sweep/SweepThreads.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <mutex>

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
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  // Grain 1 and the simple partitioner: every point is its own task, taken as a thread frees up.
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<size_t>(0, pending.size(), 1),
        [&](const tbb::blocked_range<size_t>& r) {
          for (size_t i = r.begin(); i != r.end(); ++i) one(i);
        },
        tbb::simple_partitioner());
  });
  return done;
}

}  // namespace ts
