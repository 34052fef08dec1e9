// MapperOptions::cancel: a search stops inside itself (not only between operators) when the flag
// is set, says so, and counts what it evaluated; an unset flag changes nothing.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "arch/ArchitectureLoader.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

struct AscendCase {
  ArchitectureGraph graph =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  Operator op = make_gemm("ffn_up", 4096, 4096, 1024);
  MappingProgram program = compile_mapping(default_template(op, graph), op, graph, true);
};

// A budget above any space: the search is exhaustive, so that the evaluations it would make
// uncancelled are known without making them (the size of the space).
constexpr uint64_t kUnbounded = uint64_t(1) << 62;

}  // namespace

TEST_CASE("a search whose cancel flag is already set evaluates nothing", "[mapper][cancel]") {
  AscendCase c;
  const std::atomic<bool> cancel{true};
  for (const bool parallel : {true, false}) {
    MapperOptions o;
    o.parallel = parallel;
    o.cancel = &cancel;
    const MapperResult r = search_mapping(c.program, o);
    CHECK(r.cancelled);
    CHECK_FALSE(r.found);
    CHECK(r.evaluations == 0);
  }
  OperatorPredictionOptions po;
  po.mapper.cancel = &cancel;
  CHECK_THROWS_AS(predict_operator(c.op, c.graph, po), MapperCancelled);
}

TEST_CASE("an unset cancel flag leaves the search as it was", "[mapper][cancel]") {
  AscendCase c;
  const std::atomic<bool> cancel{false};
  MapperOptions plain;
  plain.budget = 20000;
  MapperOptions watched = plain;
  watched.cancel = &cancel;
  const MapperResult a = search_mapping(c.program, plain);
  const MapperResult b = search_mapping(c.program, watched);
  REQUIRE(a.found);
  CHECK_FALSE(b.cancelled);
  CHECK(b.found);
  CHECK(b.device_s == a.device_s);
  CHECK(b.evaluations == a.evaluations);
}

TEST_CASE("cancelling from another thread stops one search part-way", "[mapper][cancel]") {
  AscendCase c;
  for (const bool parallel : {true, false}) {
    INFO("parallel " << parallel);
    std::atomic<bool> cancel{false};
    MapperOptions o;
    o.budget = kUnbounded;
    o.parallel = parallel;
    o.cancel = &cancel;
    std::thread canceller([&cancel] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      cancel = true;
    });
    const MapperResult r = search_mapping(c.program, o);
    canceller.join();
    REQUIRE(r.cancelled);
    CHECK_FALSE(r.found);
    // Uncancelled it would have evaluated every point of the space; it stopped inside the sweep.
    REQUIRE(r.space_size > 1e7);
    CHECK(r.evaluations > 0);
    CHECK(static_cast<double>(r.evaluations) < r.space_size / 100);
    WARN("cancelled after " << r.evaluations << " of " << r.space_size << " evaluations"
                            << (parallel ? " (parallel)" : " (serial)"));
  }
}
