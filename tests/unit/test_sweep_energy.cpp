// Sweeps on energy and area (issue 39, docs/sweep.md "Summary"): the fronts of suite time
// against the suite's energy and against the graph's area, worked by hand on made-up points
// (dominated points dropped, ties), EDP, the sensitivities of energy and area, the suite energy
// as the sum of the operators' energies (once each), and stores written before energy was kept
// (schema 3) read as unknown.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>

#include "TempDir.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "measure/ResultStore.hpp"
#include "measure/StoreSchema.hpp"
#include "sweep/ArchitectureSweep.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepSummary.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SweepPointRecord rec(double x, double total_s, std::optional<double> energy_j,
                     std::optional<double> area_m2) {
  SweepPointRecord p;
  p.sweep_key = "k";
  p.workload_hash = "w";
  p.parameters_json = nlohmann::json{{"x", x}}.dump();
  p.total_s = total_s;
  p.cost = x;
  p.energy_j = energy_j;
  p.area_m2 = area_m2;
  p.operators = {{"op", total_s, 0, "compute:PE", true, "", "", energy_j}};
  return p;
}

std::vector<std::string> xs_of(const std::vector<SweepPointRecord>& front) {
  std::vector<std::string> out;
  for (const SweepPointRecord& p : front) out.push_back(p.parameters_json);
  return out;
}

std::string x(double v) { return nlohmann::json{{"x", v}}.dump(); }

// The points of the hand-worked fronts (x: time s, energy J, area m^2):
//   x=1: 4, 1, 3      x=2: 3, 2, 1      x=3: 3, 3, 2      x=4: 1, 5, 4
//   x=5: 2, 5, 4      x=6: no valid mapping (infinite time), energy unknown, area 0.5
//   x=0: 1, 5, 4 (ties x=4 in all three)      x=7: 2.5, 2, 5
//   x=-1: 1, 6, 4 (ties x=0 and x=4 in time and area, more energy; first by parameters)
std::vector<SweepPointRecord> worked_points() {
  return {rec(1, 4, 1, 3), rec(2, 3, 2, 1),   rec(3, 3, 3, 2),
          rec(4, 1, 5, 4), rec(5, 2, 5, 4),   rec(6, kInf, std::nullopt, 0.5),
          rec(0, 1, 5, 4), rec(7, 2.5, 2, 5), rec(-1, 1, 6, 4)};
}

}  // namespace

TEST_CASE("sweep energy front: time against suite energy, worked by hand", "[sweep][energy]") {
  // By rising energy (a tie by time, then by parameters): x=1 (1 J, 4 s) is on it; x=7 (2 J,
  // 2.5 s) ties x=2 in energy and is faster: on it, x=2 (3 s) not; x=3 (3 J, 3 s) is no faster
  // than 2.5 s: off; at 5 J, x=0 and x=4 tie in all three (1 s, 4 m^2): the first by
  // parameters, x=0, is on it, x=4 not; x=5 (2 s) off; x=-1 (6 J, 1 s) off. x=6 has no time: on no
  // front, and does not make energy unknown.
  const std::vector<SweepPointRecord> points = worked_points();
  CHECK(sweep_figure_known(points, SweepFigure::energy));
  CHECK(xs_of(pareto_front(points, SweepFigure::energy)) ==
        std::vector<std::string>{x(1), x(7), x(0)});
}

TEST_CASE("sweep area front: time against graph area, worked by hand", "[sweep][energy]") {
  // By rising area: x=6 (0.5 m^2) has no time: off; x=2 (1 m^2, 3 s) on; x=3 (2, 3 s) ties its
  // time: off; x=1 (3, 4 s) off; at 4 m^2, x=-1, x=0 and x=4 tie in time (1 s): the lower energy
  // first (x=0 and x=4, 5 J, before x=-1, 6 J, though x=-1 comes first by parameters), then by
  // parameters: x=0 on; x=5 (2 s) off; x=7 (5, 2.5 s) off.
  const std::vector<SweepPointRecord> points = worked_points();
  CHECK(sweep_figure_known(points, SweepFigure::area));
  CHECK(xs_of(pareto_front(points, SweepFigure::area)) == std::vector<std::string>{x(2), x(0)});
}

TEST_CASE("sweep figures: known only when every point with a time has them; EDP",
          "[sweep][energy]") {
  std::vector<SweepPointRecord> points = worked_points();
  // The cost front is as before: x is also the cost, so by rising x: x=-1 (1 s) is on it, and no
  // later point is faster than 1 s.
  CHECK(xs_of(pareto_front(points)) == std::vector<std::string>{x(-1)});
  CHECK(sweep_edp(points[0]) == Approx(4.0));     // 1 J x 4 s
  CHECK(sweep_edp(points[7]) == Approx(5.0));     // 2 J x 2.5 s
  CHECK_FALSE(sweep_edp(points[5]).has_value());  // no time, no energy
  // A point that has a time and no energy (an operator without `energy` in the graph): the
  // energy front cannot be told, and there is none; the area front stays.
  points.push_back(rec(8, 0.5, std::nullopt, 6));
  CHECK_FALSE(sweep_figure_known(points, SweepFigure::energy));
  CHECK(sweep_figure_known(points, SweepFigure::area));
  const SweepDigest d = digest_sweep(points);
  CHECK_FALSE(d.energy_known);
  CHECK(d.energy_front.empty());
  CHECK_FALSE(d.energy_sensitivity.has_value());
  CHECK(d.area_known);
  // 0.5 s at 6 m^2 is faster than all: it joins the area front at its end.
  CHECK(xs_of(d.area_front) == std::vector<std::string>{x(2), x(0), x(8)});
  // No point with a time: nothing to draw.
  CHECK_FALSE(sweep_figure_known({rec(1, kInf, 1, 1)}, SweepFigure::energy));
  CHECK_FALSE(sweep_figure_known({}, SweepFigure::area));
}

TEST_CASE("sweep figures: the sensitivity of energy and of area to a parameter",
          "[sweep][energy]") {
  // energy = 8 x^-0.5 J and area = 2 x m^2 exactly: elasticities -0.5 and +1. The time does not
  // move: 0.
  std::vector<SweepPointRecord> points;
  for (double v : {1.0, 2.0, 4.0, 8.0}) points.push_back(rec(v, 1e-3, 8 / std::sqrt(v), 2 * v));
  const std::vector<std::string> paths{"x"};
  const SweepSensitivity energy = sweep_figure_sensitivity(paths, points, SweepFigure::energy);
  CHECK(energy.subject == "energy");
  REQUIRE(energy.elasticity[0].has_value());
  CHECK(*energy.elasticity[0] == Approx(-0.5));
  const SweepSensitivity area = sweep_figure_sensitivity(paths, points, SweepFigure::area);
  REQUIRE(area.elasticity[0].has_value());
  CHECK(*area.elasticity[0] == Approx(1.0));
  const SweepDigest d = digest_sweep(points);
  REQUIRE(d.energy_sensitivity.has_value());
  CHECK(*d.energy_sensitivity->elasticity[0] == Approx(-0.5));
  // Points without the figure are left out of its fit: one left leaves too few.
  for (size_t i = 1; i < points.size(); ++i) points[i].energy_j.reset();
  CHECK_FALSE(
      sweep_figure_sensitivity(paths, points, SweepFigure::energy).elasticity[0].has_value());
}

TEST_CASE("suite energy: the sum over operators, once each as the suite time, unknown if any is",
          "[sweep][energy]") {
  const Workload w = parse_workload(R"(version: 1
kind: workload
name: two
dtype: fp16
operators:
  - {name: a, type: gemm, M: 16, N: 16, K: 16}
  - {name: b, type: gemm, M: 16, N: 16, K: 16, count: 3}
)",
                                    "two.yaml");
  std::vector<SweepOperatorTime> ops{{"a", 1, 0, "", true, "", "", 2e-6},
                                     {"b", 1, 0, "", true, "", "", 1e-6}};
  // 2 uJ + 1 uJ: b's count of 3 is not taken, as the sweep's total time takes each operator
  // once; energy x time stays one pass of the listed operators.
  REQUIRE(suite_energy_j(w, ops).has_value());
  CHECK(*suite_energy_j(w, ops) == Approx(3e-6));
  ops[1].energy_j.reset();
  CHECK_FALSE(suite_energy_j(w, ops).has_value());
}

TEST_CASE("sweep point records carry energy and area; older records read them as unknown",
          "[sweep][energy][store]") {
  SweepPointRecord p = rec(2, 3e-3, 4.5e-6, 2.5e-7);
  const SweepPointRecord back = sweep_point_from_json(sweep_point_json(p));
  CHECK(back.energy_j == p.energy_j);
  CHECK(back.area_m2 == p.area_m2);
  REQUIRE(back.operators.size() == 1);
  CHECK(back.operators[0].energy_j == p.operators[0].energy_j);
  // What an MPI rank of an earlier build sent, and the operators of an earlier store.
  nlohmann::json old = nlohmann::json::parse(sweep_point_json(p));
  old.erase("energy_j");
  old.erase("area_m2");
  old["operators"][0].erase("energy_j");
  const SweepPointRecord before = sweep_point_from_json(old.dump());
  CHECK_FALSE(before.energy_j.has_value());
  CHECK_FALSE(before.area_m2.has_value());
  CHECK_FALSE(before.operators[0].energy_j.has_value());
  // Unknown is written as absent (operators) or null (the point), never as 0.
  p.energy_j.reset();
  p.operators[0].energy_j.reset();
  CHECK(sweep_operators_json(p.operators).find("energy_j") == std::string::npos);
  CHECK_FALSE(sweep_point_from_json(sweep_point_json(p)).energy_j.has_value());
}

TEST_CASE(
    "sweep store: a schema-3 file's points read with energy and area unknown, read-only "
    "and once migrated",
    "[sweep][energy][store]") {
  ts::test::TempDir dir;
  const std::string path = dir / "v3.sqlite";
  {
    // A file as the schema-3 build wrote it: the first three steps, one point.
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    const auto& steps = store::migration_steps();
    REQUIRE(steps.size() >= 3);
    CHECK(store::migrate(db, std::span(steps.data(), 3)) == 3);
    db.exec(
        "INSERT INTO sweep_points (sweep_key, workload_hash, parameters_json, arch_hash, "
        "total_s, cost, operators_json, created_at) VALUES ('k', 'w', '{\"x\":1}', 'h', 0.002, "
        "1024, '[{\"name\":\"op\",\"device_s\":0.002,\"launch_s\":0.0,\"bound_by\":\"x\"}]', "
        "'2024-01-01T00:00:00Z')");
  }
  {
    const ResultStore store(path, ResultStore::Mode::read_only);
    CHECK(store.schema_version() == 3);  // a read never migrates
    const std::vector<SweepPointRecord> points = store.sweep_points("k", "w");
    REQUIRE(points.size() == 1);
    CHECK(points[0].total_s == Approx(0.002));
    CHECK_FALSE(points[0].energy_j.has_value());
    CHECK_FALSE(points[0].area_m2.has_value());
    CHECK_FALSE(points[0].operators[0].energy_j.has_value());
    const SweepDigest d = digest_sweep(points);
    CHECK_FALSE(d.energy_known);
    CHECK_FALSE(d.area_known);
    CHECK(d.front.size() == 1);  // the cost front, as before
  }
  {
    ResultStore store(path);  // read-write: migrated
    CHECK(store.schema_version() == ResultStore::kSchemaVersion);
    std::vector<SweepPointRecord> points = store.sweep_points("k", "w");
    REQUIRE(points.size() == 1);
    CHECK_FALSE(points[0].energy_j.has_value());
    // A new point of the same sweep keeps its figures; the exchange's rewrite keeps energy.
    store.add_sweep_point(rec(2, 1e-3, 3e-6, 4e-7));
    points[0].energy_j = 7e-6;
    store.update_sweep_points({points[0]});
    const std::vector<SweepPointRecord> now = store.sweep_points("k", "w");
    REQUIRE(now.size() == 2);
    CHECK(now[0].energy_j == Approx(7e-6));
    CHECK_FALSE(now[0].area_m2.has_value());
    REQUIRE(now[1].energy_j.has_value());
    CHECK(*now[1].energy_j == Approx(3e-6));
    REQUIRE(now[1].area_m2.has_value());
    CHECK(*now[1].area_m2 == Approx(4e-7));
  }
}

TEST_CASE("an architecture sweep's points carry the suite energy and the graph area",
          "[sweep][energy]") {
  const std::filesystem::path root(TILESCOPE_SOURCE_DIR);
  const ArchitectureGraph graph =
      load_architecture((root / "samples/arch/timeloop-eyeriss_like.yaml").string());
  // The graph's area, as predict reports it: area x instances over the nodes that give one.
  double area = 0;
  for (const ArchNode& n : graph.nodes)
    if (n.area_m2) area += *n.area_m2 * static_cast<double>(n.instances);
  REQUIRE(graph_area_m2(graph).has_value());
  CHECK(*graph_area_m2(graph) == Approx(area));
  // The global buffer's capacity does not change area (a fixed per-node key); its instances do.
  ArchitectureGraph twice = graph;
  for (ArchNode& n : twice.nodes)
    if (n.name == "shared_glb") n.instances = 2;
  double glb = 0;
  for (const ArchNode& n : graph.nodes)
    if (n.name == "shared_glb") glb = *n.area_m2;
  CHECK(*graph_area_m2(twice) == Approx(area + glb));

  const Workload w = parse_workload(R"(version: 1
kind: workload
name: small
dtype: int8
operators:
  - {name: g, type: gemm, M: 32, N: 32, K: 32, count: 2}
)",
                                    "small.yaml");
  std::vector<SweepAxis> axes{parse_sweep_axis("node:shared_glb.capacity=8KiB,64KiB", graph)};
  MapperOptions mapper;
  mapper.budget = 64;
  mapper.parallel = false;
  const ArchitectureSweep sweep(graph, w, axes, sweep_points(axes, SweepSampling{}), mapper);
  for (size_t i = 0; i < sweep.size(); ++i) {
    const SweepPointRecord p = sweep.evaluate(i);
    REQUIRE(p.operators.size() == 1);
    REQUIRE(p.operators[0].energy_j.has_value());
    REQUIRE(p.energy_j.has_value());
    // Once, as the point's total time counts the operator (its count of 2 is not taken).
    CHECK(*p.energy_j == Approx(*p.operators[0].energy_j));
    CHECK(p.total_s == Approx(p.operators[0].device_s + p.operators[0].launch_s));
    REQUIRE(p.area_m2.has_value());
    CHECK(*p.area_m2 == Approx(area));
  }
}
