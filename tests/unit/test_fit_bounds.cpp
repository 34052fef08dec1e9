// A fit that ends with a parameter on its bound says so (issue 41: `fit` ended with
// Core.efficiency at 0.25, its lower bound, and said nothing).
#include <catch2/catch.hpp>

#include "calibrate/GraphParameter.hpp"

using namespace ts;

namespace {

GraphParameter parameter(const std::string& path, double lower, double upper) {
  GraphParameter p;
  p.path = path;
  p.lower = lower;
  p.upper = upper;
  p.initial = (lower + upper) / 2;
  return p;
}

}  // namespace

TEST_CASE("bound_warnings names each parameter that ended on a bound, and which",
          "[calibrate][fit]") {
  const std::vector<GraphParameter> params = {
      parameter("node:Core.efficiency", 0.25, 1.0),
      parameter("node:HBM.bandwidth", 400e9, 6.4e12),
      parameter("launch_overhead", 3e-6, 48e-6),
  };
  const std::vector<std::string> lines = bound_warnings(params, {0.25, 1.7e12, 48e-6 * 0.99995});
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::StartsWith("node:Core.efficiency ended at its lower bound (0.25)"));
  CHECK_THAT(lines[0], Catch::Contains("`node:Core.efficiency=LO:HI`"));
  CHECK_THAT(lines[1], Catch::StartsWith("launch_overhead ended at its upper bound"));
  // Inside the range, even close to a bound (1 % above it), nothing is said.
  CHECK(bound_warnings(params, {0.2525, 1.7e12, 30e-6}).empty());
}
