// A graph with fewer compute units than the memories that feed them (what a sweep of
// `node:Cube.instances` alone makes of the Ascend 910B3: 20 cube cores' L1 and L0 buffers, 4
// Cubes): the tiles that run at once take turns on the units there are, so the compute bound
// follows the units' count. Before, each of the 20 tiles counted one Cube of its own and the
// count changed nothing.
#include <catch2/catch.hpp>

#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

TEST_CASE("fewer compute units than the buffers feeding them bound a GEMM by their count",
          "[analysis][sweep]") {
  const ArchitectureGraph full =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  ArchitectureGraph four = full;
  set_parameter_value(four, "node:Cube.instances", 4);
  const Operator qkv = make_gemm("qkv_proj", 4096, 2304, 768);
  // 2 x 4096 x 2304 x 768 = 14.496 GFLOP; one Cube does 4096 MACs = 8192 FLOP a cycle at
  // 1.8 GHz (the graph's figures): 4 Cubes take 14.496e9 / (4 x 8192 x 1.8e9) = 245.8 us, 20
  // Cubes 49.2 us.
  const double flops = 2.0 * 4096 * 2304 * 768;
  const double four_bound_us = flops / (4 * 8192 * 1.8e9) * 1e6;
  const double full_bound_us = flops / (20 * 8192 * 1.8e9) * 1e6;
  const Prediction with_four = predict_operator(qkv, four, OperatorPredictionOptions{});
  const Prediction with_full = predict_operator(qkv, full, OperatorPredictionOptions{});
  CHECK(with_full.device_us >= full_bound_us);
  CHECK(with_full.device_us < four_bound_us);
  CHECK(with_four.device_us >= four_bound_us);
  CHECK(with_four.device_us < 1.25 * four_bound_us);  // compute-bound: the rest hides under it
  CHECK(with_four.bound_by == "compute:Cube");
}
