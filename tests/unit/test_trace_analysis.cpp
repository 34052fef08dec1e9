// The trace model (trace/TraceLoad, TraceAnalysis, TraceDiff) on the Kineto fixtures: the
// temporal breakdown partitions each rank's wall time, and a diff of a trace against itself
// names no change. Hand-worked figures for a small hand-written multi-stream trace are still to
// come (issue 38).
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "trace/TraceAnalysis.hpp"
#include "trace/TraceDiff.hpp"
#include "trace/TraceLoad.hpp"

using ts::test::fixture;

namespace {
std::string kineto(const std::string& name) { return fixture("trace/kineto/" + name); }
}  // namespace

TEST_CASE("temporal breakdown sums to each rank's wall time", "[trace-model]") {
  const ts::Trace trace = ts::load_trace({kineto("bert_step.json"), kineto("bert_step.json.gz")});
  REQUIRE(trace.ranks.size() == 2);
  for (const int64_t step : {int64_t{-1}, int64_t{2}}) {
    const auto ranks = ts::analyse_trace(trace, step);
    REQUIRE(ranks.size() == 2);
    for (const auto& r : ranks) {
      const auto& t = r.temporal;
      CHECK(t.wall_ns() > 0);
      CHECK(t.compute_ns + t.communication_ns + t.memory_ns + t.idle_ns == t.wall_ns());
      CHECK(t.compute_ns > 0);
    }
    // The same file twice (plain and gzip) gives the same figures.
    CHECK(ranks[0].temporal.idle_ns == ranks[1].temporal.idle_ns);
    CHECK(ranks[0].temporal.compute_ns == ranks[1].temporal.compute_ns);
  }
}

TEST_CASE("a trace diffed against itself changes nothing", "[trace-model]") {
  const ts::Trace a = ts::load_trace({kineto("bert_step.json")});
  const ts::Trace b = ts::load_trace({kineto("bert_step.json.gz")});
  const ts::TraceDiff d = ts::diff_traces(a, b);
  REQUIRE(!d.operators.empty());
  CHECK(d.before_wall_ns == d.after_wall_ns);
  for (const auto& op : d.operators) CHECK(op.change_ns() == 0);
}

TEST_CASE("a missing step is an input error", "[trace-model]") {
  const ts::Trace trace = ts::load_trace({kineto("bert_step.json")});
  CHECK_THROWS(ts::analyse_trace(trace, 7));
}
