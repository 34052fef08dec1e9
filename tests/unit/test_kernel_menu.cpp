// Kernel menus (a list of templates per class or type: the mapper takes the fastest among those
// whose unit runs the operator's data type) and launch overheads per operator type.
#include <catch2/catch.hpp>
#include <fstream>

#include "../TempDir.hpp"
#include "InputErrorCapture.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// One SM-like instance pair: Wide does 64 fp32 MACs a cycle, Narrow 16; Tensor 1024 fp16 ones.
// A GEMM template per unit, each a fixed block of 32 x 32 per call (no free factor but the
// root's), so that the times can be worked by hand: M = N = K = 64 is 4 x 64 calls of 1024 MACs.
std::string menu_graph(const std::string& dir, const std::string& templates) {
  for (const char* unit : {"Wide", "Narrow", "Tensor"})
    write(dir + "/" + unit + ".yaml", std::string(R"(version: 1
kind: mapping
name: )") + unit + R"(-kernel
tree:
  tile: DRAM
  temporal: {M: "?", N: "?", K: "?"}
  children:
    - op: )" + unit + R"(
      factors: {M: 32, N: 32, K: 1}
)");
  return R"(version: 1
kind: architecture
name: menu
clock: 1GHz
launch_overhead: 5us
launch_overheads: {linear: 40us, softmax: 7us}
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: Wide, type: compute, operations: [{class: matmul, dtype: fp32, ops_per_cycle: 64, granule: [1, 1, 1]}]}
  - {name: Narrow, type: compute, operations: [{class: matmul, dtype: fp32, ops_per_cycle: 16, granule: [1, 1, 1]}]}
  - {name: Tensor, type: compute, operations: [{class: matmul, dtype: fp16, ops_per_cycle: 1024, granule: [1, 1, 1]}]}
edges:
  - {from: DRAM, to: Wide, bandwidth: 1TB/s}
  - {from: Wide, to: DRAM, bandwidth: 1TB/s}
  - {from: DRAM, to: Narrow, bandwidth: 1TB/s}
  - {from: Narrow, to: DRAM, bandwidth: 1TB/s}
  - {from: DRAM, to: Tensor, bandwidth: 1TB/s}
  - {from: Tensor, to: DRAM, bandwidth: 1TB/s}
mapping_templates:
  gemm: )" +
         templates + "\n";
}

Prediction predict(const Operator& op, const ArchitectureGraph& g) {
  OperatorPredictionOptions o;
  o.mapper.budget = 2000;
  return predict_operator(op, g, o);
}

}  // namespace

TEST_CASE("a kernel menu: the fastest kernel whose unit runs the data type", "[menu]") {
  test::TempDir dir("menu");
  const std::string d = dir.path().string();
  const ArchitectureGraph g =
      parse_architecture(menu_graph(d, "[Narrow.yaml, Tensor.yaml, Wide.yaml]"), d + "/menu.yaml");
  REQUIRE(g.operator_templates.at("gemm").size() == 3);

  // fp32: Tensor declares fp16 alone and is not a candidate; of Narrow and Wide, Wide is faster:
  // 64^3 MACs at 64 a cycle = 4096 cycles, plus the operands' and result's bytes over 1 TB/s.
  const Prediction fp32 = predict(make_gemm("g", 64, 64, 64, DataType::fp32), g);
  CHECK(fp32.mapping_name == "Wide-kernel");
  CHECK(fp32.device_us == Approx(4.096).epsilon(0.05));
  CHECK(fp32.mapping_origin.find("fastest of 2 kernels") != std::string::npos);

  // fp16: only Tensor declares it: 64^3 / 1024 = 256 cycles, and the bytes.
  const Prediction fp16 = predict(make_gemm("h", 64, 64, 64, DataType::fp16), g);
  CHECK(fp16.mapping_name == "Tensor-kernel");
  CHECK(fp16.device_us < 1.0);

  // A menu of one behaves as a single template; none that runs int8: an error at the operator
  // naming the type, not an answer at another type's rate.
  const ArchitectureGraph one = parse_architecture(menu_graph(d, "Narrow.yaml"), d + "/one.yaml");
  CHECK(predict(make_gemm("g", 64, 64, 64, DataType::fp32), one).mapping_name == "Narrow-kernel");
  CHECK(predict(make_gemm("g", 64, 64, 64, DataType::fp32), one).device_us ==
        Approx(16.384).epsilon(0.05));
  const InputError int8 =
      test::input_error_of([&] { predict(make_gemm("i", 64, 64, 64, DataType::int8), g); });
  CHECK(std::string(int8.what()).find("is int8") != std::string::npos);
}

TEST_CASE("a kernel menu is written back as a list and an empty one is refused", "[menu]") {
  test::TempDir dir("menu");
  const std::string d = dir.path().string();
  const ArchitectureGraph g =
      parse_architecture(menu_graph(d, "[Narrow.yaml, Wide.yaml]"), d + "/menu.yaml");
  write_architecture(g, "", d + "/copy.yaml");
  const ArchitectureGraph copy = load_architecture(d + "/copy.yaml");
  REQUIRE(copy.operator_templates.at("gemm").size() == 2);
  CHECK(std::filesystem::equivalent(copy.operator_templates.at("gemm")[1], d + "/Wide.yaml"));
  CHECK(copy.launch_overheads == g.launch_overheads);

  const InputError e =
      test::input_error_of([&] { parse_architecture(menu_graph(d, "[]"), d + "/empty.yaml"); });
  CHECK(e.where().line == 20);
  CHECK(e.message().find("an empty kernel menu for `gemm`") != std::string::npos);
}

TEST_CASE("launch overheads per operator type", "[menu][launch]") {
  test::TempDir dir("menu");
  const std::string d = dir.path().string();
  ArchitectureGraph g = parse_architecture(menu_graph(d, "Wide.yaml"), d + "/menu.yaml");
  CHECK(g.launch_overhead_for("linear") == Approx(40e-6));
  CHECK(g.launch_overhead_for("gemm") == Approx(5e-6));  // no entry: the graph's own
  const Prediction p = predict(make_gemm("g", 64, 64, 64, DataType::fp32), g);
  CHECK(p.launch_overhead_us == Approx(5.0));

  // The parameter path reads the type's value, or the graph's where it has none, and sets it.
  CHECK(parameter_value(g, "launch_overhead:linear") == Approx(40e-6));
  CHECK(parameter_value(g, "launch_overhead:batched_gemm") == Approx(5e-6));
  set_parameter_value(g, "launch_overhead:batched_gemm", 12e-6);
  CHECK(g.launch_overhead_for("batched_gemm") == Approx(12e-6));
  const InputError bad = test::input_error_of(
      [&] { parse_parameter_path("launch_overhead:convolution", g, "--param"); });
  CHECK(bad.message().find("unknown operator type 'convolution'") != std::string::npos);

  const InputError key = test::input_error_of([&] {
    parse_architecture(
        "version: 1\nkind: architecture\nclock: 1GHz\nlaunch_overheads: {conv: "
        "1us}\nnodes:\n  - {name: A, type: memory, capacity: 1}\n",
        "x.yaml");
  });
  CHECK(key.where().line == 4);
  CHECK(key.message().find("unknown key 'conv' in `launch_overheads`") != std::string::npos);
}
