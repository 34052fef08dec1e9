// The host collector's measurement loop on small jobs: one checked measurement per job, the
// statistics it reports, progress, cancellation between repetitions, and the cache flush.
#include <catch2/catch.hpp>

#include "arch/ArchitectureLoader.hpp"
#include "host/CacheFlush.hpp"
#include "host/HostCollector.hpp"
#include "host/MachineLoad.hpp"
#include "host/OpenBlasCore.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::host;

namespace {

const std::string kDir = std::string(TILESCOPE_FIXTURES) + "/host-kernels/";

struct Suite {
  ArchitectureGraph graph = load_architecture(kDir + "host-like.yaml");
  std::vector<HostJob> jobs;

  Suite() {
    const Operator gemm = make_gemm("gemm_odd", 77, 130, 61, DataType::fp32);
    const Mapping mapping = load_mapping(kDir + "gemm-tails-k-outermost.yaml");
    const MappingProgram program = compile_mapping(mapping, gemm, graph);
    jobs.push_back(
        {gemm, HostKernel::tiled, program, mapping_record(program, mapping.name), "host-test"});
    jobs.push_back({gemm, HostKernel::openblas, std::nullopt, std::nullopt, "host-test"});
    jobs.push_back({make_batched_gemm("bgemm", 3, 20, 24, 16, DataType::fp32), HostKernel::openblas,
                    std::nullopt, std::nullopt, "host-test"});
    jobs.push_back({make_vector_op("softmax", "softmax", 64, 200, DataType::fp32),
                    HostKernel::vector, std::nullopt, std::nullopt, "host-test"});
    jobs.push_back({make_fused_chain("bias_gelu", {"bias", "gelu"}, 50, 300, DataType::fp32),
                    HostKernel::vector, std::nullopt, std::nullopt, "host-test"});
  }
};

HostCollectorOptions quick() {
  HostCollectorOptions o;
  o.repetitions = 5;
  o.max_repetitions = 5;  // exactly five: the tests below count progress calls
  o.threads = 2;
  o.group_size = 2;
  o.flush_caches = false;
  return o;
}

}  // namespace

TEST_CASE("run_host_jobs delivers one checked measurement per job", "[host][collector]") {
  Suite suite;
  // The tiled job's program was resolved against an operator that no longer exists: the
  // collector binds it to the job's own copy.
  {
    const Operator gone = make_gemm("gemm_odd", 77, 130, 61, DataType::fp32);
    const Mapping mapping = load_mapping(kDir + "gemm-tails-k-outermost.yaml");
    suite.jobs[0].program = compile_mapping(mapping, gone, suite.graph);
  }
  HostCollectorOptions options = quick();
  options.repetitions = 3;  // at least 5 are enforced
  std::vector<Measurement> got;
  std::vector<HostProgress> progress;
  const size_t n = run_host_jobs(
      suite.jobs, options, [&](const Measurement& m) { got.push_back(m); },
      [&](const HostProgress& p) { progress.push_back(p); }, nullptr);
  REQUIRE(n == suite.jobs.size());
  REQUIRE(got.size() == suite.jobs.size());
  const char* implementations[] = {"tiled", "openblas", "openblas", "vector", "vector"};
  for (size_t i = 0; i < got.size(); ++i) {
    const Measurement& m = got[i];
    INFO(m.op.name << " " << m.implementation << ": error " << m.max_error);
    CHECK(m.op.name == suite.jobs[i].op.name);
    CHECK(m.op.suite == "host-test");
    CHECK(m.op.dims == suite.jobs[i].op.shape_text());
    CHECK(m.implementation == implementations[i]);
    CHECK(m.scope == TimingScope::host_call);
    CHECK(m.repetitions >= 5);
    CHECK(m.min_ns > 0);
    CHECK(m.min_ns <= m.median_ns);
    CHECK(m.spread >= 0);
    CHECK(m.checked);
    CHECK(m.max_error <= 1e-5);
    CHECK(m.mapping.has_value() == (i == 0));
  }
  CHECK(got[0].mapping->hash == suite.jobs[0].mapping->hash);
  // Progress after every timed repetition, interleaved within a group of two, and once more as
  // each job is done. The total is the jobs, the same from the first report to the last; the
  // count of jobs done never goes back.
  REQUIRE(progress.size() == suite.jobs.size() * 5 + suite.jobs.size());
  size_t done = 0;
  for (const HostProgress& p : progress) {
    CHECK(p.total == suite.jobs.size());
    CHECK(p.done >= done);
    done = p.done;
  }
  CHECK(progress.back().done == suite.jobs.size());
  CHECK(progress[0].current == "gemm_odd, repetition 1");
  CHECK(progress[0].done == 0);
  CHECK(progress[1].current == "gemm_odd, repetition 1");  // the openblas job, same operator
  CHECK(progress[2].current == "gemm_odd, repetition 2");  // round 2 of the group's first job
}

TEST_CASE("run_host_jobs: the progress total stays fixed while jobs take extra repetitions",
          "[host][collector]") {
  Suite suite;
  HostCollectorOptions options = quick();
  // A tolerance no median meets: every job runs to its maximum, past its minimum of 5.
  options.tolerance = 1e-12;
  options.max_repetitions = 9;
  std::vector<HostProgress> progress;
  std::vector<Measurement> got;
  run_host_jobs(
      suite.jobs, options, [&](const Measurement& m) { got.push_back(m); },
      [&](const HostProgress& p) { progress.push_back(p); }, nullptr);
  REQUIRE(got.size() == suite.jobs.size());
  for (const Measurement& m : got) CHECK(m.repetitions > 5);
  REQUIRE_FALSE(progress.empty());
  for (const HostProgress& p : progress) {
    CHECK(p.total == suite.jobs.size());
    CHECK(p.done <= p.total);
  }
  CHECK(progress.back().done == suite.jobs.size());
}

TEST_CASE("run_host_jobs stops between repetitions when cancelled", "[host][collector]") {
  Suite suite;
  std::atomic<bool> cancel{false};
  std::vector<Measurement> got;
  size_t calls = 0;

  SECTION("inside the first group: nothing delivered") {
    const size_t n = run_host_jobs(
        suite.jobs, quick(), [&](const Measurement& m) { got.push_back(m); },
        [&](const HostProgress&) {
          if (++calls == 3) cancel = true;  // the group's second round under way
        },
        &cancel);
    CHECK(n == 0);
    CHECK(got.empty());
    CHECK(calls == 3);
  }
  SECTION("after the first group: its results are kept") {
    const size_t n = run_host_jobs(
        suite.jobs, quick(), [&](const Measurement& m) { got.push_back(m); },
        [&](const HostProgress& p) {
          ++calls;
          if (p.done == 2) cancel = true;  // both jobs of group one are done
        },
        &cancel);
    CHECK(n == 2);
    CHECK(got.size() == 2);
    CHECK(calls == 2 * 5 + 2);  // their repetitions, then each job's end
  }
}

TEST_CASE("run_host_jobs flushes the caches between repetitions", "[host][collector]") {
  Suite suite;
  HostCollectorOptions options = quick();
  options.flush_caches = true;
  options.threads = 1;
  std::vector<HostJob> one{suite.jobs[3]};
  std::vector<Measurement> got;
  REQUIRE(run_host_jobs(
              one, options, [&](const Measurement& m) { got.push_back(m); }, nullptr, nullptr) ==
          1);
  CHECK(got[0].checked);
}

TEST_CASE("a tiled job without a mapping is an input error", "[host][collector]") {
  Suite suite;
  std::vector<HostJob> jobs{suite.jobs[0]};
  jobs[0].program.reset();
  CHECK_THROWS_AS(run_host_jobs(jobs, quick(), nullptr, nullptr, nullptr), InputError);
  jobs = {suite.jobs[3]};
  jobs[0].kernel = HostKernel::openblas;
  CHECK_THROWS_AS(run_host_jobs(jobs, quick(), nullptr, nullptr, nullptr), InputError);
}

TEST_CASE("the cache flush knows the last-level cache", "[host][collector]") {
  CHECK(last_level_cache_bytes() >= 64 * 1024);
  CacheFlush flush(1 << 20);
  CHECK(flush.bytes() == 1 << 20);
  flush.run();
  flush.run();
}

TEST_CASE("OpenBLAS says which kernels it runs", "[host][collector]") {
  const OpenBlasCore core = openblas_core();
  CHECK_FALSE(core.name.empty());
  CHECK(core.below_cpu == !core.advice.empty());
  if (core.below_cpu) CHECK(core.advice.find("OPENBLAS_CORETYPE=") != std::string::npos);
}

TEST_CASE("a host job gets rounds until its median is pinned down, within its caps",
          "[host][collector]") {
  HostCollectorOptions o;
  o.repetitions = 7;
  o.max_repetitions = 20;
  o.tolerance = 0.05;
  o.seconds_per_point = 1.0;
  const std::vector<double> steady(7, 1000.0);  // 1 us each
  // Seven equal timings: the interval [x(1), x(7)] has width 0, within +-5 %.
  CHECK_FALSE(wants_another_repetition(steady, o));
  // Fewer than the minimum: always another.
  CHECK(wants_another_repetition(std::vector<double>(6, 1000.0), o));
  // One slow repetition of seven: with n = 7 the interval is [min, max] = [1000, 1300], half
  // width 150 over the median 1000 = 15 % > 5 %: another round.
  std::vector<double> one_slow = steady;
  one_slow.back() = 1300;
  CHECK(wants_another_repetition(one_slow, o));
  // With nine values the interval is [x(2), x(8)]: one slow value at each end no longer counts.
  std::vector<double> nine = {700, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1300};
  CHECK_FALSE(wants_another_repetition(nine, o));
  // At the cap of repetitions, or once the repetitions took seconds_per_point, no more.
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1000 : 2000);
  CHECK_FALSE(wants_another_repetition(noisy, o));
  noisy.resize(8);
  CHECK(wants_another_repetition(noisy, o));
  o.seconds_per_point = 11e-6;  // the eight took 4 x 1 us + 4 x 2 us = 12 us
  CHECK_FALSE(wants_another_repetition(noisy, o));
}

TEST_CASE("a host measurement says why it is not trusted", "[host][collector]") {
  HostCollectorOptions o;
  o.tolerance = 0.05;
  const UnstableVerdict pinned = unstable_verdict(0.04, 9, "", o);
  CHECK(pinned.kind == Instability::none);
  CHECK(pinned.reason.empty());
  const UnstableVerdict wide = unstable_verdict(0.12, 40, "", o);
  CHECK(wide.kind == Instability::median_unpinned);
  CHECK_THAT(wide.reason, Catch::Contains("+-12.0 %") && Catch::Contains("40 repetitions") &&
                              Catch::Contains("tolerance +-5.0 %"));
  const UnstableVerdict few = unstable_verdict(std::nullopt, 5, "", o);
  CHECK(few.kind == Instability::median_unpinned);
  CHECK_THAT(few.reason, Catch::Contains("too few"));
  // A busy machine overrides a tight interval: a uniformly slowed run can look steady. The kind,
  // not the wording, is what `measure` counts.
  const UnstableVerdict busy = unstable_verdict(0.01, 9, "other processes used 1.5 cores", o);
  CHECK(busy.kind == Instability::machine_busy);
  CHECK(busy.reason == "other processes used 1.5 cores");
}

TEST_CASE("other processes' share of the machine is all busy time less our own", "[host]") {
  // 2 s of wall time; the machine's CPUs were busy 3 s in all, 1.2 s of it ours: others used
  // 1.8 s over 2 s = 0.9 cores.
  const CpuSample before{100.0, 50.0, 10.0};
  const CpuSample after{102.0, 53.0, 11.2};
  REQUIRE(other_cores(before, after));
  CHECK(*other_cores(before, after) == Approx(0.9));
  // Clock ticks against microseconds can make it a little negative: never below zero.
  CHECK(*other_cores(before, CpuSample{102.0, 51.0, 11.01}) == 0.0);
  CHECK_FALSE(other_cores(std::nullopt, after));
  CHECK_FALSE(other_cores(before, before));  // no time passed
  // This machine's own counters read back (Linux CI).
  CHECK(sample_cpu().has_value());
}
