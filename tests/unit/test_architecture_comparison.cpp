// compare_architectures: per operator and in total, the time on each graph, the speed-up over the
// first graph, the bound and where it moved, from hand-made predictions whose figures are
// worked out below.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "report/ArchitectureComparison.hpp"
#include "report/ComparisonExport.hpp"

using namespace ts;

namespace {

Prediction predicted(const std::string& op, double device_us, double launch_us,
                     const std::string& bound) {
  Prediction p;
  p.op_name = op;
  p.op_type = "gemm";
  p.shape = "M=8, N=8";  // a comma, so that CSV must quote it
  p.device_us = device_us;
  p.launch_overhead_us = launch_us;
  p.bound_by = bound;
  p.mapping_origin = "mapper";
  return p;
}

// Graph A: qkv 10 + 2 us bound by compute:SM, ffn 30 + 2 us bound by edge:HBM->L2.
// Graph B: qkv  4 + 2 us bound by compute:SM, ffn  6 + 2 us bound by compute:SM.
ArchitectureComparison two_chips() {
  return compare_architectures("tiny", {ComparedGraph{"",
                                                      "chip a",
                                                      "a.yaml",
                                                      {predicted("qkv", 10, 2, "compute:SM"),
                                                       predicted("ffn", 30, 2, "edge:HBM->L2")}},
                                        ComparedGraph{"",
                                                      "chip b",
                                                      "profile:b",
                                                      {predicted("qkv", 4, 2, "compute:SM"),
                                                       predicted("ffn", 6, 2, "compute:SM")}}});
}

}  // namespace

TEST_CASE("comparison: speed-ups over the first graph and where the bound moved", "[compare]") {
  const ArchitectureComparison c = two_chips();
  REQUIRE(c.graphs.size() == 2);
  CHECK(c.graphs[0].label == "A");
  CHECK(c.graphs[1].label == "B");
  REQUIRE(c.operators.size() == 2);
  const ComparedOperator& qkv = c.operators[0];
  CHECK(qkv.name == "qkv");
  // qkv: 12 us on A, 6 us on B: B is 12 / 6 = 2 times faster; the bound stays.
  CHECK(qkv.on_graph[0].time_us() == 12);
  CHECK(qkv.on_graph[1].time_us() == 6);
  CHECK(qkv.on_graph[0].speedup == 1);
  CHECK(qkv.on_graph[1].speedup == 2);
  CHECK(qkv.on_graph[1].bound_moved.empty());
  // ffn: 32 us on A, 8 us on B: 4 times; from the HBM edge to the SMs.
  const ComparedOperator& ffn = c.operators[1];
  CHECK(ffn.on_graph[1].speedup == 4);
  CHECK(ffn.on_graph[1].bound_moved == "edge:HBM->L2 → compute:SM");
  CHECK(ffn.on_graph[0].bound_moved.empty());
  // Totals: A 12 + 32 = 44 us (device 40, launch 4), B 6 + 8 = 14 us: 44 / 14 = 3.142857...
  CHECK(c.total[0].device_us == 40);
  CHECK(c.total[0].launch_us == 4);
  CHECK(c.total[1].time_us() == 14);
  CHECK(c.total[1].speedup == Approx(44.0 / 14.0).epsilon(1e-12));
  // A's time is mostly the HBM edge's (32 of 44 us); all of B's is the SMs'.
  CHECK(c.total[0].bound_by == "edge:HBM->L2");
  CHECK(c.total[1].bound_by == "compute:SM");
  CHECK(c.total[1].bound_moved == "edge:HBM->L2 → compute:SM");
  CHECK(c.moved_bounds == std::vector<size_t>{0, 1});
}

TEST_CASE("comparison: fewer than two graphs, or other operators, are refused", "[compare]") {
  CHECK_THROWS_AS(compare_architectures("tiny", {ComparedGraph{"", "a", "a.yaml", {}}}),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      compare_architectures("tiny", {ComparedGraph{"", "a", "a.yaml", {predicted("x", 1, 0, "")}},
                                     ComparedGraph{"", "b", "b.yaml", {predicted("y", 1, 0, "")}}}),
      std::invalid_argument);
  CHECK_THROWS_AS(
      compare_architectures("tiny", {ComparedGraph{"", "a", "a.yaml", {predicted("x", 1, 0, "")}},
                                     ComparedGraph{"", "b", "b.yaml", {}}}),
      std::invalid_argument);
}

TEST_CASE("comparison: 0 us against 0 us has no speed-up", "[compare]") {
  const ArchitectureComparison c = compare_architectures(
      "tiny", {ComparedGraph{"", "a", "a.yaml", {predicted("x", 0, 0, "launch")}},
               ComparedGraph{"", "b", "b.yaml", {predicted("x", 0, 0, "launch")}}});
  CHECK(std::isnan(c.operators[0].on_graph[1].speedup));
  // The JSON has no NaN: it writes null.
  const nlohmann::json doc = nlohmann::json::parse(comparison_json(c));
  CHECK(doc["operators"][0]["on"][1]["speedup"].is_null());
}

TEST_CASE("comparison CSV and JSON: one row per operator and graph, full precision", "[compare]") {
  const ArchitectureComparison c = two_chips();
  // Rows in order: qkv on A, qkv on B, ffn on A, ffn on B, then the totals; the shape holds a
  // comma and is quoted; the speed-up 44/14 is written with every digit it has.
  const std::string expected =
      "row,operator,type,shape,graph,graph_name,device_us,launch_overhead_us,time_us,speedup,"
      "bound_by,bound_moved\n"
      "operator,qkv,gemm,\"M=8, N=8\",A,chip a,10,2,12,1,compute:SM,\n"
      "operator,qkv,gemm,\"M=8, N=8\",B,chip b,4,2,6,2,compute:SM,\n"
      "operator,ffn,gemm,\"M=8, N=8\",A,chip a,30,2,32,1,edge:HBM->L2,\n"
      "operator,ffn,gemm,\"M=8, N=8\",B,chip b,6,2,8,4,compute:SM,edge:HBM->L2 → compute:SM\n"
      "total,,,,A,chip a,40,4,44,1,edge:HBM->L2,\n"
      "total,,,,B,chip b,10,4,14,3.142857142857143,compute:SM,edge:HBM->L2 → compute:SM\n";
  CHECK(comparison_csv(c) == expected);

  const nlohmann::json doc = nlohmann::json::parse(comparison_json(c));
  CHECK(doc["schema_version"] == 1);
  CHECK(doc["workload"] == "tiny");
  CHECK(doc["graphs"][1]["source"] == "profile:b");
  CHECK(doc["graphs"][1]["total"]["speedup"].get<double>() == 44.0 / 14.0);
  CHECK(doc["graphs"][1]["moved_bounds"] == 1);
  CHECK(doc["operators"][1]["on"][1]["bound_moved"] == "edge:HBM->L2 → compute:SM");
  // Each operator says where its mapping came from; a total is no mapping.
  CHECK(doc["operators"][1]["on"][1]["mapping"] == "mapper");
  CHECK_FALSE(doc["graphs"][1]["total"].contains("mapping"));
}

TEST_CASE("a comparison carries each graph's unconverged searches, and says them once per graph",
          "[compare]") {
  Prediction searched = predicted("ffn", 6, 2, "compute:SM");
  searched.searched = true;
  searched.search_converged = false;  // the mapper's budget ran out while it still improved
  Prediction converged = predicted("qkv", 4, 2, "compute:SM");
  converged.searched = true;
  converged.search_converged = true;
  Prediction given = predicted("ffn", 30, 2, "edge:HBM->L2");  // a mapping file: no search
  const ArchitectureComparison c = compare_architectures(
      "tiny",
      {ComparedGraph{"", "chip a", "a.yaml", {predicted("qkv", 10, 2, "compute:SM"), given}},
       ComparedGraph{"", "chip b", "b.yaml", {converged, searched}}});
  CHECK(c.graphs[0].unconverged.empty());
  CHECK(c.graphs[1].unconverged.operators == std::vector<std::string>{"ffn"});
  const std::vector<std::string> notes = unconverged_graph_notes(c, 1000);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].rfind("on graph B (chip b): the mapper's search for 'ffn' did not converge", 0) ==
        0);
  CHECK(notes[0].find("budget of 1000 evaluations") != std::string::npos);
}
