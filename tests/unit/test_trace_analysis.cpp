// The trace model (trace/TraceLoad, TraceAnalysis, TraceDiff):
// - a small hand-written trace (kineto/two_streams.json: a compute stream, a collective on a
//   second stream, a copy, host-bound gaps and a gap with its work already queued) whose every
//   figure is worked out by hand below;
// - a 4-rank job the test writes, one file per rank named out of rank order, whose breakdowns
//   follow a formula in the rank;
// - the BERT fixtures: the breakdown partitions each rank's wall time, a self-diff changes nothing.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "KinetoTraceWriter.hpp"
#include "TempDir.hpp"
#include "trace/TraceAnalysis.hpp"
#include "trace/TraceDiff.hpp"
#include "trace/TraceLoad.hpp"

using ts::test::fixture;

namespace {
std::string kineto(const std::string& name) { return fixture("trace/kineto/" + name); }

constexpr int64_t us = 1000;  // ns

const ts::KernelTime* kernel_named(const ts::KernelBreakdown& k, const std::string& prefix) {
  for (const auto& t : k.kernels)
    if (t.name.rfind(prefix, 0) == 0) return &t;
  return nullptr;
}
}  // namespace

// two_streams.json, ProfilerStep#1 (relative to 5,000,000 us; the CPU thread launches, stream 7
// computes, stream 13 runs the all-reduce):
//   stream 7:  sgemm 10-40, add 40-50, div 70-72 (launched at 27, waits for the all-reduce),
//              copy 85-90 (launched at 81), mul 95-96 (launched at 91), sum 99-100 (launched
//              at 95, before the gap 96-99 opened)
//   stream 13: all-reduce 30-70 (1024 floats)
// The step's work starts at 10 and ends at 100: wall 90 us.
TEST_CASE("a hand-written two-stream step: every analysis worked by hand", "[trace-model]") {
  const ts::Trace trace = ts::load_trace({kineto("two_streams.json")});
  REQUIRE(trace.ranks.size() == 1);
  CHECK(trace.ranks[0].rank == 3);  // distributedInfo.rank, not the file's place
  CHECK(trace.ranks[0].device_name == "NVIDIA A100-SXM4-80GB");
  const auto ranks = ts::analyse_trace(trace, 1);
  REQUIRE(ranks.size() == 1);
  const ts::RankAnalysis& r = ranks[0];
  CHECK(r.window.wall_ns() == 90 * us);
  CHECK(r.iterations == 2);

  // Compute: 10-50, 70-72, 95-96, 99-100 = 44. Communication not under compute: the all-reduce
  // 30-70 less 30-50 = 20. Memory: 85-90 = 5. Idle: 72-85, 90-95, 96-99 = 21. 44+20+5+21 = 90.
  CHECK(r.temporal.compute_ns == 44 * us);
  CHECK(r.temporal.communication_ns == 20 * us);
  CHECK(r.temporal.memory_ns == 5 * us);
  CHECK(r.temporal.idle_ns == 21 * us);

  // Overlap: 40 us of all-reduce, 20 of it under the sgemm and the add.
  CHECK(r.overlap.communication_ns == 40 * us);
  CHECK(r.overlap.overlapped_ns == 20 * us);
  CHECK(r.overlap.fraction() == Approx(0.5));

  // Idle by cause. Device: 72-85 ends with the copy launched at 81 (host-bound, 13), 90-95 with
  // the mul launched at 91 (host-bound, 5), 96-99 with the sum launched at 95 (queued: other, 3).
  CHECK(r.idle.device_host_bound_ns == 18 * us);
  CHECK(r.idle.device_other_ns == 3 * us);
  // Stream 7: 50-70 waits with the div queued while stream 13 runs (other stream, 20); 72-85 and
  // 90-95 host-bound (18); 96-99 queued with nothing else running (other, 3). Stream 13: no gap.
  REQUIRE(r.idle.streams.size() == 2);
  const ts::StreamIdle& s7 = r.idle.streams[0];
  CHECK(s7.stream == 7);
  CHECK(s7.gaps == 4);
  CHECK(s7.host_bound_ns == 18 * us);
  CHECK(s7.other_stream_ns == 20 * us);
  CHECK(s7.other_ns == 3 * us);
  CHECK(r.idle.streams[1].stream == 13);
  CHECK(r.idle.streams[1].idle_ns() == 0);

  // Launch delays (start - launch call start): sgemm 8, add 27, all-reduce 9, div 43, copy 4,
  // mul 4, sum 4 -> sorted 4 4 4 8 9 27 43: p50 (4th) 8, p90 and p99 (7th) 43, mean 99/7.
  const ts::LaunchStatistics& l = r.launch;
  CHECK(l.launched == 7);
  CHECK(l.unlaunched == 0);
  CHECK(l.delay_min_ns == 4 * us);
  CHECK(l.delay_p50_ns == 8 * us);
  CHECK(l.delay_p90_ns == 43 * us);
  CHECK(l.delay_p99_ns == 43 * us);
  CHECK(l.delay_max_ns == 43 * us);
  CHECK(l.delay_mean_ns == Approx(99.0 * us / 7));
  // Bins [0,1) [1,2) [2,4) [4,8) [8,16) [16,32) [32,64) us.
  REQUIRE(l.histogram.size() == 7);
  const int64_t counts[] = {0, 0, 0, 3, 2, 1, 1};
  for (size_t i = 0; i < 7; ++i) CHECK(l.histogram[i].count == counts[i]);
  CHECK(l.histogram[6].lower_ns == 32 * us);
  // Only the mul (1 us) ran for less than its launch call (2 us); the copy is not a kernel.
  CHECK(l.shorter_than_launch == 1);
  CHECK(l.shorter_than_launch_ns == 1 * us);
  // Stream 7's queue at its launches: 0 (sgemm), 1 (add), 2 (div), 0, 0, 1 (sum: mul runs to
  // 96); stream 13: 0. Max 2, mean 4/7.
  CHECK(l.max_queue == 2);
  CHECK(l.mean_queue == Approx(4.0 / 7));

  // Kernel breakdown: durations summed per class, not a union: compute 30+10+2+1+1.
  const ts::KernelBreakdown& k = r.kernels;
  CHECK(k.class_ns[static_cast<size_t>(ts::GpuTimeClass::compute)] == 44 * us);
  CHECK(k.class_ns[static_cast<size_t>(ts::GpuTimeClass::communication)] == 40 * us);
  CHECK(k.class_ns[static_cast<size_t>(ts::GpuTimeClass::memory)] == 5 * us);
  REQUIRE(k.kernels.size() == 7);
  CHECK(k.kernels.front().name.rfind("ncclDevKernel_AllReduce", 0) == 0);
  CHECK(k.kernels.front().bytes == 4096);  // 1024 x Float
  const ts::KernelTime* copy = kernel_named(k, "Memcpy HtoD");
  REQUIRE(copy);
  CHECK(copy->bytes == 4096);
  CHECK(copy->time_class == ts::GpuTimeClass::memory);
  REQUIRE(k.operators.size() == 7);
  CHECK(k.operators[0].name == "nccl:all_reduce");
  CHECK(k.operators[0].total_ns == 40 * us);
  CHECK(k.operators[1].name == "aten::mm");
  CHECK(k.operators[1].total_ns == 30 * us);

  // The whole trace adds ProfilerStep#2's relu (120-130, launched at 103): wall 10-130 = 120,
  // compute 54, the gap 100-120 host-bound.
  const auto whole = ts::analyse_trace(trace);
  CHECK(whole[0].window.wall_ns() == 120 * us);
  CHECK(whole[0].temporal.compute_ns == 54 * us);
  CHECK(whole[0].temporal.idle_ns == 41 * us);
  CHECK(whole[0].idle.device_host_bound_ns == 38 * us);
  // ProfilerStep#2 alone: the relu's 10 us, no idle.
  const auto step2 = ts::analyse_trace(trace, 2);
  CHECK(step2[0].window.wall_ns() == 10 * us);
  CHECK(step2[0].temporal.compute_ns == 10 * us);
  CHECK(step2[0].temporal.idle_ns == 0);
}

namespace {

// Rank r of a job: a compute kernel 10 - (110 + 20 r) us on stream 7, an all-reduce 50-200 on
// stream 20, a copy 250-260, a kernel 300-310; every piece launched at its start less 5 us.
nlohmann::json rank_trace_json(int rank) {
  ts::test::KinetoTraceWriter w;
  w.gpu("kernel", "ampere_h16816gemm_256x128_nn", 5, 10, 100 + 20 * rank, 7);
  w.gpu("kernel", "ncclKernel_AllReduce_RING_LL_Sum_half", 45, 50, 150, 20);
  w.gpu("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 245, 250, 10, 7);
  w.gpu("kernel", "vectorized_elementwise_kernel", 295, 300, 10, 7);
  return w.trace({{"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", 4}}}});
}

}  // namespace

TEST_CASE("a 4-rank trace: ranks from distributedInfo, each rank's breakdown by its formula",
          "[trace-model]") {
  ts::test::TempDir dir("trace-ranks");
  // Named so that name order is the reverse of rank order.
  for (int rank = 0; rank < 4; ++rank) {
    std::ofstream(dir / ("worker" + std::to_string(3 - rank) + ".pt.trace.json"))
        << rank_trace_json(rank).dump();
  }
  const ts::Trace trace = ts::load_trace({dir.path().string()});
  REQUIRE(trace.ranks.size() == 4);
  const auto ranks = ts::analyse_trace(trace);
  for (int rank = 0; rank < 4; ++rank) {
    INFO("rank " << rank);
    const ts::RankAnalysis& r = ranks[static_cast<size_t>(rank)];
    CHECK(r.rank == rank);
    CHECK(r.file.find("worker" + std::to_string(3 - rank)) != std::string::npos);
    const auto& t = r.temporal;
    CHECK(t.wall_ns() == 300 * us);  // 10 - 310
    CHECK(t.compute_ns + t.communication_ns + t.memory_ns + t.idle_ns == t.wall_ns());
    CHECK(t.compute_ns == (110 + 20 * rank) * us);
    CHECK(t.communication_ns == (90 - 20 * rank) * us);
    CHECK(t.memory_ns == 10 * us);
    CHECK(t.idle_ns == 90 * us);  // 200-250 and 260-300
    CHECK(r.overlap.overlapped_ns == (60 + 20 * rank) * us);
    CHECK(r.launch.delay_max_ns == 5 * us);
  }

  // The same rank twice is refused, naming both files.
  std::ofstream(dir / "copy_of_rank2.json") << rank_trace_json(2).dump();
  const ts::InputError e = ts::test::input_error_of([&] { ts::load_trace({dir.path().string()}); });
  CHECK(std::string(e.what()).find("copy_of_rank2.json") != std::string::npos);
  CHECK(std::string(e.what()).find("worker1") != std::string::npos);
}

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
