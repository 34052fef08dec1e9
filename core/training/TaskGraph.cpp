#include "training/TaskGraph.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "common/InputError.hpp"
#include "common/WorkLabel.hpp"

namespace ts {

namespace {

bool needs_fluid(const TaskGraph& g) {
  for (const Task& t : g.tasks)
    if (!t.links.empty() || (g.interference > 0 && t.device >= 0)) return true;
  return false;
}

// Every free stream whose head has its dependencies done starts it; returns the started ids.
// Tasks wait only for finished tasks, so starts happen only at event times.
std::vector<int> start_ready(const TaskGraph& g, std::vector<size_t>& next, std::vector<char>& busy,
                             const std::vector<char>& done) {
  std::vector<int> started;
  for (int s = 0; s < g.streams; ++s) {
    if (busy[static_cast<size_t>(s)]) continue;
    const auto& queue = g.order[static_cast<size_t>(s)];
    const size_t head = next[static_cast<size_t>(s)];
    if (head >= queue.size()) continue;
    const int id = queue[head];
    bool ready = true;
    for (int d : g.tasks[static_cast<size_t>(id)].after)
      if (!done[static_cast<size_t>(d)]) {
        ready = false;
        break;
      }
    if (!ready) continue;
    busy[static_cast<size_t>(s)] = 1;
    started.push_back(id);
  }
  return started;
}

// Max-min fair rates of the running tasks over their links, by progressive filling: all rates
// rise together from 0; when a link's capacity (in full-rate flows) is used up, the flows on it
// keep their rate and the rest rise on; a flow alone stops at its full rate, 1. Tasks without
// links run at 1. `room` and `unfrozen` come in with the capacity and count 0 on every link in
// use.
void fill_max_min(const TaskGraph& g, const std::vector<int>& running, std::vector<double>& room,
                  std::vector<int>& unfrozen, std::vector<char>& frozen,
                  std::vector<double>& rate) {
  size_t rising = 0;
  for (int id : running) {
    const Task& task = g.tasks[static_cast<size_t>(id)];
    rate[static_cast<size_t>(id)] = task.links.empty() ? 1 : 0;
    frozen[static_cast<size_t>(id)] = task.links.empty();
    if (task.links.empty()) continue;
    ++rising;
    for (int l : task.links) ++unfrozen[static_cast<size_t>(l)];
  }
  while (rising > 0) {
    // The largest common rise: until a link is full, or the flows reach their full rate.
    double rise = std::numeric_limits<double>::infinity();
    for (int id : running) {
      if (frozen[static_cast<size_t>(id)]) continue;
      rise = std::min(rise, 1 - rate[static_cast<size_t>(id)]);
      for (int l : g.tasks[static_cast<size_t>(id)].links)
        rise = std::min(rise, room[static_cast<size_t>(l)] / unfrozen[static_cast<size_t>(l)]);
    }
    for (int id : running) {
      if (frozen[static_cast<size_t>(id)]) continue;
      rate[static_cast<size_t>(id)] += rise;
      for (int l : g.tasks[static_cast<size_t>(id)].links) room[static_cast<size_t>(l)] -= rise;
    }
    // Freeze the flows on full links and those at full rate.
    for (int id : running) {
      if (frozen[static_cast<size_t>(id)]) continue;
      bool stop = rate[static_cast<size_t>(id)] >= 1 - 1e-12;
      for (int l : g.tasks[static_cast<size_t>(id)].links)
        stop = stop || room[static_cast<size_t>(l)] <= 1e-12;
      if (!stop) continue;
      frozen[static_cast<size_t>(id)] = 1;
      --rising;
      for (int l : g.tasks[static_cast<size_t>(id)].links) --unfrozen[static_cast<size_t>(l)];
    }
  }
}

// The fluid run: at each event, every running task progresses at its rate (its share of its
// link, slowed by interference on its device) until the next one finishes.
TaskTimes run_fluid(const TaskGraph& g) {
  const size_t n = g.tasks.size();
  TaskTimes t;
  t.start_s.assign(n, 0);
  t.end_s.assign(n, 0);
  t.busy_s.assign(static_cast<size_t>(g.streams), 0);
  std::vector<char> done(n, 0), stream_busy(static_cast<size_t>(g.streams), 0);
  std::vector<size_t> next(static_cast<size_t>(g.streams), 0);
  std::vector<double> left(n, 0);  // seconds of work at full rate still to do
  std::vector<int> running;
  size_t finished = 0;
  double now = 0;
  auto launch = [&] {
    // Zero-length tasks finish as they start, which may make more tasks ready at once.
    while (true) {
      const std::vector<int> started = start_ready(g, next, stream_busy, done);
      if (started.empty()) return;
      bool instant = false;
      for (int id : started) {
        t.start_s[static_cast<size_t>(id)] = now;
        left[static_cast<size_t>(id)] = g.tasks[static_cast<size_t>(id)].duration_s;
        if (left[static_cast<size_t>(id)] <= 0) {
          const int s = g.tasks[static_cast<size_t>(id)].stream;
          t.end_s[static_cast<size_t>(id)] = now;
          done[static_cast<size_t>(id)] = 1;
          stream_busy[static_cast<size_t>(s)] = 0;
          ++next[static_cast<size_t>(s)];
          ++finished;
          instant = true;
        } else {
          running.push_back(id);
        }
      }
      if (!instant) return;
    }
  };
  launch();
  int links = static_cast<int>(g.link_capacity.size()), devices = 0;
  for (const Task& task : g.tasks) {
    for (int l : task.links) links = std::max(links, l + 1);
    devices = std::max(devices, task.device + 1);
  }
  std::vector<double> room(static_cast<size_t>(links), 0);   // capacity left while filling
  std::vector<int> unfrozen(static_cast<size_t>(links), 0);  // flows still rising on a link
  std::vector<char> frozen(n, 0);
  std::vector<std::pair<int, int>> on_device(static_cast<size_t>(devices));  // compute, transfers
  std::vector<double> rate(n, 1);
  while (finished < n) {
    if (running.empty()) {
      for (int s = 0; s < g.streams; ++s)
        if (next[static_cast<size_t>(s)] < g.order[static_cast<size_t>(s)].size())
          throw std::logic_error(
              "task graph deadlocks at '" +
              g.tasks[static_cast<size_t>(
                          g.order[static_cast<size_t>(s)][next[static_cast<size_t>(s)]])]
                  .label +
              "': it waits for a task that can never run before it");
    }
    for (int id : running) {
      const Task& task = g.tasks[static_cast<size_t>(id)];
      for (int l : task.links) {
        room[static_cast<size_t>(l)] = static_cast<size_t>(l) < g.link_capacity.size()
                                           ? g.link_capacity[static_cast<size_t>(l)]
                                           : 1.0;
        unfrozen[static_cast<size_t>(l)] = 0;
      }
      if (task.device >= 0) on_device[static_cast<size_t>(task.device)] = {0, 0};
    }
    fill_max_min(g, running, room, unfrozen, frozen, rate);
    for (int id : running) {
      const Task& task = g.tasks[static_cast<size_t>(id)];
      if (task.device >= 0) {
        auto& d = on_device[static_cast<size_t>(task.device)];
        (task.transfer ? d.second : d.first)++;
      }
    }
    // The task that sets the step ends at it, whatever rounding leaves of its work: every pass
    // of this loop finishes at least one task, so the loop runs at most once per task.
    double step = std::numeric_limits<double>::infinity();
    int setter = running.empty() ? -1 : running.front();
    for (int id : running) {
      const Task& task = g.tasks[static_cast<size_t>(id)];
      double r = rate[static_cast<size_t>(id)];
      if (task.device >= 0 && g.interference > 0) {
        const auto& d = on_device[static_cast<size_t>(task.device)];
        if (d.first > 0 && d.second > 0) r /= 1 + g.interference;
      }
      rate[static_cast<size_t>(id)] = r;
      if (const double until = left[static_cast<size_t>(id)] / r; until < step) {
        step = until;
        setter = id;
      }
    }
    if (!std::isfinite(step) || !std::isfinite(now + step))
      throw InputError({"simulation", 0, 0},
                       fmt::format("task '{}' gets no share of its links (a capacity of 0?), so it "
                                   "never ends; expected every link to carry some rate",
                                   g.tasks[static_cast<size_t>(setter)].label));
    now += step;
    std::vector<int> still;
    for (int id : running) {
      double& l = left[static_cast<size_t>(id)];
      l -= rate[static_cast<size_t>(id)] * step;
      // Relative tolerance: the task that set the step ends exactly, others within rounding.
      if (id == setter || l <= 1e-12 * std::max(1.0, g.tasks[static_cast<size_t>(id)].duration_s)) {
        const int s = g.tasks[static_cast<size_t>(id)].stream;
        t.end_s[static_cast<size_t>(id)] = now;
        t.busy_s[static_cast<size_t>(s)] += now - t.start_s[static_cast<size_t>(id)];
        t.makespan_s = std::max(t.makespan_s, now);
        done[static_cast<size_t>(id)] = 1;
        stream_busy[static_cast<size_t>(s)] = 0;
        ++next[static_cast<size_t>(s)];
        ++finished;
      } else {
        still.push_back(id);
      }
    }
    running.swap(still);
    launch();
  }
  return t;
}

}  // namespace

TaskTimes run_task_graph(const TaskGraph& g) {
  const WorkLabel work("the simulation's timeline");
  // A duration comes from the inputs (bytes over a link's bandwidth, work over a unit's rate): a
  // link of 1e-300 B/s gives one no clock can step through, and inf - inf would stall the fluid
  // loop for ever. Refused here, naming the task, before any time is spent.
  for (const Task& task : g.tasks)
    if (!std::isfinite(task.duration_s) || task.duration_s < 0 || task.duration_s > kMaxTaskSeconds)
      throw InputError(
          {"simulation", 0, 0},
          fmt::format("task '{}' would take {:g} s; expected a finite time of at most {:g} s (a "
                      "link or unit in the cluster, graph or model with a rate near zero?)",
                      task.label, task.duration_s, kMaxTaskSeconds));
  if (needs_fluid(g)) return run_fluid(g);
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
