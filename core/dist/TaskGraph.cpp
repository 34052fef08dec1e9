#include "dist/TaskGraph.hpp"

#include <algorithm>
#include <stdexcept>

namespace ts {

TaskTimes run_task_graph(const TaskGraph& g) {
  const size_t n = g.tasks.size();
  TaskTimes t;
  t.start_s.assign(n, 0);
  t.end_s.assign(n, 0);
  t.busy_s.assign(static_cast<size_t>(g.streams), 0);
  std::vector<char> done(n, 0);
  std::vector<size_t> next(static_cast<size_t>(g.streams), 0);  // head of each stream's queue
  std::vector<double> free_at(static_cast<size_t>(g.streams), 0);
  size_t finished = 0;
  // Each pass starts every stream head whose dependencies are done; with fixed per-stream
  // orders, start times do not depend on which ready head goes first.
  while (finished < n) {
    bool progress = false;
    for (int s = 0; s < g.streams; ++s) {
      const auto& queue = g.order[static_cast<size_t>(s)];
      size_t& head = next[static_cast<size_t>(s)];
      while (head < queue.size()) {
        const int id = queue[head];
        const Task& task = g.tasks[static_cast<size_t>(id)];
        double ready = free_at[static_cast<size_t>(s)];
        bool waiting = false;
        for (int d : task.after) {
          if (!done[static_cast<size_t>(d)]) {
            waiting = true;
            break;
          }
          ready = std::max(ready, t.end_s[static_cast<size_t>(d)]);
        }
        if (waiting) break;
        t.start_s[static_cast<size_t>(id)] = ready;
        t.end_s[static_cast<size_t>(id)] = ready + task.duration_s;
        free_at[static_cast<size_t>(s)] = t.end_s[static_cast<size_t>(id)];
        t.busy_s[static_cast<size_t>(s)] += task.duration_s;
        t.makespan_s = std::max(t.makespan_s, t.end_s[static_cast<size_t>(id)]);
        done[static_cast<size_t>(id)] = 1;
        ++finished;
        ++head;
        progress = true;
      }
    }
    if (!progress) {
      for (int s = 0; s < g.streams; ++s) {
        const auto& queue = g.order[static_cast<size_t>(s)];
        if (next[static_cast<size_t>(s)] < queue.size())
          throw std::logic_error(
              "task graph deadlocks at '" +
              g.tasks[static_cast<size_t>(queue[next[static_cast<size_t>(s)]])].label +
              "': it waits for a task that can never run before it");
      }
    }
  }
  return t;
}

}  // namespace ts
