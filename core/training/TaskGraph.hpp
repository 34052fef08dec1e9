#pragma once
// The distributed execution graph and its executor: tasks on streams (a device's compute
// stream, a link's transfers), each with a duration and the tasks it waits for. A stream runs its
// tasks one at a time in the order given; a task starts when its stream is free and everything it
// waits for has finished. This is the discrete-event core the simulator's schedules run on.
//
// Two things make tasks slow each other down, and then the executor runs as a fluid model
// (rates change at every start and end): transfers on different streams that cross shared
// links get their max-min fair shares (progressive filling: every flow's rate rises together
// until a link is full, the flows on it stay there, the others go on); and on a device, compute
// that runs while a transfer of that device runs is slowed by the graph's interference factor,
// and so is the transfer. A task's duration is its time alone, at its full rate.
#include <cstdint>
#include <string>
#include <vector>

#include "common/InputError.hpp"
#include "common/WorkLimits.hpp"

namespace ts {

struct Task {
  int stream = 0;
  double duration_s = 0;
  std::vector<int> after;  // tasks that must finish first
  std::string label;       // for timelines and errors, e.g. "F mb3 c1"
  // Device memory the task takes from its start (> 0) or gives back at its end (< 0), on the
  // device its stream belongs to: a forward pass keeps its activations until its backward.
  double memory_bytes = 0;
  // Shared links the task's bytes cross (none: it has its path to itself). A link carries its
  // capacity in full-rate flows (1 unless the graph says otherwise): flows that meet on it share
  // it max-min fairly.
  std::vector<int> links;
  // The device the task runs on or sends from, or -1; and whether it is a transfer (otherwise
  // compute), for the interference between the two.
  int device = -1;
  bool transfer = false;
};

struct TaskGraph {
  int streams = 0;
  // Compute and transfers overlapping on one device both run at 1 / (1 + interference).
  double interference = 0;
  std::vector<Task> tasks;
  // Capacity of each shared link, in full-rate flows; a link beyond the list carries 1.
  std::vector<double> link_capacity;
  // Per stream, its tasks in the order the stream runs them.
  std::vector<std::vector<int>> order;

  int add_stream() {
    order.emplace_back();
    return streams++;
  }
  int add_link(double capacity) {
    link_capacity.push_back(capacity);
    return static_cast<int>(link_capacity.size()) - 1;
  }
  int add(Task t) {
    if (tasks.size() >= kMaxTasks)
      throw InputError({"simulation", 0, 0},
                       "more than " + std::to_string(kMaxTasks) +
                           " tasks (micro-batches x stages x layers x ranks); expected at most "
                           "that (docs/formats.md, \"Sizes\")");
    const int id = static_cast<int>(tasks.size());
    order.at(static_cast<size_t>(t.stream)).push_back(id);
    tasks.push_back(std::move(t));
    return id;
  }
};

struct TaskTimes {
  std::vector<double> start_s, end_s;
  double makespan_s = 0;
  std::vector<double> busy_s;  // per stream
};

// Runs the graph. Throws std::logic_error naming a task when the streams' orders and the
// dependencies deadlock (a task waits for one queued behind it on the same stream, or a cycle).
TaskTimes run_task_graph(const TaskGraph& graph);

}  // namespace ts
