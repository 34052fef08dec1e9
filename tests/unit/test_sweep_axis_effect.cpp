// core/sweep/SweepAxisEffect and the fit's edge cases (issue 41, "sweeps that silently do
// nothing"): what caps an axis before any point runs (an edge by the ports at its ends, a read
// or write port by the combined one, a port by the edges that feed it), what the points show
// acts on nothing, and sensitivities that stay honest where axes are collinear (a strategy
// grid's dp) or a subject does not move (0, never "-0.000" or a large spurious slope). Expected
// figures are worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "measure/MeasurementRecord.hpp"
#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepSummary.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

ArchitectureGraph sample_graph(const std::string& file) {
  return load_architecture((std::filesystem::path(TILESCOPE_SOURCE_DIR) / file).string());
}

// Two memories and a unit: HBM (a combined port), SRAM (4 instances), its edges' sharing and
// the port's scope as given.
ArchitectureGraph small_graph(const std::string& sharing, const std::string& port_scope = "shared",
                              const std::string& ports = "bandwidth: 100GB/s") {
  return parse_architecture(R"(version: 1
kind: architecture
name: small
clock: 1GHz
nodes:
  - {name: HBM, type: memory, capacity: 1GiB, instances: 2, port_scope: )" +
                                port_scope + ", " + ports + R"(}
  - {name: SRAM, type: memory, capacity: 64KiB, instances: 4}
  - name: PE
    type: compute
    instances: 4
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 256, granule: [8, 8, 4]}
edges:
  - {from: HBM, to: SRAM, bandwidth: 60GB/s, sharing: )" +
                                sharing + R"(}
  - {from: SRAM, to: HBM, bandwidth: 30GB/s, sharing: )" +
                                sharing + R"(}
  - {from: SRAM, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: SRAM, bandwidth: 1024B/cycle}
)",
                            "small.yaml");
}

std::vector<SweepAxisCap> effect_caps(const ArchitectureGraph& g,
                                      const std::vector<std::string>& vary) {
  std::vector<SweepAxis> axes;
  for (const std::string& v : vary) axes.push_back(parse_sweep_axis(v, g));
  return sweep_axis_caps(g, axes);
}

SweepOperatorTime effect_op(const std::string& name, double device_s) {
  SweepOperatorTime t;
  t.name = name;
  t.device_s = device_s;
  return t;
}

SweepPointRecord effect_point(const nlohmann::json& parameters, double total_s) {
  SweepPointRecord p;
  p.parameters_json = parameters.dump();
  p.total_s = total_s;
  return p;
}

}  // namespace

TEST_CASE("sweep caps: an edge above the port of the memory at its end is capped by it",
          "[sweep]") {
  // The H200: HBM's one port (reads and writes together) is 4.8 TB/s; the edge HBM->L2 above it
  // moves no more (ArchitectureGraph::effective_bandwidth, the port floors).
  const ArchitectureGraph h200 = sample_graph("samples/arch/nvidia-h200.yaml");
  const auto caps = effect_caps(h200, {"edge:HBM->L2.bandwidth=2.4TB/s,4.8TB/s,9.6TB/s"});
  REQUIRE(caps.size() == 1);
  CHECK(caps[0].axis == 0);
  CHECK(caps[0].cap == Approx(4.8e12));
  CHECK(caps[0].capped == std::vector<double>{9.6e12});
  CHECK_THAT(caps[0].capped_by, Catch::Contains("node HBM's port"));
  CHECK(sweep_cap_text(caps[0]) ==
        "values above 4.8 TB/s are capped by node HBM's port (node:HBM.bandwidth = 4.8 TB/s); "
        "9.6 TB/s gives what 4.8 TB/s does");
  // Values at or below the port: nothing to say.
  CHECK(effect_caps(h200, {"edge:HBM->L2.bandwidth=1.2TB/s,4.8TB/s"}).empty());
  // The port swept too: capped only above its largest value, and not at all where it is swept
  // to 0 (no limit).
  const auto both = effect_caps(h200, {"edge:HBM->L2.bandwidth=4.8TB/s,9.6TB/s,19.2TB/s",
                                       "node:HBM.bandwidth=4.8TB/s,9.6TB/s"});
  REQUIRE(both.size() == 1);
  CHECK(both[0].cap == Approx(9.6e12));
  CHECK(both[0].capped == std::vector<double>{19.2e12});
  // (A port of 0 is no limit: the port's own axis is then capped by the edges, 14.4 TB/s at the
  // edge's largest value, and says so.)
  const auto none =
      effect_caps(h200, {"edge:HBM->L2.bandwidth=4.8TB/s,9.6TB/s", "node:HBM.bandwidth=0,4.8TB/s"});
  REQUIRE(none.size() == 1);
  CHECK(none[0].path == "node:HBM.bandwidth");
  CHECK(none[0].cap == Approx(14.4e12));
}

TEST_CASE("sweep caps: a shared edge meets the port's total, a per-instance edge one share",
          "[sweep]") {
  // HBM: 2 instances, a port of 100 GB/s. Shared edge, shared port: 100 GB/s caps it.
  CHECK(effect_caps(small_graph("shared"), {"edge:HBM->SRAM.bandwidth=100GB/s,200GB/s"})[0].cap ==
        Approx(100e9));
  // Shared edge, a port per instance: one pool against two ports, 200 GB/s together.
  const auto per_instance = effect_caps(small_graph("shared", "per_instance"),
                                        {"edge:HBM->SRAM.bandwidth=150GB/s,250GB/s"});
  REQUIRE(per_instance.size() == 1);
  CHECK(per_instance[0].cap == Approx(200e9));
  CHECK_THAT(per_instance[0].capped_by, Catch::Contains("x 2 instances"));
  // Per-instance edges: one user of an instance pair gets at most one port's figure.
  CHECK(effect_caps(small_graph("per_instance", "per_instance"),
                    {"edge:HBM->SRAM.bandwidth=150GB/s"})[0]
            .cap == Approx(100e9));
}

TEST_CASE(
    "sweep caps: a port above what its edges carry together, a read port above the "
    "combined one",
    "[sweep]") {
  // HBM's edges are shared pools of 60 and 30 GB/s: a port above 90 GB/s never binds.
  const auto port =
      effect_caps(small_graph("shared"), {"node:HBM.bandwidth=50GB/s,90GB/s,180GB/s,0"});
  REQUIRE(port.size() == 1);
  CHECK(port[0].cap == Approx(90e9));
  CHECK(port[0].capped == std::vector<double>{180e9, 0});
  CHECK(port[0].zero_means_none);
  CHECK_THAT(sweep_cap_text(port[0]),
             Catch::Contains("its edges HBM->SRAM and SRAM->HBM (each one shared pool; 90 GB/s "
                             "together)"));
  CHECK_THAT(sweep_cap_text(port[0]), Catch::EndsWith("180 GB/s and 0 (no limit) give what "
                                                      "90 GB/s does"));
  // Per-instance edges could carry more with more users: no cap claimed.
  CHECK(effect_caps(small_graph("per_instance"), {"node:HBM.bandwidth=50GB/s,500GB/s"}).empty());
  // A read port: the combined port (100 GB/s) and its one out edge (60 GB/s): 60 GB/s.
  const ArchitectureGraph read = small_graph("shared", "shared", "bandwidth: 100GB/s");
  const auto r = effect_caps(read, {"node:HBM.read_bandwidth=40GB/s,80GB/s"});
  REQUIRE(r.size() == 1);
  CHECK(r[0].cap == Approx(60e9));
  CHECK(r[0].capped == std::vector<double>{80e9});
  // The Ascend 910B3: HBM's port (1.6 TB/s) caps its edge; its edges (1.6 TB/s each way) cap the
  // port at 3.2 TB/s.
  const ArchitectureGraph ascend = sample_graph("samples/arch/ascend910b3.yaml");
  CHECK(effect_caps(ascend, {"edge:HBM->L2.bandwidth=0.8TB/s,1.6TB/s,3.2TB/s"})[0].cap ==
        Approx(1.6e12));
  CHECK(effect_caps(ascend, {"node:HBM.bandwidth=0.8TB/s,1.6TB/s,3.2TB/s"}).empty());
  CHECK(effect_caps(ascend, {"node:HBM.bandwidth=3.2TB/s,6.4TB/s"})[0].cap == Approx(3.2e12));
  // Other parameters take no min() with a figure of the graph here.
  CHECK(effect_caps(ascend, {"node:L1.capacity=256KiB,1MiB", "edge:L2->L1.bandwidth=55B/cycle"})
            .empty());
}

TEST_CASE("sweep caps: a stored sweep's caps are found where the graph is its base graph",
          "[sweep]") {
  const ArchitectureGraph h200 = sample_graph("samples/arch/nvidia-h200.yaml");
  const ParameterPath edge = parse_parameter_path("edge:HBM->L2.bandwidth", h200, "test");
  std::vector<SweepPointRecord> points;
  for (double v : {4.8e12, 9.6e12}) {
    SweepPointRecord p = effect_point({{"edge:HBM->L2.bandwidth", v}}, 1e-3);
    p.arch_hash = hash_text(with_parameter_value(h200, edge, v).content_hash());
    points.push_back(p);
  }
  const auto caps = stored_sweep_caps(h200, points);
  REQUIRE(caps.has_value());
  REQUIRE(caps->size() == 1);
  CHECK((*caps)[0].capped == std::vector<double>{9.6e12});
  // Another graph (the Ascend has the same path, not the same content): not its sweep.
  CHECK_FALSE(stored_sweep_caps(sample_graph("samples/arch/ascend910b3.yaml"), points).has_value());
}

TEST_CASE("sweep plateaus: no effect, and values past which the total stops moving", "[sweep]") {
  // a in {1, 2, 4} x b in {1, 2}: T = 10 / min(a, 2) + b; c does nothing.
  std::vector<SweepPointRecord> points;
  for (double a : {1.0, 2.0, 4.0})
    for (double b : {1.0, 2.0})
      for (double c : {3.0, 5.0})
        points.push_back(effect_point({{"a", a}, {"b", b}, {"c", c}}, 10 / std::min(a, 2.0) + b));
  const auto plateaus = sweep_axis_plateaus({"a", "b", "c"}, points);
  REQUIRE(plateaus.size() == 2);
  CHECK(plateaus[0].path == "a");
  CHECK(plateaus[0].kind == SweepAxisPlateau::Kind::same_above);
  CHECK(plateaus[0].from == 2);
  CHECK(plateaus[0].same == std::vector<double>{4});
  CHECK(sweep_plateau_text(plateaus[0], "the suite total", true) ==
        "4 gives the same suite total as 2 at every combination of the other parameters");
  CHECK(plateaus[1].path == "c");
  CHECK(plateaus[1].kind == SweepAxisPlateau::Kind::no_effect);
  CHECK(sweep_plateau_text(plateaus[1], "the suite total", false) ==
        "no value changes the suite total: 3 and 5 give the same");
  // Explained by a cap at 2 (the values above it give what it gives), not by one at 3.
  const SweepAxisCap at2{0, "a", 2, "x", {4}, false};
  const SweepAxisCap at3{0, "a", 3, "x", {4}, false};
  CHECK(plateau_explained_by(plateaus[0], at2, {1, 2, 4}));
  CHECK_FALSE(plateau_explained_by(plateaus[0], at3, {1, 2, 4}));
  // Drawn points, no two sharing the other values: no evidence, nothing claimed.
  CHECK(sweep_axis_plateaus({"a", "b"}, {effect_point({{"a", 1}, {"b", 1}}, 1),
                                         effect_point({{"a", 2}, {"b", 2}}, 1)})
            .empty());
  // A schedule that changes nothing: named by its values.
  const auto names = sweep_axis_plateaus({"schedule", "tp"},
                                         {effect_point({{"schedule", "1f1b"}, {"tp", 1}}, 2),
                                          effect_point({{"schedule", "gpipe"}, {"tp", 1}}, 2),
                                          effect_point({{"schedule", "1f1b"}, {"tp", 2}}, 1),
                                          effect_point({{"schedule", "gpipe"}, {"tp", 2}}, 1)});
  REQUIRE(names.size() == 1);
  CHECK(sweep_plateau_text(names[0], "the iteration time", true) ==
        "no value changes the iteration time: 1f1b and gpipe give the same at every combination "
        "of the other parameters");
}

TEST_CASE("sweep plateaus: an axis that moves only the energy says so", "[sweep]") {
  std::vector<SweepPointRecord> points;
  for (double b : {1.0, 2.0}) {
    SweepPointRecord p = effect_point({{"b", b}}, 1e-3);
    p.energy_j = 1e-6 * b;
    points.push_back(p);
  }
  const auto plateaus = sweep_axis_plateaus({"b"}, points);
  REQUIRE(plateaus.size() == 1);
  CHECK(plateaus[0].moves == std::vector<std::string>{"suite energy"});
  CHECK_THAT(sweep_plateau_text(plateaus[0], "the suite total", false),
             Catch::StartsWith("no value changes the suite total (it moves the suite energy)"));
}

TEST_CASE("sensitivities: collinear axes are named, the others fitted", "[sweep]") {
  // A strategy grid on 8 GPUs: dp = 8 / (tp x pp), T = tp^0.5 pp^-0.3 (dp follows). Fitted in
  // the order tp, pp, dp: dp is the combination ln 8 - ln tp - ln pp, left out and named.
  std::vector<SweepPointRecord> points;
  for (int tp : {1, 2, 4})
    for (int pp : {1, 2}) {
      const int dp = 8 / (tp * pp);
      points.push_back(effect_point({{"tp", tp}, {"pp", pp}, {"dp", dp}},
                                    std::pow(tp, 0.5) * std::pow(pp, -0.3)));
    }
  const auto rows = sweep_sensitivities({"tp", "pp", "dp"}, points);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].elasticity[0]);
  CHECK(*rows[0].elasticity[0] == Approx(0.5));
  REQUIRE(rows[0].elasticity[1]);
  CHECK(*rows[0].elasticity[1] == Approx(-0.3));
  CHECK_FALSE(rows[0].elasticity[2]);
  REQUIRE(rows[0].collinear.size() == 1);
  CHECK(rows[0].collinear[0].path == "dp");
  CHECK(rows[0].collinear[0].with == std::vector<std::string>{"tp", "pp"});
  const auto notes = sweep_collinearity_notes(rows);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::StartsWith("dp is not fitted: over these points it is determined "
                                         "by tp and pp"));
  // The digest (GUI, report) orders a grid's dp last, so it is dp that is left out there too.
  for (SweepPointRecord& p : points) {
    nlohmann::json j = nlohmann::json::parse(p.parameters_json);
    j["cluster-content"] = "c";
    p.parameters_json = j.dump();
  }
  const SweepDigest d = digest_sweep(points);
  CHECK(d.paths == std::vector<std::string>{"pp", "tp", "dp"});
  REQUIRE(d.sensitivities[0].elasticity[1]);
  CHECK(*d.sensitivities[0].elasticity[1] == Approx(0.5));
  CHECK_FALSE(d.sensitivities[0].elasticity[2]);
}

TEST_CASE("sensitivities: a subject that does not move along an axis is 0 there, exactly",
          "[sweep]") {
  // T = 1 / a at b in {1, 2}: b does nothing; a flat subject (an operator the axes never
  // touch) is 0 everywhere. Never "-0.000": elasticity_text rounds to "0".
  std::vector<SweepPointRecord> points;
  for (double a : {1.0, 2.0, 4.0})
    for (double b : {1.0, 2.0}) {
      SweepPointRecord p = effect_point({{"a", a}, {"b", b}}, 1 / a);
      p.operators = {effect_op("moves", 1 / a), effect_op("flat", 0.25)};
      points.push_back(p);
    }
  const auto rows = sweep_sensitivities({"a", "b"}, points);
  REQUIRE(rows.size() == 3);
  CHECK(*rows[0].elasticity[0] == Approx(-1));
  CHECK(*rows[0].elasticity[1] == 0.0);
  CHECK_FALSE(std::signbit(*rows[0].elasticity[1]));
  CHECK(*rows[2].elasticity[0] == 0.0);
  CHECK(*rows[2].elasticity[1] == 0.0);
  CHECK(elasticity_text(-1e-17) == "0");
  CHECK(elasticity_text(0.0004) == "0");
  CHECK(elasticity_text(-0.2561) == "-0.256");
  CHECK(elasticity_text(std::nullopt) == "-");
  // Two points that differ in both axes at once: only the first can be fitted; the second is
  // named collinear rather than given a slope from rounding.
  const auto two = sweep_sensitivities({"a", "b"}, {effect_point({{"a", 1}, {"b", 1}}, 2.0),
                                                    effect_point({{"a", 2}, {"b", 3}}, 1.0)});
  REQUIRE(two[0].elasticity[0]);
  CHECK(*two[0].elasticity[0] == Approx(-1));
  CHECK_FALSE(two[0].elasticity[1]);
  REQUIRE(two[0].collinear.size() == 1);
  CHECK(two[0].collinear[0].with == std::vector<std::string>{"a"});
}

TEST_CASE("sweep cost: chosen from the points, or named", "[sweep]") {
  std::vector<SweepPointRecord> points;
  for (double l1 : {1.0, 2.0}) {
    SweepPointRecord p = effect_point({{"node:L1.capacity", l1 * 65536}}, 2e-3 / l1);
    p.cost = 1e9 + l1;
    points.push_back(p);
  }
  CHECK(choose_sweep_cost(points) == SweepCost{});
  points[0].energy_j = 1e-3;
  CHECK(choose_sweep_cost(points) == SweepCost{});  // not at every point
  points[1].energy_j = 2e-3;
  CHECK(choose_sweep_cost(points) == SweepCost{SweepFigure::energy, {}});
  const std::vector<std::string> paths{"node:L1.capacity"};
  CHECK_FALSE(parse_sweep_cost("auto", paths, false).has_value());
  CHECK(*parse_sweep_cost("edp", paths, false) == SweepCost{SweepFigure::edp, {}});
  const SweepCost l1 = *parse_sweep_cost("node:L1.capacity", paths, false);
  CHECK(l1.figure == SweepFigure::parameter);
  CHECK(*sweep_cost_value(points[1], l1) == 131072);
  // The bigger L1 is faster and costs more: both are on its front, cheapest first.
  CHECK(pareto_front(points, l1).size() == 2);
  CHECK(pareto_front(points, l1)[0].total_s == 2e-3);
  CHECK_THAT(input_error_of([&] { parse_sweep_cost("bytes", paths, false); }).message(),
             Catch::Contains("'bytes' is no cost; expected auto (the default), memory, energy, "
                             "area, edp or a parameter the sweep varies (node:L1.capacity)"));
  CHECK_THAT(input_error_of([&] { parse_sweep_cost("energy", {"tp"}, true); }).message(),
             Catch::Contains("a strategy grid's points have no energy or area"));
  CHECK_THAT(sweep_cost_line(SweepCost{}, true, false), Catch::StartsWith("Pareto cost: memory"));
}
