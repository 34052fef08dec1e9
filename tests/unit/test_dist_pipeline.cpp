// Pipeline schedules run on the task-graph executor. With no communication, the idle time they
// leave must be the published bubble (shared/validation/README.md): (p - 1) / m of the ideal
// time for GPipe and 1F1B, (p - 1) / (v m) for interleaved 1F1B with v chunks per device.
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "training/MemoryTimeline.hpp"
#include "training/PipelineOrder.hpp"

using namespace ts;

namespace {

// Busy time of one device: m micro-batches, forward 1 and backward 2 (units), spread over its
// chunks. The bubble is what the iteration takes beyond that.
double bubble_fraction(PipelineSchedule schedule, int64_t p, int64_t m, int64_t v) {
  const double forward = 1.0 / static_cast<double>(v), backward = 2.0 / static_cast<double>(v);
  const TaskTimes t = run_task_graph(pipeline_task_graph(schedule, p, m, v, forward, backward));
  const double ideal = 3.0 * static_cast<double>(m);
  for (int64_t s = 0; s < p; ++s) CHECK(t.busy_s[static_cast<size_t>(s)] == Approx(ideal));
  return t.makespan_s / ideal - 1.0;
}

}  // namespace

TEST_CASE("GPipe and 1F1B leave a bubble of (p - 1) / m", "[dist][pipeline]") {
  for (auto [p, m] : {std::pair<int64_t, int64_t>{4, 8}, {8, 64}, {2, 3}, {8, 8}, {1, 5}}) {
    INFO("p " << p << ", m " << m);
    const double expected = static_cast<double>(p - 1) / static_cast<double>(m);
    CHECK(bubble_fraction(PipelineSchedule::gpipe, p, m, 1) == Approx(expected).margin(1e-12));
    CHECK(bubble_fraction(PipelineSchedule::one_f_one_b, p, m, 1) ==
          Approx(expected).margin(1e-12));
  }
}

TEST_CASE("interleaved 1F1B with v chunks leaves a bubble of (p - 1) / (v m)", "[dist][pipeline]") {
  for (auto [p, m, v] : {std::tuple<int64_t, int64_t, int64_t>{4, 8, 2},
                         {8, 64, 3},
                         {4, 4, 4},
                         {8, 16, 2},
                         {2, 6, 3}}) {
    INFO("p " << p << ", m " << m << ", v " << v);
    const double expected = static_cast<double>(p - 1) / static_cast<double>(v * m);
    CHECK(bubble_fraction(PipelineSchedule::interleaved, p, m, v) ==
          Approx(expected).margin(1e-12));
  }
}

TEST_CASE("every schedule runs each micro-batch's forward and backward of each chunk once",
          "[dist][pipeline]") {
  for (auto schedule :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved}) {
    const int64_t p = 4, m = 8, v = schedule == PipelineSchedule::interleaved ? 3 : 1;
    const auto order = pipeline_order(schedule, p, m, v);
    REQUIRE(order.size() == static_cast<size_t>(p));
    for (const auto& steps : order) {
      std::set<std::tuple<int, int64_t, int64_t>> seen;
      for (const PipelineStep& st : steps) {
        CHECK(seen.insert({static_cast<int>(st.kind), st.micro_batch, st.chunk}).second);
        CHECK(st.micro_batch < m);
        CHECK(st.chunk < v);
      }
      CHECK(seen.size() == static_cast<size_t>(2 * m * v));
    }
  }
  CHECK_THROWS_AS(pipeline_order(PipelineSchedule::interleaved, 4, 6, 2), std::invalid_argument);
}

TEST_CASE("transfers between stages lengthen the pipeline by their latency on its critical path",
          "[dist][pipeline]") {
  // 1F1B, p = 4, m = 8, forward 1, backward 2. Without transfers: (m + p - 1) x 3 = 33. Each
  // micro-batch's first forward crosses p - 1 links on the way down and its last backward p - 1
  // on the way back, and the steady state has no slack to absorb them: every transfer of 0.25
  // on that path adds to the iteration.
  const double base =
      run_task_graph(pipeline_task_graph(PipelineSchedule::one_f_one_b, 4, 8, 1, 1, 2)).makespan_s;
  const double with =
      run_task_graph(pipeline_task_graph(PipelineSchedule::one_f_one_b, 4, 8, 1, 1, 2, 0.25))
          .makespan_s;
  CHECK(base == Approx(33.0));
  CHECK(with > base + 2 * 3 * 0.25 - 1e-9);
}

TEST_CASE("a task graph whose orders contradict its dependencies is reported", "[dist]") {
  TaskGraph g;
  g.add_stream();
  const int a = g.add({0, 1.0, {}, "a"});
  const int b = g.add({0, 1.0, {}, "b"});
  g.tasks[static_cast<size_t>(a)].after.push_back(b);  // a waits for b, queued behind it
  CHECK_THROWS_WITH(run_task_graph(g), Catch::Contains("deadlocks at 'a'"));
}

TEST_CASE("memory over time: takes from a task's start, releases at its end, frees first",
          "[dist][pipeline][memory]") {
  // One stream: A takes 3 GB for [0, 1), B takes 2 GB for [1, 3), C releases 3 GB ending at 4,
  // D takes 5 GB starting at 4. Held over 10 GB of base: 13 from 0, 15 from 1, 12 from 4 after
  // C's release, then 17 with D, never 20 since C's release at 4 comes before D's take.
  TaskGraph g;
  const int s = g.add_stream();
  auto add = [&](double duration, double bytes) {
    Task t;
    t.stream = s;
    t.duration_s = duration;
    t.memory_bytes = bytes;
    return g.add(t);
  };
  add(1, 3e9);
  add(2, 2e9);
  add(1, -3e9);
  add(1, 5e9);
  const std::vector<MemorySample> m = memory_over_time(g, run_task_graph(g), s, 10e9);
  REQUIRE(m.size() == 3);
  CHECK(m[0].time_s == 0);
  CHECK(m[0].bytes == Approx(13e9));
  CHECK(m[1].time_s == 1);
  CHECK(m[1].bytes == Approx(15e9));
  CHECK(m[2].time_s == 4);
  CHECK(m[2].bytes == Approx(17e9));
  CHECK(peak_bytes(m) == Approx(17e9));
}
