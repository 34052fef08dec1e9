// The executor's fluid mode, with times worked out by hand: transfers on one shared link split
// it equally (the max-min fair share of flows that cross one link each), and compute and
// transfers overlapping on one device both slow by the interference factor.
#include <catch2/catch.hpp>

#include "training/TaskGraph.hpp"

using namespace ts;

namespace {

int add(TaskGraph& g, int stream, double duration, int link = -1, int device = -1,
        bool transfer = false, std::vector<int> after = {}) {
  Task t;
  t.stream = stream;
  t.duration_s = duration;
  if (link >= 0) t.links = {link};
  t.device = device;
  t.transfer = transfer;
  t.after = std::move(after);
  return g.add(t);
}

}  // namespace

TEST_CASE("transfers on one link share it equally", "[dist][executor]") {
  // Two streams, each sending over link 0: 1 s and 3 s alone. Together each gets half: the
  // short one has done its 1 s of work at 2 s; the long one has done 1 s by then and does the
  // other 2 s alone: 4 s.
  TaskGraph g;
  const int a = g.add_stream(), b = g.add_stream();
  const int short_one = add(g, a, 1, 0);
  const int long_one = add(g, b, 3, 0);
  const TaskTimes t = run_task_graph(g);
  CHECK(t.end_s[static_cast<size_t>(short_one)] == Approx(2));
  CHECK(t.end_s[static_cast<size_t>(long_one)] == Approx(4));
  // On two different links they do not meet.
  TaskGraph apart;
  const int c = apart.add_stream(), d = apart.add_stream();
  add(apart, c, 1, 0);
  add(apart, d, 3, 1);
  CHECK(run_task_graph(apart).makespan_s == Approx(3));
}

TEST_CASE("a third flow joining a link takes a third of it", "[dist][executor]") {
  // Flows of 2, 2 and 2 s on one link, the third starting after a 1 s compute task: from 0 to 1
  // two flows at 1/2 (1/2 s of work each done); then three at 1/3 until the first two finish
  // their remaining 1.5 s at 1 + 4.5 = 5.5; the third has 2 - 1.5 = 0.5 left, alone: 6.
  TaskGraph g;
  const int s1 = g.add_stream(), s2 = g.add_stream(), s3 = g.add_stream(), cpu = g.add_stream();
  const int f1 = add(g, s1, 2, 0);
  add(g, s2, 2, 0);
  const int warm = add(g, cpu, 1);
  const int f3 = add(g, s3, 2, 0, -1, false, {warm});
  const TaskTimes t = run_task_graph(g);
  CHECK(t.start_s[static_cast<size_t>(f3)] == Approx(1));
  CHECK(t.end_s[static_cast<size_t>(f1)] == Approx(5.5));
  CHECK(t.end_s[static_cast<size_t>(f3)] == Approx(6));
}

TEST_CASE("compute overlapping a transfer on its device slows both", "[dist][executor]") {
  // Interference 0.1: compute of 2 s and a transfer of 1 s on device 0 run together at 1/1.1
  // until the transfer ends at 1.1 s; the compute has 1 s left, alone: 2.1 s.
  TaskGraph g;
  g.interference = 0.1;
  const int cpu = g.add_stream(), net = g.add_stream();
  const int compute = add(g, cpu, 2, -1, 0, false);
  const int send = add(g, net, 1, 7, 0, true);
  TaskTimes t = run_task_graph(g);
  CHECK(t.end_s[static_cast<size_t>(send)] == Approx(1.1));
  CHECK(t.end_s[static_cast<size_t>(compute)] == Approx(2.1));
  // A transfer from another device does not interfere.
  g.tasks[static_cast<size_t>(send)].device = 1;
  t = run_task_graph(g);
  CHECK(t.end_s[static_cast<size_t>(send)] == Approx(1));
  CHECK(t.end_s[static_cast<size_t>(compute)] == Approx(2));
}

TEST_CASE("the fluid run keeps stream order and dependencies", "[dist][executor]") {
  // One stream's two transfers run in turn even on a shared link; a task that waits for both
  // starts when the second ends; zero-length joins pass through.
  TaskGraph g;
  const int s = g.add_stream(), join = g.add_stream(), after = g.add_stream();
  const int x = add(g, s, 1, 0);
  const int y = add(g, s, 2, 0);
  const int j = add(g, join, 0, -1, -1, false, {x, y});
  const int z = add(g, after, 1, 0, -1, false, {j});
  const TaskTimes t = run_task_graph(g);
  CHECK(t.start_s[static_cast<size_t>(y)] == Approx(1));
  CHECK(t.end_s[static_cast<size_t>(j)] == Approx(3));
  CHECK(t.end_s[static_cast<size_t>(z)] == Approx(4));
  CHECK(t.makespan_s == Approx(4));
}

TEST_CASE("flows over several links get their max-min fair shares", "[dist][executor]") {
  // A crosses links 0 and 1, B link 0, C and D link 1; each takes 1 s alone. Link 1 holds three
  // flows: A, C and D get 1/3 each. On link 0, A is held to 1/3 elsewhere, so B gets the other
  // 2/3 and ends at 1.5 s. A, C and D end at 3 s. An equal split of link 0 would have given
  // B only 1/2 (2 s).
  TaskGraph g;
  std::vector<int> s;
  for (int k = 0; k < 4; ++k) s.push_back(g.add_stream());
  auto flow = [&](int stream, std::vector<int> links) {
    Task t;
    t.stream = stream;
    t.duration_s = 1;
    t.links = std::move(links);
    return g.add(t);
  };
  const int a = flow(s[0], {0, 1});
  const int b = flow(s[1], {0});
  const int c = flow(s[2], {1});
  const int d = flow(s[3], {1});
  const TaskTimes t = run_task_graph(g);
  CHECK(t.end_s[static_cast<size_t>(b)] == Approx(1.5));
  for (int id : {a, c, d}) CHECK(t.end_s[static_cast<size_t>(id)] == Approx(3));
}
