// core/sweep: the axes of `tilescope sweep`, the points drawn from them, a point's evaluation,
// and the summary (sensitivities, Pareto front). Expected figures are worked out by hand in the
// comments from the inline inputs.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>

#include "AnalysisFixtures.hpp"
#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorEvaluation.hpp"
#include "measure/ResultStore.hpp"
#include "sweep/ArchitectureSweep.hpp"
#include "sweep/SweepExchange.hpp"
#include "sweep/SweepSummary.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

constexpr const char* kWorkload = R"(version: 1
kind: workload
name: two-gemms
dtype: fp16
operators:
  - {name: small, type: gemm, M: 64, N: 64, K: 64}
  - {name: large, type: gemm, M: 256, N: 256, K: 256}
)";

// The analysis tests' two-level graph: 1 GiB of DRAM and four SRAMs of 64 KiB, four PEs.
ArchitectureGraph graph() { return parse_architecture(ts::test::tiny_arch(), "tiny.yaml"); }

SweepPointRecord record(const std::string& parameters, double total_s, double cost,
                        std::vector<SweepOperatorTime> operators = {}) {
  SweepPointRecord p;
  p.parameters_json = parameters;
  p.total_s = total_s;
  p.cost = cost;
  p.operators = std::move(operators);
  return p;
}

}  // namespace

TEST_CASE("sweep: --vary takes values in the parameter's unit, counts as whole numbers",
          "[sweep]") {
  const ArchitectureGraph g = graph();
  const SweepAxis capacity = parse_sweep_axis("node:SRAM.capacity=32KiB,1MiB", g);
  CHECK(capacity.values == std::vector<double>{32768, 1048576});
  CHECK(capacity.min() == 32768);
  CHECK(capacity.max() == 1048576);
  // 64 B/cycle of SRAM's 1 GHz clock is 64 GB/s.
  const SweepAxis link = parse_sweep_axis("edge:SRAM->PE.bandwidth=64B/cycle,100GB/s", g);
  CHECK(link.values == std::vector<double>{64e9, 100e9});
  const SweepAxis count = parse_sweep_axis("node:PE.instances=2,8", g);
  CHECK(count.values == std::vector<double>{2, 8});
}

TEST_CASE("sweep: a bad --vary path or value is an error naming it", "[sweep]") {
  const ArchitectureGraph g = graph();
  const InputError path = input_error_of([&] { parse_sweep_axis("node:L9.capacity=1MiB", g); });
  CHECK(path.where().file == "--vary");
  CHECK_THAT(path.message(), Catch::Contains("node:L9.capacity"));
  const InputError value =
      input_error_of([&] { parse_sweep_axis("node:SRAM.capacity=64KiB,lots", g); });
  CHECK_THAT(value.message(), Catch::Contains("'lots' is not a value"));
  const InputError fraction =
      input_error_of([&] { parse_sweep_axis("node:PE.instances=2,2.5", g); });
  CHECK_THAT(fraction.message(), Catch::Contains("whole number"));
  const InputError zero = input_error_of([&] { parse_sweep_axis("node:SRAM.capacity=0", g); });
  CHECK_THAT(zero.message(), Catch::Contains("positive"));
  const InputError none = input_error_of([&] { parse_sweep_axis("node:SRAM.capacity", g); });
  CHECK_THAT(none.message(), Catch::Contains("no values"));
  // A latency of 0 is a value graph files take.
  CHECK(parse_sweep_axis("edge:DRAM->SRAM.latency=0,100", g).values == std::vector<double>{0, 100});
}

TEST_CASE("sweep: the cross product varies the last axis fastest", "[sweep]") {
  const ArchitectureGraph g = graph();
  const std::vector<SweepAxis> axes{parse_sweep_axis("node:PE.instances=1,2", g),
                                    parse_sweep_axis("node:SRAM.instances=3,4,5", g)};
  const std::vector<SweepValues> points = sweep_points(axes, SweepSampling{});
  CHECK(points == std::vector<SweepValues>{{1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}});
}

TEST_CASE("sweep: a Latin hypercube puts one point in each stratum of each axis", "[sweep]") {
  const ArchitectureGraph g = graph();
  // Ranges 0..400 cycles and 1..5 GB/s... as latencies 0..400 and bandwidths 1e9..5e9: four
  // strata of 100 cycles and of 1 GB/s each.
  const std::vector<SweepAxis> axes{parse_sweep_axis("edge:DRAM->SRAM.latency=0,400", g),
                                    parse_sweep_axis("edge:DRAM->SRAM.bandwidth=1e9,5e9", g)};
  const SweepSampling lhs = parse_sweep_sampling("lhs:4", 7);
  const std::vector<SweepValues> points = sweep_points(axes, lhs);
  REQUIRE(points.size() == 4);
  std::set<int> latency_strata, bandwidth_strata;
  for (const SweepValues& p : points) {
    latency_strata.insert(static_cast<int>(std::floor(p[0] / 100)));
    bandwidth_strata.insert(static_cast<int>(std::floor((p[1] - 1e9) / 1e9)));
  }
  CHECK(latency_strata == std::set<int>{0, 1, 2, 3});
  CHECK(bandwidth_strata == std::set<int>{0, 1, 2, 3});
  // The same seed draws the same points (every rank of an MPI sweep derives them alike).
  CHECK(sweep_points(axes, parse_sweep_sampling("lhs:4", 7)) == points);
  CHECK(sweep_points(axes, parse_sweep_sampling("lhs:4", 8)) != points);
  // Random draws stay in range; counts come out whole.
  const std::vector<SweepAxis> count{parse_sweep_axis("node:PE.instances=1,64", g)};
  for (const SweepValues& p : sweep_points(count, parse_sweep_sampling("random:20", 3))) {
    CHECK(p[0] >= 1);
    CHECK(p[0] <= 64);
    CHECK(p[0] == std::floor(p[0]));
  }
  CHECK_THAT(input_error_of([] { parse_sweep_sampling("lhs:0", 1); }).message(),
             Catch::Contains("'lhs:0' is no sampling"));
  CHECK_THAT(input_error_of([] { parse_sweep_sampling("sobol:8", 1); }).message(),
             Catch::Contains("expected cross, lhs:N or random:N"));
}

TEST_CASE("sweep: a point is the graph with its values written, predicted per operator",
          "[sweep]") {
  const ArchitectureGraph g = graph();
  Workload w = parse_workload(kWorkload, "two-gemms.yaml");
  std::vector<SweepAxis> axes{parse_sweep_axis("node:SRAM.capacity=64KiB,128KiB", g)};
  std::vector<SweepValues> points = sweep_points(axes, SweepSampling{});
  MapperOptions mapper;
  mapper.budget = 200;
  mapper.parallel = false;
  const ArchitectureSweep sweep(g, w, axes, points, mapper);
  REQUIRE(sweep.size() == 2);
  CHECK(sweep.parameters_json(1) == R"({"node:SRAM.capacity":131072.0})");
  CHECK(sweep.graph_at(1).node(*g.find_node("SRAM")).capacity_bytes == 131072);
  const SweepPointRecord base = sweep.evaluate(0);
  const SweepPointRecord larger = sweep.evaluate(1);
  // At the graph's own value the point's graph is the graph itself.
  CHECK(base.arch_hash == hash_text(g.content_hash()));
  CHECK(larger.arch_hash != base.arch_hash);
  // Cost: 1 GiB + 4 x 64 KiB = 1073741824 + 262144; with 128 KiB SRAMs, + 4 x 64 KiB more.
  CHECK(base.cost == 1073741824.0 + 262144.0);
  CHECK(larger.cost == 1073741824.0 + 524288.0);
  REQUIRE(base.operators.size() == 2);
  CHECK(base.operators[0].name == "small");
  CHECK(base.operators[1].name == "large");
  // The total is the sum of every operator's device and launch time.
  double sum = 0;
  for (const SweepOperatorTime& t : base.operators) sum += t.device_s + t.launch_s;
  CHECK(base.total_s == Approx(sum).epsilon(1e-12));
  CHECK(base.total_s > 0);
  // Evaluating again gives the same record: the mapper is deterministic.
  CHECK(sweep_point_json(sweep.evaluate(1)) == sweep_point_json(larger));
  CHECK(sweep_point_json(sweep_point_from_json(sweep_point_json(larger))) ==
        sweep_point_json(larger));
  // Two axes naming one parameter are refused.
  std::vector<SweepAxis> twice{axes[0], axes[0]};
  CHECK_THAT(input_error_of([&] { ArchitectureSweep(g, w, twice, points, mapper); }).message(),
             Catch::Contains("varied twice"));
}

TEST_CASE("sweep: sensitivities are the log-log slopes of time against each parameter", "[sweep]") {
  // T = 2 a^-1 b^0.5 at a in {1, 2, 4}, b in {1, 4}: ln T = ln 2 - ln a + 0.5 ln b exactly, so
  // the least-squares fit returns -1 for a and +0.5 for b. The operator "flat" takes 3 s
  // everywhere: 0 and 0. "c" is varied in one value only: no slope can be told.
  std::vector<SweepPointRecord> points;
  for (double a : {1.0, 2.0, 4.0})
    for (double b : {1.0, 4.0}) {
      const double t = 2 / a * std::sqrt(b);
      points.push_back(record(fmt::format(R"({{"a":{},"b":{},"c":7}})", a, b), t + 3, 0,
                              {{"scaled", t, 0, ""}, {"flat", 3, 0, ""}}));
    }
  const std::vector<SweepSensitivity> rows = sweep_sensitivities({"a", "b", "c"}, points);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].subject == "total");
  CHECK(rows[1].subject == "scaled");
  REQUIRE(rows[1].elasticity[0]);
  CHECK(*rows[1].elasticity[0] == Approx(-1).margin(1e-9));
  REQUIRE(rows[1].elasticity[1]);
  CHECK(*rows[1].elasticity[1] == Approx(0.5).margin(1e-9));
  CHECK_FALSE(rows[1].elasticity[2]);
  CHECK(rows[2].subject == "flat");
  CHECK(*rows[2].elasticity[0] == Approx(0).margin(1e-9));
  CHECK(*rows[2].elasticity[1] == Approx(0).margin(1e-9));
  // The total (T + 3) moves less than T alone, in the same direction.
  CHECK(*rows[0].elasticity[0] < 0);
  CHECK(*rows[0].elasticity[0] > -1);
}

TEST_CASE("sweep: the Pareto front keeps the points no other beats in time and cost", "[sweep]") {
  // (cost, time): (1, 10) (2, 8) (2, 9) (3, 8) (4, 5) (5, inf). (2, 9) is beaten by (2, 8),
  // (3, 8) by (2, 8); a point without a valid mapping is on no front.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<SweepPointRecord> front = pareto_front(
      {record("{\"x\":4}", 5, 4), record("{\"x\":3}", 8, 3), record("{\"x\":1}", 10, 1),
       record("{\"x\":22}", 9, 2), record("{\"x\":2}", 8, 2), record("{\"x\":5}", inf, 5)});
  REQUIRE(front.size() == 3);
  CHECK(front[0].parameters_json == "{\"x\":1}");
  CHECK(front[1].parameters_json == "{\"x\":2}");
  CHECK(front[2].parameters_json == "{\"x\":4}");
}

TEST_CASE("sweep: the store keeps each point once, by sweep, workload and values",
          "[sweep][store]") {
  ts::test::TempDir dir;
  ResultStore store(dir.file("sweep.sqlite"));
  CHECK(store.schema_version() == ResultStore::kSchemaVersion);
  SweepPointRecord a = record(R"({"x":1.0})", 2.5, 10, {{"op", 2.0, 0.5, "edge:A->B"}});
  a.sweep_key = "s1";
  a.workload_hash = "w1";
  a.arch_hash = "h1";
  store.add_sweep_point(a);
  // The same key again (another rank's duplicate) leaves the first row as it was.
  SweepPointRecord again = a;
  again.total_s = 99;
  store.add_sweep_point(again);
  SweepPointRecord other_workload = a;
  other_workload.workload_hash = "w2";
  store.add_sweep_point(other_workload);
  CHECK(store.sweep_point_keys("s1", "w1") == std::vector<std::string>{R"({"x":1.0})"});
  CHECK(store.sweep_point_keys("s2", "w1").empty());
  const std::vector<SweepPointRecord> back = store.sweep_points("s1", "w1");
  REQUIRE(back.size() == 1);
  CHECK(sweep_point_json(back[0]) == sweep_point_json(a));
  // An operator without a valid mapping comes back infinite.
  SweepPointRecord stuck = record(R"({"x":2.0})", std::numeric_limits<double>::infinity(), 10,
                                  {{"op", std::numeric_limits<double>::infinity(), 0, "none"}});
  stuck.sweep_key = "s1";
  stuck.workload_hash = "w1";
  store.add_sweep_point(stuck);
  const std::vector<SweepPointRecord> both = store.sweep_points("s1", "w1");
  REQUIRE(both.size() == 2);
  CHECK(std::isinf(both[1].total_s));
  CHECK(std::isinf(both[1].operators[0].device_s));
  // A version-1 file read as it is has no sweeps (and no table to read them from).
  std::filesystem::copy_file(ts::test::fixture("db/results-v1.sqlite"), dir.file("v1.sqlite"));
  const ResultStore old(dir.file("v1.sqlite"), ResultStore::Mode::read_only);
  CHECK(old.sweep_points("s1", "w1").empty());
}

TEST_CASE("sweep: each point also tries the mappings found at the other points", "[sweep]") {
  // Two points, SRAM 64 KiB and 128 KiB. The larger point's record of "small" is made to hold a
  // poor mapping (a search that ended in a bad local optimum): SRAM tiles of 8 x 8 x 4 walked
  // 8 x 8 x 16 times from DRAM. Every mapping that fits 64 KiB fits 128 KiB, so the smaller
  // point's own mapping is a point of the larger one's space: the exchange must give the larger
  // point that mapping (strictly faster), say where it was found, and leave the smaller point
  // and every other operator as they were.
  const ArchitectureGraph g = graph();
  const Workload w = parse_workload(kWorkload, "two-gemms.yaml");
  std::vector<SweepAxis> axes{parse_sweep_axis("node:SRAM.capacity=64KiB,128KiB", g)};
  MapperOptions mapper;
  mapper.budget = 2000;
  mapper.parallel = false;
  const ArchitectureSweep sweep(g, w, axes, sweep_points(axes, SweepSampling{}), mapper);
  std::vector<SweepPointRecord> points{sweep.evaluate(1), sweep.evaluate(0)};  // any order
  REQUIRE_FALSE(points[0].operators[0].mapping.empty());
  const std::string poor =
      "version: 1\nkind: mapping\nname: poor\ntree:\n" +
      ts::test::dram_sram_pe("M: 8, N: 8, K: 16", "", "", "M: 1, N: 1, K: 1", "M: 8, N: 8, K: 4");
  const MappingEvaluation e = evaluate_mapping_text(w.operators[0], sweep.graph_at(1), poor);
  REQUIRE(e.valid());
  SweepOperatorTime& stuck = points[0].operators[0];
  stuck.mapping = poor;
  stuck.device_s = e.result.device_s;
  points[0].total_s = 0;
  for (const SweepOperatorTime& t : points[0].operators)
    points[0].total_s += t.device_s + t.launch_s;
  const SweepPointRecord smaller_before = points[1];
  const SweepOperatorTime large_before = points[0].operators[1];
  const double total_before = points[0].total_s;
  REQUIRE(stuck.device_s > smaller_before.operators[0].device_s);

  const SweepExchangeResult ex = exchange_sweep_mappings(sweep, points);
  CHECK(ex.replaced == 1);
  CHECK(ex.changed_points == std::vector<size_t>{0});
  const SweepOperatorTime& now = points[0].operators[0];
  CHECK(now.mapping == smaller_before.operators[0].mapping);
  CHECK(now.device_s <= smaller_before.operators[0].device_s);
  CHECK(now.mapping_origin == "mapper, as found on '" + smaller_before.parameters_json + "'");
  CHECK(points[0].total_s == Approx(total_before - e.result.device_s + now.device_s));
  CHECK(sweep_point_json(points[1]) == sweep_point_json(smaller_before));
  CHECK(points[0].operators[1].device_s == large_before.device_s);
  // Again: nothing is faster any more.
  CHECK(exchange_sweep_mappings(sweep, points).replaced == 0);

  // The store rewrites the changed point in place, mapping and origin included.
  ts::test::TempDir dir;
  ResultStore store(dir.file("sweep.sqlite"));
  std::vector<SweepPointRecord> stored{sweep.evaluate(1)};
  store.add_sweep_point(stored[0]);
  store.update_sweep_points({points[0]});
  const std::vector<SweepPointRecord> back =
      store.sweep_points(sweep.sweep_key(), sweep.workload_hash());
  REQUIRE(back.size() == 1);
  CHECK(sweep_point_json(back[0]) == sweep_point_json(points[0]));
}
