// Which operator a measurement is of and what a measured operator costs: the rule the GUI's
// measured column, its point-to-operator link and `simulate --operator-times db:` share.
#include <catch2/catch.hpp>

#include "measure/MeasuredCost.hpp"
#include "measure/OperatorIdentity.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

OperatorKey gemm(const std::string& name, int64_t m, int64_t n, int64_t k,
                 DataType dtype = DataType::fp16) {
  return operator_key(make_gemm(name, m, n, k, dtype), "suite");
}

}  // namespace

TEST_CASE("an operator costs its fastest measurement, whatever it was named",
          "[measure][measured-cost]") {
  FastestMeasurements fastest;
  fastest.add(gemm("qkv", 512, 768, 768), 30e-6, TimingScope::host_call);
  fastest.add(gemm("row 3", 512, 768, 768), 20e-6, TimingScope::device);  // a shape table's row
  fastest.add(gemm("qkv", 512, 768, 768), 25e-6, TimingScope::host_call);
  CHECK(fastest.identities() == 1);

  const auto cost = fastest.of(gemm("attention.qkv", 512, 768, 768));
  REQUIRE(cost);
  CHECK(cost->seconds == 20e-6);
  CHECK(cost->scope == TimingScope::device);  // the fastest measurement's clock, not the first's

  // Another shape or another data type computes something else: not measured.
  CHECK_FALSE(fastest.of(gemm("qkv", 512, 768, 1024)));
  CHECK_FALSE(fastest.of(gemm("qkv", 512, 768, 768, DataType::fp32)));
  CHECK(operator_identity(gemm("a", 1, 2, 3)) !=
        operator_identity(gemm("a", 1, 2, 3, DataType::fp32)));
}

TEST_CASE(
    "a measurement is of the operator of its name and identity, else the first of its identity",
    "[measure][measured-cost]") {
  // BERT's q, k and v projections are one GEMM under three names.
  const std::vector<OperatorKey> ops = {gemm("q", 512, 768, 768), gemm("k", 512, 768, 768),
                                        gemm("v", 512, 768, 768), gemm("ffn", 512, 3072, 768)};
  CHECK(operator_of(gemm("k", 512, 768, 768), ops) == 1u);
  CHECK(operator_of(gemm("shape-row", 512, 768, 768), ops) == 0u);
  CHECK(operator_of(gemm("ffn", 512, 3072, 768), ops) == 3u);
  // The name alone is not enough: a "k" of another shape or data type is no operator here.
  CHECK_FALSE(operator_of(gemm("k", 512, 768, 1024), ops));
  CHECK_FALSE(operator_of(gemm("k", 512, 768, 768, DataType::bf16), ops));
  CHECK_FALSE(operator_of(gemm("k", 512, 768, 768), {}));
}
