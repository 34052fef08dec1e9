// Convolutions as einsums with sliding-window axes (workload/EinsumReader, analysis/TileAnalysis;
// issue 39), worked by hand on a small layer: Out[C?, P] += W[R] x In[P*stride + R*dilation - pad]
// on DRAM -> Buffer -> MAC, where a tile of P outputs and R filter taps reads a halo of the input
// and consecutive tiles share it.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/Prediction.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorSpec.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

const char* kGraph = R"(version: 1
kind: architecture
name: two-level
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1MiB, energy: {read: 100pJ, write: 100pJ}}
  - {name: Buffer, type: memory, capacity: 1KiB, energy: {read: 1pJ, write: 2pJ}}
  - name: MAC
    type: compute
    operations: [{class: matmul, dtype: int16, ops_per_cycle: 1, energy_per_op: 0.5pJ}]
edges:
  - {from: DRAM, to: Buffer, bandwidth: 64B/cycle}
  - {from: Buffer, to: DRAM, bandwidth: 64B/cycle}
  - {from: Buffer, to: MAC, bandwidth: 64B/cycle}
  - {from: MAC, to: Buffer, bandwidth: 64B/cycle}
)";

// A 1-D convolution over C channels (C = 1 leaves the channel out of nothing: a size-1 dim).
std::string workload(int c, int p, int r, const std::string& window) {
  return "version: 1\nkind: workload\nname: conv\ndtype: int16\noperators:\n"
         "  - name: conv\n    type: einsum\n    dims: {C: " +
         std::to_string(c) + ", P: " + std::to_string(p) + ", R: " + std::to_string(r) +
         "}\n    tensors:\n      - {name: W, dims: [C, R]}\n"
         "      - {name: In, dims: [C, \"" +
         window +
         "\"]}\n      - {name: Out, dims: [P]}\n"
         "    stages:\n      - {name: conv, class: matmul, inputs: [W, In], output: Out}\n";
}

std::string mapping(const std::string& dram_loops, const std::string& buffer_loops) {
  return "version: 1\nkind: mapping\nname: conv\ntree:\n  tile: DRAM\n  temporal: " + dram_loops +
         "\n  children:\n    - tile: Buffer\n      temporal: " + buffer_loops +
         "\n      children:\n        - op: MAC\n          factors: {C: 1, P: 1, R: 1}\n"
         "          keep: {W: false, In: false, Out: false}\n";
}

struct Counts {
  Prediction prediction;
  double at(const std::string& memory, const std::string& tensor, double MemoryAccesses::*what) {
    for (const MemoryAccesses& a : prediction.accesses)
      if (a.memory == memory && a.tensor == tensor) return a.*what;
    FAIL("no accesses of " << tensor << " at " << memory);
    return 0;
  }
};

Counts predict(const std::string& workload_text, const std::string& mapping_text) {
  const ArchitectureGraph g = parse_architecture(kGraph, "two-level.yaml");
  const Workload w = parse_workload(workload_text, "conv.yaml");
  const Mapping m = parse_mapping(mapping_text, "conv-mapping.yaml");
  OperatorPredictionOptions o;
  o.mapping = &m;
  return Counts{predict_operator(w.operators.at(0), g, o)};
}

}  // namespace

TEST_CASE("a window axis reads as two dims, a stride, a dilation and a pad", "[convolution]") {
  const Workload w = parse_workload(workload(1, 112, 3, "2*P + R*1 - 1"), "conv.yaml");
  const Operator& op = w.operators.at(0);
  const TensorSpec& in = op.tensors.at(static_cast<size_t>(op.find_tensor("In")));
  REQUIRE(in.windows.size() == 1);
  CHECK(op.dims.at(static_cast<size_t>(in.windows[0].dims[0])).name == "P");
  CHECK(op.dims.at(static_cast<size_t>(in.windows[0].dims[1])).name == "R");
  CHECK(in.windows[0].strides[0] == 2);
  CHECK(in.windows[0].strides[1] == 1);
  CHECK(in.windows[0].pad == 1);
  // The input spans (112 - 1) x 2 + (3 - 1) + 1 = 225 rows, as Timeloop counts a 224-row
  // input padded by 1; the tensor is one channel of them.
  CHECK(op.tensor_elements(op.find_tensor("In")) == Approx(225));
  // The stride and pad are part of the operator's identity: another stride is another shape.
  CHECK(op.shape_text() == "C=1 P=112 R=3 2*P+R-1");
  CHECK(parse_workload(workload(1, 112, 3, "P*3+R"), "c.yaml").operators[0].shape_text() !=
        op.shape_text());
  // Dilation: R*2 spans (3 - 1) x 2 + 1 = 5 rows per output.
  const Workload dilated = parse_workload(workload(1, 4, 3, "P+2*R"), "conv.yaml");
  CHECK(dilated.operators[0].tensor_elements(1) == Approx(3 + 4 + 1));
}

TEST_CASE("a window axis that cannot be read is refused at its line", "[convolution]") {
  auto error_of = [](const std::string& window) {
    try {
      parse_workload(workload(1, 8, 3, window), "conv.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("P*R"), Catch::Contains("conv.yaml:11") &&
                                  Catch::Contains("not a dimension times an integer"));
  CHECK_THAT(error_of("P+R+C"), Catch::Contains("more than two dimensions"));
  CHECK_THAT(error_of("P-R"), Catch::Contains("a dimension with a minus sign"));
  CHECK_THAT(error_of("P+"), Catch::Contains("ends with a sign"));
  CHECK_THAT(error_of("P+X"), Catch::Contains("unknown dimension 'X'"));
  CHECK_THAT(error_of("0*P+R"), Catch::Contains("a stride or dilation below 1"));
  CHECK_THAT(error_of("P+R-9"),
             Catch::Contains("a pad of 9") && Catch::Contains("less than half its span of 10"));
  CHECK_THAT(error_of("P+1"), Catch::Contains("one dimension"));
}

TEST_CASE("a convolution's halo: tiles read it, consecutive tiles share it", "[convolution]") {
  // P=4 outputs, R=3 taps, stride 1: the input spans 4 + 3 - 1 = 6 words. DRAM walks P in 2
  // tiles of 2; a Buffer tile of P=2, R=3 holds 2 + 3 - 1 = 4 input words (a halo of 2).
  Counts a = predict(workload(1, 4, 3, "P+R"), mapping("{P: 2}", "{P: 2, R: 3}"));
  // The second tile starts 2 words on and shares 2 with the first: 4 + 2 = 6 words filled, each
  // once (the whole input), not 2 x 4 = 8.
  CHECK(a.at("Buffer", "In", &MemoryAccesses::fills) == Approx(6));
  CHECK(a.at("DRAM", "In", &MemoryAccesses::reads) == Approx(6));
  // The MAC reads an input word per operation (keep: false): 4 x 3 = 12; and W's 3 words stay.
  CHECK(a.at("Buffer", "In", &MemoryAccesses::reads) == Approx(12));
  CHECK(a.at("Buffer", "W", &MemoryAccesses::fills) == Approx(3));
  // Energy of the input: DRAM 6 x 100, Buffer fills 6 x 2 and reads 12 x 1 pJ, in the totals.
  REQUIRE(a.prediction.energy.known);

  // Stride 2: the input spans (4 - 1) x 2 + 3 = 9 words; a tile of 2 outputs spans 2 + 3 = 5,
  // the next starts 4 on and shares 1: 5 + 4 = 9 filled.
  Counts b = predict(workload(1, 4, 3, "2*P+R"), mapping("{P: 2}", "{P: 2, R: 3}"));
  CHECK(b.at("Buffer", "In", &MemoryAccesses::fills) == Approx(9));
  // Stride 4 > the window: tiles of 2 outputs span 4 + 3 = 7 and start 8 apart: no overlap,
  // 2 x 7 = 14 filled (the box of each tile, gaps included, as Timeloop counts a tile).
  Counts c = predict(workload(1, 4, 3, "4*P+R"), mapping("{P: 2}", "{P: 2, R: 3}"));
  CHECK(c.at("Buffer", "In", &MemoryAccesses::fills) == Approx(14));

  // Only the innermost loop that refills slides: with C (2 channels) inside P at the DRAM,
  // each step changes the channel, and no tile follows the one it overlaps: 2 x 2 tiles of
  // 4 words = 16 filled, where P inside C shares the halo: 2 channels x 6 = 12.
  Counts d = predict(workload(2, 4, 3, "P+R"), mapping("{P: 2, C: 2}", "{P: 2, R: 3, C: 1}"));
  CHECK(d.at("Buffer", "In", &MemoryAccesses::fills) == Approx(16));
  Counts e = predict(workload(2, 4, 3, "P+R"), mapping("{C: 2, P: 2}", "{P: 2, R: 3, C: 1}"));
  CHECK(e.at("Buffer", "In", &MemoryAccesses::fills) == Approx(12));
  // A loop over the filter taps slides too: R outside P steps the window by one tap (R=1
  // tiles of P=4 span 4 words; the next tap shares 3): 4 + 1 + 1 = 6 filled.
  Counts f = predict(workload(1, 4, 3, "P+R"), mapping("{R: 3}", "{P: 4, R: 1}"));
  CHECK(f.at("Buffer", "In", &MemoryAccesses::fills) == Approx(6));
}

TEST_CASE("the Timeloop designs' convolution predicts its cycles and the whole input once",
          "[convolution]") {
  // samples/*/timeloop-simple_weight_stationary.yaml: C3 M32 R=S=3 P=Q=112, stride 2, on
  // 16 x 16 PEs of which the mapping uses C3 x M4 = 12: 3 x 32 x 9 x 112 x 112 = 10,838,016
  // MACs over 12 units is 903,168 cycles at one MAC a cycle; the shared_glb's inputs come
  // from DRAM once (the DRAM loop Q14 slides the halo): 3 x 225 x 225 = 151,875 words.
  const std::string root = std::string(TILESCOPE_SAMPLES) + "/";
  const ArchitectureGraph g =
      load_architecture(root + "arch/timeloop-simple_weight_stationary.yaml");
  const Workload w = load_workload(root + "workloads/timeloop-simple_weight_stationary.yaml");
  const Mapping m = load_mapping(root + "mappings/timeloop-simple_weight_stationary.yaml");
  OperatorPredictionOptions o;
  o.mapping = &m;
  Counts ws{predict_operator(w.operators.at(0), g, o)};
  CHECK(ws.prediction.device_us * 1e3 == Approx(903168));
  CHECK(ws.at("shared_glb", "Inputs", &MemoryAccesses::fills) == Approx(151875));
  CHECK(ws.at("DRAM", "Weights", &MemoryAccesses::reads) == Approx(864));
  CHECK(ws.at("DRAM", "Outputs", &MemoryAccesses::updates) == Approx(401408));
  // The M4 PEs that share an input get one multicast read: 10,838,016 / 4 from the shared_glb,
  // across the pe_spad and weight_reg tiles the input bypasses.
  CHECK(ws.at("shared_glb", "Inputs", &MemoryAccesses::reads) == Approx(10838016.0 / 4));
  // C3's partial sums are summed by the network: 10,838,016 / 3 updates reach the shared_glb.
  CHECK(ws.at("shared_glb", "Outputs", &MemoryAccesses::updates) == Approx(10838016.0 / 3));
  // The registers refill partial sums on all but each output's first visit on each PE
  // (10,838,016 - 3 x 401,408); the shared_glb reads each once for the three PEs that sum it.
  CHECK(ws.at("output_activation_reg", "Outputs", &MemoryAccesses::fills) ==
        Approx(10838016.0 - 3 * 401408));
  CHECK(ws.at("shared_glb", "Outputs", &MemoryAccesses::reads) ==
        Approx((10838016.0 - 3 * 401408) / 3));
  CHECK(ws.prediction.energy.known);
}

TEST_CASE("conv2d builds the layer PyTorch's Conv2d sizes, grouped and depthwise included",
          "[convolution]") {
  auto conv = [](const std::string& keys) {
    return parse_workload(
               "version: 1\nkind: workload\nname: c\noperators:\n  - {name: c, type: "
               "conv2d, " +
                   keys + "}\n",
               "c.yaml")
        .operators.at(0);
  };
  // ResNet-50's first layer: 224 + 2 x 3 - 7 = 223, / 2 + 1 = 112 rows out.
  const Operator first = conv("C: 3, M: 64, H: 224, W: 224, R: 7, S: 7, stride: 2, pad: 3");
  CHECK(first.dims[static_cast<size_t>(first.find_dim("P"))].size == 112);
  CHECK(first.find_dim("G") < 0);
  CHECK(first.total_flops() == Approx(2.0 * 64 * 3 * 49 * 112 * 112));
  // The input the windows span: (112 - 1) x 2 + 7 = 229 rows each way (224 and the pads).
  CHECK(first.tensor_elements(first.find_tensor("Inputs")) == Approx(3.0 * 229 * 229));
  // Depthwise: a group a channel, one filter each: C = M = 1 per group.
  const Operator dw = conv("C: 32, M: 32, H: 112, W: 112, R: 3, S: 3, pad: 1, groups: 32");
  CHECK(dw.dims[static_cast<size_t>(dw.find_dim("G"))].size == 32);
  CHECK(dw.dims[static_cast<size_t>(dw.find_dim("C"))].size == 1);
  CHECK(dw.total_flops() == Approx(2.0 * 32 * 9 * 112 * 112));
  // Its one-line spec reads back as the same operator (the workload writer's form).
  const Operator back = operator_from_spec(operator_spec(dw), "spec.yaml");
  CHECK(back.shape_text() == dw.shape_text());
  CHECK(back.type == OperatorType::conv2d);
  // Groups that do not divide the channels, and a window wider than the padded input, are
  // refused at the operator's line.
  CHECK_THROWS_WITH(conv("C: 30, M: 32, H: 8, W: 8, R: 3, S: 3, groups: 4"),
                    Catch::Contains("c.yaml:5") && Catch::Contains("groups 4 must divide C 30"));
  CHECK_THROWS_WITH(conv("C: 3, M: 4, H: 2, W: 8, R: 5, S: 3"),
                    Catch::Contains("the window covers 5 rows, more than the 2 of the padded H"));
}
