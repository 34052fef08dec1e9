// The host suite planner (plan/HostSuitePlan): which entries a workload gives, what each carries,
// and that a prediction belongs to its own entry's mapping.
#include <catch2/catch.hpp>
#include <set>

#include "arch/ArchitectureLoader.hpp"
#include "plan/HostSuitePlan.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

const std::string kPlanFixtures = std::string(TILESCOPE_FIXTURES) + "/host-kernels/";

Workload small_workload() {
  Workload w;
  w.name = "plan-test";
  w.operators.push_back(make_gemm("gemm_odd", 77, 130, 61, DataType::fp32));
  w.operators.push_back(make_vector_op("softmax", "softmax", 64, 200, DataType::fp32));
  return w;
}

HostSuiteOptions quick(size_t per_gemm) {
  HostSuiteOptions o;
  o.mappings_per_gemm = per_gemm;
  o.mapper.budget = 200;
  return o;
}

}  // namespace

TEST_CASE("the host suite: tiled mappings and OpenBLAS per GEMM, a vector job otherwise",
          "[plan][host]") {
  const ArchitectureGraph graph = load_architecture(kPlanFixtures + "host-like.yaml");
  const Workload w = small_workload();
  std::vector<std::string> planned;
  const HostSuite suite =
      host_suite(w, graph, quick(3), [&](size_t i, size_t n, const Operator& op) {
        CHECK(n == 2);
        planned.push_back(std::to_string(i) + op.name);
      });
  CHECK(planned == std::vector<std::string>{"0gemm_odd", "1softmax"});
  std::vector<std::string> impls;
  std::set<std::string> hashes;
  for (const SuiteEntry& e : suite.entries) {
    impls.push_back(e.implementation);
    CHECK(e.key.suite == "plan-test");
    CHECK(e.dtype == "fp32");
    CHECK(e.prediction.arch_hash == suite.arch_hash);
    CHECK(e.prediction.device_s > 0);
    if (e.implementation == "tiled") {
      REQUIRE(e.mapping);
      REQUIRE(e.program);
      // a tiled entry is predicted on its own mapping, not the mapper's choice
      REQUIRE(e.prediction.mapping);
      CHECK(e.prediction.mapping->hash == e.mapping->hash);
      CHECK(e.prediction.chosen_mapping_yaml.empty());
      hashes.insert(e.mapping->hash);
    } else {
      CHECK(!e.mapping);
      CHECK(!e.prediction.mapping);
      CHECK(!e.prediction.chosen_mapping_yaml.empty());
    }
  }
  CHECK(impls == std::vector<std::string>{"tiled", "tiled", "tiled", "openblas", "vector"});
  CHECK(hashes.size() == 3);  // three different mappings

  HostSuiteOptions no_blas = quick(2);
  no_blas.openblas = false;
  std::vector<std::string> without;
  for (const SuiteEntry& e : host_suite(w, graph, no_blas).entries)
    without.push_back(e.implementation);
  CHECK(without == std::vector<std::string>{"tiled", "tiled", "vector"});
}

TEST_CASE("mapping files given for a GEMM replace the generated ones", "[plan][host]") {
  const ArchitectureGraph graph = load_architecture(kPlanFixtures + "host-like.yaml");
  HostSuiteOptions o = quick(5);
  const Mapping given = load_mapping(kPlanFixtures + "gemm-tails-k-outermost.yaml");
  o.given_mappings["gemm_odd"] = {given};
  const HostSuite suite = host_suite(small_workload(), graph, o);
  REQUIRE(suite.entries.size() == 3);  // the given mapping, OpenBLAS, softmax
  CHECK(suite.entries[0].implementation == "tiled");
  CHECK(suite.entries[0].mapping->name == given.name);
}
