#include "common/WorkThreads.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <exception>
#include <optional>
#include <vector>

namespace ts {

int available_threads() { return tbb::info::default_concurrency(); }

void run_with_threads(int threads, const std::function<void()>& work) {
  // TBB runs at most as many threads as the machine has, and warns on stderr when an arena asks
  // for more: a larger count raises that limit while the work runs.
  std::optional<tbb::global_control> more;
  if (threads > available_threads())
    more.emplace(tbb::global_control::max_allowed_parallelism, static_cast<size_t>(threads));
  tbb::task_arena arena(threads > 0 ? threads : tbb::task_arena::automatic);
  arena.execute(work);
}

void for_each_item(size_t count, const std::function<void(size_t)>& each) {
  std::vector<std::exception_ptr> errors(count);
  std::atomic<size_t> first_failed{count};
  const auto one = [&](size_t i) {
    if (i > first_failed.load()) return;  // a serial loop would have stopped before it
    try {
      tbb::this_task_arena::isolate([&] { each(i); });
    } catch (...) {
      errors[i] = std::current_exception();
      size_t seen = first_failed.load();
      while (i < seen && !first_failed.compare_exchange_weak(seen, i)) {
      }
    }
  };
  // Grain 1 and the simple partitioner: every item is its own task.
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, count, 1),
      [&](const tbb::blocked_range<size_t>& r) {
        for (size_t i = r.begin(); i != r.end(); ++i) one(i);
      },
      tbb::simple_partitioner());
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace ts
