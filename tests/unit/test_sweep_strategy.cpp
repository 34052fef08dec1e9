// core/sweep/StrategyGrid: the grid of `sweep --strategy-grid`, its points (each one simulate
// run), and the summary's handling of the grid's non-numeric keys. Expected figures are worked by
// hand in the comments.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "sweep/StrategyGrid.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepSummary.hpp"
#include "sweep/SweepThreads.hpp"
#include "training/StrategySweep.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;

namespace {

// MLP-Mixer B/16 on 8 GPUs (dp 2, tp 2, pp 2, 512 images in micro-batches of 32) on HGX H200
// nodes; roofline operator times keep each simulation short.
StrategyGridSweep mixer_grid(const std::vector<std::string>& grid) {
  const StrategyGridAxes axes = parse_strategy_grid(grid);
  return StrategyGridSweep(
      load_strategy_grid_inputs(sample("/dist/models/mlp-mixer-b16.yaml"),
                                sample("/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml"),
                                "roofline:0.5"),
      axes, load_grid_clusters(axes, sample("/dist/clusters/hgx-h200.yaml")));
}

SweepPointRecord record(const std::string& parameters, double total_s) {
  SweepPointRecord p;
  p.parameters_json = parameters;
  p.total_s = total_s;
  return p;
}

}  // namespace

TEST_CASE("strategy grid: a bad key or value is an error naming it", "[sweep]") {
  CHECK(input_error_of([] {
          parse_strategy_grid({"tp=1,2", "zz=1"});
        }).message() ==
        "'zz=1': unknown key 'zz'; expected tp, pp, dp, micro-batch (mbs), schedule or cluster");
  CHECK(input_error_of([] {
          parse_strategy_grid({"tp=1,2", "zz=1"});
        })
            .where()
            .file == "strategy grid");
  CHECK(input_error_of([] { parse_strategy_grid({"pp=1,0"}); }).message() ==
        "'pp=1,0': '0' is not a whole number from 1 to 65536");
  CHECK(input_error_of([] { parse_strategy_grid({"schedule=1f1b,zigzag"}); }).message() ==
        "'schedule=1f1b,zigzag': unknown schedule 'zigzag'; expected gpipe, 1f1b or interleaved");
  // mbs is simulate --sweep's name for micro-batch: giving both is giving it twice.
  CHECK(input_error_of([] {
          parse_strategy_grid({"mbs=1", "micro-batch=2"});
        }).message() ==
        "'micro-batch=2': 'micro-batch' is given twice; give all its values in one KEY=V1,V2,...");
  const StrategyGridAxes axes = parse_strategy_grid({"mbs=16,32", "tp=1,2", "schedule=gpipe"});
  CHECK(axes.micro_batch == std::vector<int64_t>{16, 32});
  CHECK(axes.tp == std::vector<int64_t>{1, 2});
  CHECK(varied_grid_keys(axes) == std::vector<std::string>{"micro-batch", "schedule", "tp"});
}

TEST_CASE("strategy grid: points that do not fit are left out, pp 1 has one schedule", "[sweep]") {
  // tp in {1, 2, 3} x pp in {1, 2} x schedule in {gpipe, 1f1b}, dp making up the base's 8 GPUs:
  // tp 3 divides 8 with neither pp (2 x 2 = 4 points left out); pp 1 runs no pipeline, so its
  // two schedules are one point (tp 1 and 2: 2 points), pp 2 keeps both (4 points): 6 points.
  const StrategyGridSweep sweep = mixer_grid({"tp=1,2,3", "pp=1,2", "schedule=gpipe,1f1b"});
  CHECK(sweep.size() == 6);
  CHECK(sweep.skipped() == 4);
  CHECK(sweep.parameters_json(0) ==
        fmt::format(
            R"({{"cluster":"{}","cluster-content":"{}","dp":8,"micro-batch":32,)"
            R"("pp":1,"schedule":"1f1b","tp":1}})",
            sample("/dist/clusters/hgx-h200.yaml"),
            nlohmann::json::parse(sweep.parameters_json(0))["cluster-content"].get<std::string>()));
  CHECK(sweep.strategy_at(0).dp.value == 8);
  // The last point: tp 2, pp 2, 1f1b, dp 8 / 4 = 2.
  CHECK(sweep.strategy_at(5).dp.value == 2);
  CHECK(sweep.strategy_at(5).schedule.value == PipelineSchedule::one_f_one_b);
}

TEST_CASE("strategy grid: the stored points are what simulate gives at each strategy",
          "[sweep][store]") {
  const StrategyGridSweep sweep = mixer_grid({"tp=1,2", "pp=1,2", "mbs=16,32"});
  REQUIRE(sweep.size() == 8);  // 2 x 2 x 2, all of them divide 8 GPUs and the model
  ts::test::TempDir dir;
  ResultStore store(dir.file("grid.sqlite"));
  std::vector<size_t> all(sweep.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  CHECK(evaluate_sweep_points(sweep, all, 2, nullptr,
                              [&](const SweepPointRecord& p) { store.add_sweep_point(p); }) == 8);
  const std::vector<SweepPointRecord> stored =
      store.sweep_points(sweep.sweep_key(), sweep.workload_hash());
  REQUIRE(stored.size() == 8);
  // Each point again as `simulate` runs it: the base strategy with the point's degrees written
  // by hand, dp = 8 / (tp x pp), one stage scheduled 1F1B.
  const TransformerModel model = load_transformer_model(sample("/dist/models/mlp-mixer-b16.yaml"));
  const ParallelStrategy base =
      load_parallel_strategy(sample("/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml"));
  const Cluster cluster = load_cluster(sample("/dist/clusters/hgx-h200.yaml"));
  const OperatorTimeSource times = parse_operator_time_source("roofline:0.5");
  for (const SweepPointRecord& p : stored) {
    INFO(p.parameters_json);
    const nlohmann::json v = nlohmann::json::parse(p.parameters_json);
    ParallelStrategy s = base;
    s.tp.value = v["tp"].get<int64_t>();
    s.pp.value = v["pp"].get<int64_t>();
    s.dp.value = 8 / (s.tp.value * s.pp.value);
    s.micro_batch.value = v["micro-batch"].get<int64_t>();
    CHECK(v["dp"].get<int64_t>() == s.dp.value);
    const TrainingSimulation r = simulate_training(model, s, cluster, times);
    CHECK(p.total_s == r.iteration_s);
    CHECK(p.cost == r.peak_memory_bytes);
    CHECK(strategy_point_out_of_memory(p) == r.out_of_memory);
    REQUIRE(p.operators.size() == r.breakdown.size());
    for (size_t k = 0; k < r.breakdown.size(); ++k) {
      CHECK(p.operators[k].name == r.breakdown[k].what);
      CHECK(p.operators[k].device_s == r.breakdown[k].seconds);
    }
  }
}

TEST_CASE("strategy grid: a key that is no number has no sensitivity", "[sweep]") {
  // T = 6 / tp at tp in {1, 2, 3}, each under two schedules (the same times): ln T = ln 6 -
  // ln tp exactly, so the slope of tp is -1; a schedule is a name, no number: none.
  std::vector<SweepPointRecord> points;
  for (int tp : {1, 2, 3})
    for (const char* schedule : {"gpipe", "1f1b"})
      points.push_back(
          record(fmt::format(R"({{"schedule":"{}","tp":{}}})", schedule, tp), 6.0 / tp));
  const std::vector<double> values = sweep_parameter_values(points[0], {"schedule", "tp"});
  CHECK(std::isnan(values[0]));
  CHECK(values[1] == 1);
  const std::vector<SweepSensitivity> rows = sweep_sensitivities({"schedule", "tp"}, points);
  REQUIRE(rows.size() == 1);
  CHECK_FALSE(rows[0].elasticity[0]);
  REQUIRE(rows[0].elasticity[1]);
  CHECK(*rows[0].elasticity[1] == Approx(-1).margin(1e-9));
  // Ranked by |elasticity|: tp (-1) first, the schedule (unknown) last.
  const std::vector<RankedSensitivity> ranked = rank_sensitivities({"schedule", "tp"}, rows[0]);
  CHECK(ranked[0].path == "tp");
  CHECK(ranked[1].path == "schedule");
}

TEST_CASE("sweep: parameters are ranked by the size of their sensitivity", "[sweep]") {
  // Elasticities a -0.2, b +0.9, c unknown, d -0.5: |0.9| > |-0.5| > |-0.2|, then c.
  const SweepSensitivity total{"total", {-0.2, 0.9, std::nullopt, -0.5}};
  const std::vector<RankedSensitivity> ranked = rank_sensitivities({"a", "b", "c", "d"}, total);
  REQUIRE(ranked.size() == 4);
  CHECK(ranked[0].path == "b");
  CHECK(ranked[1].path == "d");
  CHECK(ranked[2].path == "a");
  CHECK(ranked[3].path == "c");
  CHECK_FALSE(ranked[3].elasticity);
}

TEST_CASE("sweep: a digest finds the varied parameters and the front from the points alone",
          "[sweep]") {
  // A strategy grid's points (cluster-content marks one): tp varies (1, 2), pp does not (2).
  // (tp, time s, memory bytes): (1, 4, 10) (2, 2, 20) (2, 1, 30) — the last out of memory.
  // Front of the two that fit: (10, 4) then (20, 2). tp's slope: ln(2/4)/ln 2 = -1 between
  // the two tp values... over all three: ln T = c + s ln tp fits (0, ln 4), (ln 2, ln 2),
  // (ln 2, 0): s = (mean of ln 2 and 0 - ln 4) / ln 2 = (0.5 ln 2 - 2 ln 2) / ln 2 = -1.5.
  auto grid_point = [](int tp, double t, double bytes, const std::string& why) {
    SweepPointRecord p = record(
        fmt::format(R"({{"cluster-content":"ab","pp":2,"schedule":"1f1b","tp":{}}})", tp), t);
    if (t == 1) p.parameters_json.replace(p.parameters_json.find("1f1b"), 4, "gpipe");
    p.cost = bytes;
    p.operators = {{"compute", t, 0, why}};
    return p;
  };
  const SweepDigest d = digest_sweep({grid_point(1, 4, 10, ""), grid_point(2, 2, 20, ""),
                                      grid_point(2, 1, 30, "out of memory: 30 bytes")});
  CHECK(d.strategy_grid);
  CHECK(d.paths == std::vector<std::string>{"schedule", "tp"});
  CHECK(d.out_of_memory == 1);
  REQUIRE(d.front.size() == 2);
  CHECK(d.front[0].cost == 10);
  CHECK(d.front[1].cost == 20);
  REQUIRE(d.sensitivities.size() == 2);  // total, compute
  CHECK_FALSE(d.sensitivities[0].elasticity[0]);
  REQUIRE(d.sensitivities[0].elasticity[1]);
  CHECK(*d.sensitivities[0].elasticity[1] == Approx(-1.5).margin(1e-9));
}

TEST_CASE("simulate --sweep and sweep --strategy-grid simulate the same points of one grid",
          "[sweep][strategy][dist]") {
  // One grid, read by the one parser and expanded by the one rule: the two faces differ only in
  // how they run and store the points. Schedules over pp 1 and 2, and chunks where interleaved.
  const std::vector<std::string> texts = {"tp=1,2,4", "pp=1,2", "mbs=16,32",
                                          "schedule=1f1b,interleaved"};
  const StrategyGridSweep grid = mixer_grid(texts);
  const StrategyGridInputs in = load_strategy_grid_inputs(
      sample("/dist/models/mlp-mixer-b16.yaml"),
      sample("/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml"), "roofline:0.5");
  const Cluster cluster = load_cluster(sample("/dist/clusters/hgx-h200.yaml"));
  const std::vector<SweepPoint> ranked = sweep_strategies(
      in.model, in.base, cluster, parse_strategy_grid(texts, "strategy sweep", false), in.times);
  REQUIRE(grid.size() >= 4);
  REQUIRE(ranked.size() == grid.size());
  std::map<std::string, double> by_name;
  for (const SweepPoint& p : ranked) by_name[p.strategy.name] = p.result.iteration_s;
  for (size_t i = 0; i < grid.size(); ++i) {
    const ParallelStrategy& s = grid.strategy_at(i);
    INFO(s.name);
    REQUIRE(by_name.count(s.name) == 1);
    CHECK(grid.evaluate(i).total_s == by_name[s.name]);
    // One stage runs 1f1b; interleaving takes at least two chunks, nothing else more than one.
    if (s.pp.value == 1) CHECK(s.schedule.value == PipelineSchedule::one_f_one_b);
    CHECK(s.chunks.value == (s.schedule.value == PipelineSchedule::interleaved ? 2 : 1));
  }
}
