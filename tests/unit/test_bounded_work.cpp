// Bounded work (issue 40): the executor refuses a task it could never step through and finishes
// a task on every pass; a WorkLabel names what was being built when memory ran out.
#include <catch2/catch.hpp>
#include <limits>
#include <new>
#include <string>

#include "common/InputError.hpp"
#include "common/WorkLabel.hpp"
#include "common/WorkLimits.hpp"
#include "training/TaskGraph.hpp"

using namespace ts;

namespace {

TaskGraph two_flows_on_one_link(double first_s, double second_s) {
  TaskGraph g;
  const int a = g.add_stream(), b = g.add_stream();
  const int link = g.add_link(1);
  Task t1{a, first_s, {}, "send a"};
  t1.links = {link};
  t1.transfer = true;
  Task t2{b, second_s, {}, "send b"};
  t2.links = {link};
  t2.transfer = true;
  g.add(t1);
  g.add(t2);
  return g;
}

}  // namespace

TEST_CASE("the executor refuses a duration it cannot step through, naming the task",
          "[bounded][taskgraph]") {
  for (const double bad : {std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 1e300, -1.0}) {
    INFO(bad);
    const TaskGraph g = two_flows_on_one_link(1.0, bad);
    try {
      run_task_graph(g);
      FAIL("accepted a task of " << bad << " s");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("task 'send b'") != std::string::npos);
    }
  }
}

TEST_CASE("two flows sharing a link: every pass finishes a task, and the times are the fluid's",
          "[bounded][taskgraph]") {
  // Worked by hand: both run at half rate until the 1 s flow ends at 2 s; the 3 s flow has 2 s
  // of work left, alone at full rate: it ends at 4 s. With durations a rounding step apart the
  // executor still ends (a task ends on every pass).
  const TaskTimes t = run_task_graph(two_flows_on_one_link(1.0, 3.0));
  CHECK(t.end_s[0] == Approx(2.0));
  CHECK(t.end_s[1] == Approx(4.0));
  const TaskTimes near = run_task_graph(two_flows_on_one_link(1e8, 1e8 * (1 + 1e-15)));
  CHECK(near.makespan_s == Approx(2e8));
}

TEST_CASE("a WorkLabel names the innermost work an exception unwound through", "[bounded]") {
  take_failed_work();
  try {
    const WorkLabel outer("the sweep's points");
    const WorkLabel inner("the YAML tree of 'x.yaml'");
    throw std::bad_alloc();
  } catch (const std::bad_alloc&) {
  }
  CHECK(take_failed_work() == "the YAML tree of 'x.yaml'");
  CHECK(take_failed_work().empty());  // taken once
  {
    const WorkLabel finished("work that ended normally");
  }
  CHECK(take_failed_work().empty());
}
