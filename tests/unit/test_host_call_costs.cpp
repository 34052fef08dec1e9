// The host's time per framework call by kind, from a profile (trace/HostCallCosts), on the
// hand-written fixture tests/fixtures/trace/kineto/host_calls.json (its README says what is in
// it). Every figure below is worked by hand from the fixture's spans, in microseconds:
//   ProfilerStep#1, forward thread: aten::linear 30 (addmm inside, a GEMM launched for 4): gemm
//   26; aten::view 2, no launch: view 2; aten::add 10 - 4 = 6 and aten::gelu 8 - 4 = 4: aten_op;
//   prim::FusionGroup 10 - 3 = 7: fused_op; c10d::allreduce_ 20 (record_param_comms inside,
//   launching NCCL's kernel for 5): collective 15.
//   backward thread: the autograd node AddmmBackward0 spans 50 and runs aten::mm 20 - 4 = 16
//   (gemm), aten::t 2 (view) and aten::sum 10 - 3 = 7 (aten_op): its own time 50 - 32 = 18.
//   ProfilerStep#2: aten::add 24 - 4 = 20.
// Percentiles by nearest rank: aten_op {4, 6, 7, 20}: median 6, p90 20; in step 1 {4, 6, 7}:
// p90 7. Launch calls inside the calls: {4, 4, 4, 3, 5, 4, 3, 4}, median 4.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "InputErrorCapture.hpp"
#include "trace/HostCallCosts.hpp"
#include "trace/TraceLoad.hpp"

using namespace ts;

namespace {

const std::string kFixture = ts::test::fixture("trace/kineto/host_calls.json");

const HostCallKindCost& kind(const HostCallCosts& c, std::string_view name) {
  for (size_t k = 0; k < kProfiledHostCallKinds.size(); ++k)
    if (kProfiledHostCallKinds[k] == name) return c.kinds[k];
  FAIL("no kind " << name);
  return c.kinds[0];
}

}  // namespace

TEST_CASE("a profile's host time per call, by kind, its launches left out", "[trace][host]") {
  const Trace trace = load_trace({kFixture});
  REQUIRE(trace.ranks.size() == 1);
  const HostCallCosts c = host_call_costs(trace.ranks[0]);
  CHECK(kind(c, "aten_op").calls == 4);
  CHECK(kind(c, "aten_op").p10_ns == 4000);
  CHECK(kind(c, "aten_op").median_ns == 6000);
  CHECK(kind(c, "aten_op").p90_ns == 20000);
  // The outer call is what is priced: aten::linear, not the addmm inside it.
  CHECK(kind(c, "gemm").calls == 2);
  CHECK(kind(c, "gemm").median_ns == 16000);
  CHECK(kind(c, "gemm").p90_ns == 26000);
  CHECK(kind(c, "view").calls == 2);
  CHECK(kind(c, "view").median_ns == 2000);
  CHECK(kind(c, "fused_op").calls == 1);
  CHECK(kind(c, "fused_op").median_ns == 7000);
  CHECK(kind(c, "collective").calls == 1);
  CHECK(kind(c, "collective").median_ns == 15000);
  CHECK(kind(c, "autograd_node").calls == 1);
  CHECK(kind(c, "autograd_node").median_ns == 18000);
  CHECK(c.launch_calls == 8);
  CHECK(c.launch_median_ns == 4000);
}

TEST_CASE("a profile's host costs in one step, and a step it does not have", "[trace][host]") {
  const Trace trace = load_trace({kFixture});
  const HostCallCosts one = host_call_costs(trace.ranks[0], 1);
  CHECK(one.step == 1);
  CHECK(kind(one, "aten_op").calls == 3);
  CHECK(kind(one, "aten_op").p90_ns == 7000);
  CHECK(one.launch_calls == 7);
  const HostCallCosts two = host_call_costs(trace.ranks[0], 2);
  CHECK(kind(two, "aten_op").calls == 1);
  CHECK(kind(two, "aten_op").median_ns == 20000);
  CHECK(kind(two, "gemm").calls == 0);
  CHECK_THROWS_WITH(host_call_costs(trace.ranks[0], 3),
                    Catch::Contains("no ProfilerStep#3") && Catch::Contains("its steps: 1, 2"));
}
