// The mapper against an exhaustive search written here, on problems small enough to enumerate.
#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "AnalysisFixtures.hpp"
#include "analysis/MappingWriter.hpp"
#include "mapper/Mapper.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::test;

namespace {

const char* const kTemplate = kFreeDramSramPeTemplate;

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> v;
  for (int64_t d = 1; d <= n; ++d)
    if (n % d == 0) v.push_back(d);
  return v;
}

// Every mapping of the template with divisor factors (no tails needed), every loop order at the
// root: the optimum by brute force, built as mapping text so nothing of the mapper is reused.
double brute_force(const ArchitectureGraph& g, const Operator& op) {
  const int64_t M = op.dims[0].size / 8, N = op.dims[1].size / 8, K = op.dims[2].size / 4;
  const char* orders[] = {"M, N, K", "M, K, N", "N, M, K", "N, K, M", "K, M, N", "K, N, M"};
  double best = std::numeric_limits<double>::infinity();
  for (int64_t sm : divisors(M))
    for (int64_t m1 : divisors(M / sm))
      for (int64_t n1 : divisors(N))
        for (int64_t k1 : divisors(K))
          for (const char* order : orders) {
            const int64_t m0 = M / sm / m1, n0 = N / n1, k0 = K / k1;
            std::string text = "version: 1\nkind: mapping\nname: b\ntree:\n  tile: DRAM\n";
            text += "  temporal: {M: " + std::to_string(m1) + ", N: " + std::to_string(n1) +
                    ", K: " + std::to_string(k1) + "}\n  order: [" + order + "]\n";
            text += "  spatial: {M: " + std::to_string(sm) + "}\n  children:\n    - tile: SRAM\n";
            text += "      double_buffer: true\n      temporal: {M: " + std::to_string(m0) +
                    ", N: " + std::to_string(n0) + ", K: " + std::to_string(k0) + "}\n";
            text += "      children:\n        - op: PE\n          factors: {M: 8, N: 8, K: 4}\n";
            Mapping m = parse_mapping(text, "brute.yaml");
            MappingProgram p = compile_mapping(m, op, g);
            AnalysisScratch e;
            best = std::min(best, evaluate(p, e));
          }
  return best;
}

}  // namespace

TEST_CASE("the mapper finds the exhaustive optimum on small problems", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch("shared", "64B/cycle"), "tiny.yaml");
  Mapping tmpl = parse_mapping(kTemplate, "t.yaml");
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, std::tuple{128, 32, 64}, std::tuple{32, 96, 48}}) {
    Operator op = make_gemm("g", m, n, k);
    const double optimum = brute_force(g, op);
    REQUIRE(std::isfinite(optimum));
    MappingProgram program = compile_mapping(tmpl, op, g, true);
    MapperOptions all;
    all.budget = 10'000'000;  // more than the space: exhaustive
    MapperResult exhaustive = search_mapping(program, all);
    REQUIRE(exhaustive.found);
    CHECK(exhaustive.exhaustive);
    // The mapper's space holds every divisor split, and tails may do even better.
    CHECK(exhaustive.device_s <= optimum * (1 + 1e-9));
    MapperOptions small;
    small.budget = 3000;  // less than the space: sampling then descent
    MapperResult searched = search_mapping(program, small);
    REQUIRE(searched.found);
    CHECK_FALSE(searched.exhaustive);
    CHECK(searched.device_s <= exhaustive.device_s * 1.05);
  }
}

TEST_CASE("the mapper is deterministic whatever the threading", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 96, 80, 64);
  MappingProgram program = compile_mapping(parse_mapping(kTemplate, "t.yaml"), op, g, true);
  MapperOptions parallel, serial;
  parallel.budget = serial.budget = 2000;
  serial.parallel = false;
  MapperResult a = search_mapping(program, parallel);
  MapperResult b = search_mapping(program, serial);
  REQUIRE(a.found);
  CHECK(a.device_s == b.device_s);
  CHECK(a.evaluations == b.evaluations);
  AnalysisScratch ea, eb;
  evaluate(a.program, ea);
  evaluate(b.program, eb);
  CHECK(ea.device_s == eb.device_s);
}

TEST_CASE("a mapped result keeps within capacity and covers the problem", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 100, 70, 36);  // nothing divides evenly: tails everywhere
  MappingProgram program = compile_mapping(parse_mapping(kTemplate, "t.yaml"), op, g, true);
  MapperResult r = search_mapping(program, MapperOptions{});
  REQUIRE(r.found);
  AnalysisScratch e;
  evaluate(r.program, e);
  REQUIRE(e.valid());
  for (size_t k = 0; k < r.program.memories.size(); ++k)
    CHECK(e.memory_usage[k] <= g.node(r.program.memories[k]).capacity_bytes);
  CHECK(e.nodes[0].ext_tail[0] == 100);
  CHECK(e.nodes[0].ext_tail[1] == 70);
  CHECK(e.nodes[0].ext_tail[2] == 36);
}

TEST_CASE("a graph without templates gets a generic chain along its memories", "[mapper]") {
  // tiny_arch names no mapping_templates: the mapper builds DRAM -> SRAM -> PE itself.
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  REQUIRE(g.mapping_templates.empty());
  Workload w = parse_workload(tiny_workload(), "tiny-suite.yaml");
  for (const auto& op : w.operators) {
    Mapping tmpl = default_template(op, g);
    CHECK(tmpl.root.memory == "DRAM");
    REQUIRE(tmpl.root.children.size() == 1);
    CHECK(tmpl.root.children[0].memory == "SRAM");
    MappingProgram program = compile_mapping(tmpl, op, g, true);
    MapperResult r = search_mapping(program, MapperOptions{});
    REQUIRE(r.found);
    AnalysisScratch e;
    evaluate(r.program, e);
    CHECK(e.valid());
    CHECK(e.device_s > 0);
  }
}

TEST_CASE("mapper results do not depend on what a thread evaluated before", "[mapper]") {
  // The bundled Ascend template has fixed op factors below free ones; a point must be built from
  // the template and its own choices only. Serial and parallel runs, repeated, must agree.
  ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  Operator op = make_gemm("out_proj", 4096, 1024, 1024);
  MappingProgram program = compile_mapping(default_template(op, g), op, g, true);
  MapperOptions serial;
  serial.parallel = false;
  serial.budget = 20000;
  const MapperResult reference = search_mapping(program, serial);
  REQUIRE(reference.found);
  for (int run = 0; run < 3; ++run) {
    MapperOptions parallel;
    parallel.budget = 20000;
    const MapperResult r = search_mapping(program, parallel);
    CHECK(r.device_s == reference.device_s);
  }
  // And the chosen mapping evaluates, on its own, to what the search reported.
  AnalysisScratch e;
  CHECK(evaluate(reference.program, e) == reference.device_s);
}

TEST_CASE("the mapper's ranked points are its best distinct ones, best first", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch("shared", "64B/cycle"), "tiny.yaml");
  Operator op = make_gemm("g", 64, 64, 64);
  MappingProgram program = compile_mapping(parse_mapping(kTemplate, "t.yaml"), op, g, true);
  MapperOptions all;
  all.budget = 10'000'000;  // exhaustive: the ranking must be the true top 5
  all.keep = 5;
  MapperResult r = search_mapping(program, all);
  REQUIRE(r.exhaustive);
  REQUIRE(r.ranked.size() == 5);
  AnalysisScratch e0;
  CHECK(evaluate(r.program, e0) == r.device_s);
  CHECK(r.ranked_device_s.front() == r.device_s);
  for (size_t k = 0; k < r.ranked.size(); ++k) {
    AnalysisScratch e;
    CHECK(evaluate(r.ranked[k], e) == r.ranked_device_s[k]);  // each re-evaluates to its time
    if (k > 0) CHECK(r.ranked_device_s[k - 1] <= r.ranked_device_s[k]);
  }
  // Nothing in a uniform sample of the space beats the 5th ranked point but the top 4.
  std::vector<MappingProgram> draws = sample_valid_mappings(program, 200, 7);
  size_t better = 0;
  for (const auto& p : draws) {
    AnalysisScratch e;
    better += evaluate(p, e) < r.ranked_device_s.back();
  }
  CHECK(better <= 4);
  // keep = 1 and keep = 5 agree on the best.
  all.keep = 1;
  CHECK(search_mapping(program, all).device_s == r.device_s);
}

TEST_CASE("draws from the valid space are valid, distinct, seeded and bounded", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 100, 70, 36);
  MappingProgram program = compile_mapping(parse_mapping(kTemplate, "t.yaml"), op, g, true);
  MapperOptions exhaustive;
  exhaustive.budget = 10'000'000;
  const MapperResult best = search_mapping(program, exhaustive);
  REQUIRE(best.exhaustive);
  auto draws = sample_valid_mappings(program, 10, 99, best.device_s, 5.0);
  REQUIRE(draws.size() == 10);
  auto again = sample_valid_mappings(program, 10, 99, best.device_s, 5.0);
  auto other = sample_valid_mappings(program, 10, 100, best.device_s, 5.0);
  std::set<std::string> texts;
  bool differs = false;
  for (size_t k = 0; k < draws.size(); ++k) {
    AnalysisScratch e, e2, e3;
    const double t = evaluate(draws[k], e);
    CHECK(e.valid());
    CHECK(t <= best.device_s * 5.0);
    CHECK(t >= best.device_s);  // nothing beats the exhaustive optimum
    CHECK(evaluate(again[k], e2) == t);
    differs = differs || evaluate(other[k], e3) != t;
    texts.insert(mapping_yaml(draws[k], "d", ""));
  }
  CHECK(differs);
  CHECK(texts.size() == draws.size());
}

TEST_CASE("a free double buffer is a choice the mapper makes with the block sizes", "[mapper]") {
  // The same template three ways: double buffering fixed on, fixed off, and left to the mapper.
  // Each is searched exhaustively; the free one must find the better of the two fixed optima
  // (its space is their union) and write a concrete choice.
  ArchitectureGraph g = parse_architecture(tiny_arch("shared", "64B/cycle"), "tiny.yaml");
  auto with = [](const std::string& value) {
    std::string text = kTemplate;
    const std::string fixed = "double_buffer: true";
    text.replace(text.find(fixed), fixed.size(), "double_buffer: " + value);
    return parse_mapping(text, "t.yaml");
  };
  MapperOptions all;
  all.budget = 10'000'000;
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, std::tuple{256, 64, 128}}) {
    Operator op = make_gemm("g", m, n, k);
    auto best = [&](const Mapping& t) {
      MapperResult r = search_mapping(compile_mapping(t, op, g, true), all);
      REQUIRE(r.found);
      REQUIRE(r.exhaustive);
      return r;
    };
    const double on = best(with("true")).device_s;
    const double off = best(with("false")).device_s;
    MapperResult free = best(with("\"?\""));
    CHECK(free.device_s == Approx(std::min(on, off)).epsilon(1e-12));
    const bool chose = free.program.nodes.at(1).double_buffer;
    CHECK(free.program.nodes.at(1).double_buffer_free == false);
    const std::string written = mapping_yaml(free.program, "m", "");
    CHECK((written.find("double_buffer: true") != std::string::npos) == chose);
    CHECK(written.find("\"?\"") == std::string::npos);
  }
}
