// The mechanisms a GPU library's kernels need, worked by hand on a two-SM graph at 1 GHz (one
// cycle is one nanosecond): a thread block's fixed extent where the problem ends inside it, an L2
// that holds a K walk's current slices, blocks that share an SM, a GEMM's epilogue, the board's
// power limit, and tf32 apart from fp32.
#include <catch2/catch.hpp>
#include <fstream>

#include "../TempDir.hpp"
#include "InputErrorCapture.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

// DRAM 100 B/cycle; an L2 of `l2`; two SMs of 64 KiB shared memory (blocks dealt out as they
// free up, padded tails) and registers; lanes of 64 fp32 MACs a cycle per SM; tensor cores that
// run tf32 alone. `extra` goes at the graph's top level (`power: ...`).
std::string gpu(const std::string& l2 = "4MiB", const std::string& energy = "",
                const std::string& extra = "") {
  const std::string e = energy.empty() ? "" : ", energy_per_op: " + energy;
  return R"(version: 1
kind: architecture
name: two-sm
clock: 1GHz
)" + extra +
         R"(nodes:
  - {name: DRAM, type: memory, capacity: 1GiB, bandwidth: 100GB/s}
  - {name: L2, type: memory, capacity: )" +
         l2 + R"(}
  - {name: SMEM, type: memory, capacity: 64KiB, instances: 2, dispatch: dynamic, tails: padded}
  - {name: RF, type: memory, capacity: 256KiB, instances: 2}
  - name: Lanes
    type: compute
    instances: 2
    operations:
      - {class: matmul, dtype: fp32, ops_per_cycle: 64, granule: [1, 1, 1])" +
         e + R"(}
      - {class: elementwise, dtype: fp32, ops_per_cycle: 64, granule: [32])" +
         e + R"(}
  - name: Tensor
    type: compute
    instances: 2
    operations: [{class: matmul, dtype: tf32, ops_per_cycle: 512, granule: [1, 1, 1]}]
edges:
  - {from: DRAM, to: L2, bandwidth: 100GB/s, sharing: shared}
  - {from: L2, to: DRAM, bandwidth: 100GB/s, sharing: shared}
  - {from: L2, to: SMEM, bandwidth: 1000GB/s, sharing: shared}
  - {from: SMEM, to: L2, bandwidth: 1000GB/s, sharing: shared}
  - {from: SMEM, to: RF, bandwidth: 1000GB/s}
  - {from: RF, to: SMEM, bandwidth: 1000GB/s}
  - {from: RF, to: Lanes, bandwidth: 4096GB/s}
  - {from: Lanes, to: RF, bandwidth: 4096GB/s}
  - {from: RF, to: Tensor, bandwidth: 4096GB/s}
  - {from: Tensor, to: RF, bandwidth: 4096GB/s}
)";
}

// An sgemm-like kernel: a block of 64 x 128 walking K in steps of 8 on `unit`.
std::string kernel(const std::string& unit = "Lanes",
                   const std::string& l2_keys = "footprint: step", int resident = 1) {
  return R"(version: 1
kind: mapping
name: block-64x128-)" +
         unit + R"(
tree:
  tile: DRAM
  children:
    - tile: L2
      streamed: true
      )" +
         l2_keys +
         R"(
      buffers: {C: bypass}
      temporal: {K: "?"}
      spatial: {M: "?", N: "?"}
      children:
        - tile: SMEM
          double_buffer: true
          resident_parts: )" +
         std::to_string(resident) + R"(
          buffers: {C: bypass}
          children:
            - tile: RF
              temporal: {K: 8}
              children:
                - op: )" +
         unit + R"(
                  factors: {M: 64, N: 128, K: 1}
)";
}

Prediction with(const std::string& arch, const std::string& tmpl, const Operator& op) {
  const ArchitectureGraph g = parse_architecture(arch, "two-sm.yaml");
  const Mapping m = parse_mapping(tmpl, "kernel.yaml");
  OperatorPredictionOptions o;
  o.mapping = &m;
  o.mapper.budget = 500;
  return predict_operator(op, g, o);
}

}  // namespace

TEST_CASE("a thread block computes its whole extent where the problem ends inside it",
          "[gpu-kernels]") {
  // M = 24 in a block of 64 rows: 64 x 128 x 64 MACs at 64 a cycle, 8192 cycles, not the
  // 24 x 128 x 64 / 64 = 3072 of the problem's rows (the block's loads are the tail's: small).
  const Prediction p = with(gpu(), kernel(), make_gemm("g", 24, 128, 64, DataType::fp32));
  CHECK(p.cycles >= 8192);
  CHECK(p.cycles < 8192 * 1.1);
  CHECK(p.bound_by == "compute:Lanes");
}

TEST_CASE("an L2 with footprint: step holds the walk's current slices, not the walk",
          "[gpu-kernels]") {
  // 256 x 256 x 1024: A and B are 1 MiB each, more than the 64 KiB L2; one K step of both panels
  // is (256 + 256) x 8 x 4 B = 16 KiB, which fits.
  const Operator op = make_gemm("g", 256, 256, 1024, DataType::fp32);
  const Prediction step = with(gpu("64KiB"), kernel(), op);
  // 4 x 2 blocks on 2 SMs: 4 each, 64 x 128 x 1024 / 64 = 131072 cycles apiece.
  CHECK(step.cycles >= 4 * 131072);
  CHECK(step.cycles < 4 * 131072 * 1.1);
  const InputError whole =
      test::input_error_of([&] { with(gpu("64KiB"), kernel("Lanes", "footprint: whole"), op); });
  CHECK(whole.message().find("no valid mapping") != std::string::npos);
}

TEST_CASE("blocks resident together overlap one's stores with another's work", "[gpu-kernels]") {
  // K = 8, one step: each block computes 64 x 128 x 8 / 64 = 1024 cycles and stores its 32 KiB of
  // C; 16 blocks on 2 SMs. Alone, a block's store follows its work; two resident, the longer of
  // the two sets the pace.
  const Operator op = make_gemm("g", 512, 256, 8, DataType::fp32);
  const Prediction one = with(gpu(), kernel("Lanes", "footprint: step", 1), op);
  const Prediction two = with(gpu(), kernel("Lanes", "footprint: step", 2), op);
  CHECK(two.cycles < one.cycles);
  CHECK(two.cycles >= 8 * 1024);  // the SMs' work alone
  // Two blocks' buffers each, in shared memory and registers.
  auto usage = [](const Prediction& p, const std::string& memory) {
    for (const MemoryResidency& r : p.residency)
      if (r.memory == memory) return r.bytes_per_instance;
    return 0.0;
  };
  CHECK(usage(two, "RF") == Approx(2 * usage(one, "RF")));
  CHECK(usage(two, "SMEM") == Approx(2 * usage(one, "SMEM")));
}

TEST_CASE("a linear's bias runs once per K walk, not once per step", "[gpu-kernels]") {
  // The bias is the GEMM's epilogue: 64 x 128 additions at 64 a cycle, 128 cycles per block,
  // once; per K step (64 of them) it would be 8192.
  const Prediction gemm = with(gpu(), kernel(), make_gemm("g", 64, 128, 64, DataType::fp32));
  const Prediction linear = with(gpu(), kernel(), make_linear("l", 64, 128, 64, DataType::fp32));
  CHECK(linear.cycles > gemm.cycles);
  CHECK(linear.cycles - gemm.cycles < 400);
}

TEST_CASE("the board's power limit caps the lanes' sustained rate", "[gpu-kernels]") {
  // 2 SMs x 1 GHz x 1 nJ an operation at 64 W: 32 operations a cycle per SM, half the lanes'.
  const Operator op = make_gemm("g", 128, 256, 512, DataType::fp32);
  const Prediction free = with(gpu("4MiB", "1nJ"), kernel(), op);
  const Prediction capped = with(gpu("4MiB", "1nJ", "power: 64W\n"), kernel(), op);
  CHECK(capped.cycles == Approx(2 * free.cycles).epsilon(0.05));
  // Under the cap the unit is unchanged: 128 W allows 64 a cycle.
  const Prediction roomy = with(gpu("4MiB", "1nJ", "power: 128W\n"), kernel(), op);
  CHECK(roomy.cycles == Approx(free.cycles));
  // A power limit needs a positive figure.
  const InputError e = test::input_error_of(
      [&] { parse_architecture(gpu("4MiB", "", "power: -3W\n"), "bad.yaml"); });
  CHECK(e.where().line == 5);
}

TEST_CASE("tf32 runs on the tensor cores, fp32 on the lanes", "[gpu-kernels]") {
  test::TempDir dir("tf32");
  const std::string d = dir.path().string();
  std::ofstream(d + "/lanes.yaml") << kernel("Lanes");
  std::ofstream(d + "/tensor.yaml") << kernel("Tensor");
  const ArchitectureGraph g = parse_architecture(
      gpu() + "mapping_templates:\n  gemm: [tensor.yaml, lanes.yaml]\n", d + "/two-sm.yaml");
  OperatorPredictionOptions o;
  o.mapper.budget = 500;
  const Prediction fp32 = predict_operator(make_gemm("f", 128, 256, 64, DataType::fp32), g, o);
  const Prediction tf32 = predict_operator(make_gemm("t", 128, 256, 64, DataType::tf32), g, o);
  CHECK(fp32.mapping_name == "block-64x128-Lanes");
  CHECK(tf32.mapping_name == "block-64x128-Tensor");
  CHECK(tf32.cycles < fp32.cycles / 4);
}
