// The LLM inference operators and the int4 type, worked by hand on a graph whose compute never
// bounds: DRAM <-> BUF at 64 B/cycle, BUF <-> PE at 1024 B/cycle, 1 GHz (a cycle is a
// nanosecond). One BUF tile holds each operator whole, so that its time is its loads, the PE's
// calls and its stores in turn, and the DRAM traffic is each tensor's bytes exactly once.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "LlmFixtures.hpp"
#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/LlmOperators.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/OperatorSpec.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

const ArchitectureGraph& graph() {
  static const ArchitectureGraph g = parse_architecture(test::llm_ops_graph(), "llm-ops.yaml");
  return g;
}

// The whole operator in one BUF tile; one PE call per stage, each over its whole space.
std::string whole_tile(const Operator& op) {
  std::string factors;
  for (const Dimension& d : op.dims)
    factors += (factors.empty() ? "" : ", ") + d.name + ": " + std::to_string(d.size);
  std::string ops;
  for (const Stage& s : op.stages)
    ops += "            - {op: PE, stage: " + s.name + ", factors: {" + factors + "}}\n";
  return "version: 1\nkind: mapping\nname: m\ntree:\n  tile: DRAM\n  children:\n    - tile: "
         "BUF\n      children:\n        - scope: sequential\n          children:\n" +
         ops;
}

struct Result {
  double cycles = 0, in_bytes = 0, out_bytes = 0;
  std::string bound_by;
};

Result run(const Operator& op) {
  const ArchitectureGraph& g = graph();
  const MappingProgram p = compile_mapping(parse_mapping(whole_tile(op), "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  const NodeId dram = *g.find_node("DRAM"), buf = *g.find_node("BUF");
  return {e.device_s * 1e9, e.edge_bytes[g.edge_between(dram, buf).index()],
          e.edge_bytes[g.edge_between(buf, dram).index()],
          make_prediction(p, analysis_result(p, e)).bound_by};
}

}  // namespace

TEST_CASE("int4 packs two elements a byte in tensors and footprints", "[workload][dtype][llm]") {
  CHECK(parse_data_type("int4") == DataType::int4);
  CHECK(bits_of(DataType::int4) == 4);
  CHECK(packed_bytes(DataType::int4, 7) == 4);  // ceil(7 / 2): the last byte half used
  CHECK(packed_bytes(DataType::fp16, 7) == 14);
  // An int4 GEMM of 3 x 5 x 7 (the widths odd): A 3 x 7 = 21 elements, ceil(21 / 2) = 11 B;
  // B 7 x 5 = 35, 18 B; C 3 x 5 = 15, 8 B.
  const Operator op = make_gemm("g", 3, 5, 7, DataType::int4);
  CHECK(op.tensor_bytes(0) == 11);
  CHECK(op.tensor_bytes(1) == 18);
  CHECK(op.tensor_bytes(2) == 8);
}

TEST_CASE("a GEMV with M = 1 is bound by its weight bytes over DRAM", "[analysis][llm]") {
  // A 1 x 256 (512 B), W 256 x 256 (131072 B), C 1 x 256 (512 B), fp16. Loads 131584 B at
  // 64 B/cycle: 2056 cycles. The call reads 131584 B at 1024 B/cycle (128.5) and writes 512 B
  // (0.5): 128.5. The store, 512 B at 64: 8. 2056 + 128.5 + 8 = 2192.5, of which the weights'
  // 131072 / 64 = 2048 cycles are 93 %.
  const Result r = run(make_gemm("gemv", 1, 256, 256));
  CHECK(r.in_bytes == Approx(131584.0));
  CHECK(r.out_bytes == Approx(512.0));
  CHECK(r.cycles == Approx(2192.5));
  CHECK(r.bound_by == "edge:DRAM->BUF");
}

TEST_CASE("int4 weights take a quarter of the fp16 bytes plus their scales", "[analysis][llm]") {
  // quant_gemm 1 x 256 x 256, group 128: W 256 x 256 int4 = 32768 B, a quarter of the fp16
  // GEMV's 131072; S (256 / 128) x 256 fp16 scales = 1024 B; A 512 B. Loads 34304 B at 64:
  // 536 cycles. The call reads 34304 at 1024 (33.5); the store, C 512 B at 64: 8.
  // 536 + 33.5 + 8 = 577.5.
  const Operator op = make_quant_gemm("w4a16", 1, 256, 256, 128, DataType::fp16);
  CHECK(op.tensor_bytes(op.find_tensor("W")) == 32768);
  CHECK(op.tensor_bytes(op.find_tensor("S")) == 1024);
  CHECK(op.total_flops() == Approx(2.0 * 256 * 256));
  const Result r = run(op);
  CHECK(r.in_bytes == Approx(34304.0));
  CHECK(r.out_bytes == Approx(512.0));
  CHECK(r.cycles == Approx(577.5));
  // Written back as the line that built it.
  CHECK(operator_spec(op) ==
        "{name: w4a16, type: quant_gemm, M: 1, N: 256, K: 256, group: 128, dtype: fp16}");
  CHECK(operator_spec(operator_from_spec(operator_spec(op), "spec")) == operator_spec(op));
}

TEST_CASE("a lookup-table GEMM reads its weights' bit planes and looks up tables it builds",
          "[analysis][llm]") {
  // lut_gemm 1 x 256 x 256, 2 weight bits, scale groups of 64, keys of 8 activations: K = KS 4
  // x KB 8 x KI 8, E = 256 entries. Tensors: A 256 fp16 = 512 B; the tables T, 32 keys x 256
  // entries fp16 = 16384 B (built, kept in BUF); W, 2 planes x 32 keys x 256 columns int8 =
  // 16384 B, an eighth of the fp16 weights' 131072 (2 bits a weight); S, 2 planes x 4 groups x
  // 256 columns fp16 = 4096 B; C 512 B.
  const Operator op = make_lut_gemm("lut", 1, 256, 256, 2, 64, 8, DataType::fp16);
  CHECK(op.primary_class() == OpClass::lookup);
  CHECK(op.tensor_bytes(op.find_tensor("T")) == 16384);
  CHECK(op.tensor_bytes(op.find_tensor("W")) == 16384);
  CHECK(op.tensor_bytes(op.find_tensor("S")) == 4096);
  CHECK(op.is_intermediate(op.find_tensor("T")));
  // Operations: the tables, one an entry, 32 x 256 = 8192; the lookups, one a key of each plane
  // and column, 2 x 32 x 256 = 16384, and one scaling a plane, group and column, 2 x 4 x 256 =
  // 2048. 26624 in all.
  CHECK(op.total_flops() == Approx(8192.0 + 16384.0 + 2048.0));
  // The table is gathered by key: the lookup's only gathered dimension is E; the tables' builder
  // sums the key's 8 activations (KI).
  REQUIRE(gathered_dims(op, op.stages[1]) == std::vector<int>{op.find_dim("E")});
  REQUIRE(gathered_dims(op, op.stages[0]) == std::vector<int>{op.find_dim("KI")});

  // From DRAM: A + W + S = 20992 B at 64 B/cycle, 328 cycles. The calls (1024 B/cycle, reads and
  // writes in parallel, the larger counts): table reads A 512 B, writes T 16384 B: 16; lookup
  // reads T + W + S = 36864 B: 36, writes C 512 B. The store, C at 64: 8. 328 + 16 + 36 + 8 =
  // 388. The PE declares no lookup rate: lookups run at its elementwise one (10^9 a cycle).
  const Result r = run(op);
  CHECK(r.in_bytes == Approx(20992.0));
  CHECK(r.out_bytes == Approx(512.0));
  CHECK(r.cycles == Approx(388.0));

  // A unit that declares a lookup rate runs lookups at it: 16 a cycle (shared memory's banks),
  // 18432 lookups and scalings take 1152 cycles, above the call's 36 of transfer:
  // 328 + 16 + 1152 + 8 = 1504.
  std::string text = test::llm_ops_graph();
  const std::string reduction =
      "      - {class: reduction, dtype: fp16, ops_per_cycle: 1000000000, granule: [1]}\n";
  REQUIRE(text.find(reduction) != std::string::npos);
  text.replace(
      text.find(reduction), reduction.size(),
      reduction + "      - {class: lookup, dtype: fp16, ops_per_cycle: 16, granule: [1]}\n");
  const ArchitectureGraph banked = parse_architecture(text, "banked.yaml");
  const NodeId pe = *banked.find_node("PE");
  CHECK(banked.node(pe).capability(OpClass::lookup, DataType::fp16)->ops_per_cycle == 16);
  CHECK(graph()
            .node(*graph().find_node("PE"))
            .capability(OpClass::lookup, DataType::fp16)
            ->op_class == OpClass::elementwise);
  const MappingProgram p = compile_mapping(parse_mapping(whole_tile(op), "m.yaml"), op, banked);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  CHECK(e.device_s * 1e9 == Approx(1504.0));

  CHECK(operator_spec(op) ==
        "{name: lut, type: lut_gemm, M: 1, N: 256, K: 256, bits: 2, group: 64, key_bits: 8, "
        "dtype: fp16}");
  CHECK(operator_spec(operator_from_spec(operator_spec(op), "spec")) == operator_spec(op));
}

TEST_CASE("split-KV decode attention reads the KV cache once and reduces its splits",
          "[analysis][llm]") {
  // One sequence, one KV head, one query head (B = H = 1), context 256 in S = 4 splits of
  // L = 64, head_dim 64, fp16. From DRAM: Q 64 x 2 = 128 B, K and V 256 x 64 x 2 = 32768 B
  // each: 65664 B at 64 B/cycle, 1026 cycles. To DRAM: O, 128 B, 2 cycles.
  // The calls (1024 B/cycle, reads and writes in parallel, the larger counts):
  //   score:   reads Q + K = 32896 B, 32.125; writes Sc, 256 fp32 = 1024 B, 1
  //   softmax: reads Sc 1024 B (1), writes P, 256 fp16 = 512 B: 1
  //   context: reads P + V = 33280 B, 32.5; writes the partials Op, 4 x 64 fp32 = 1024 B
  //   combine: reads Op 1024 B (1), writes O 128 B: 1
  // 1026 + 32.125 + 1 + 32.5 + 1 + 2 = 1094.625.
  const Operator op = make_decode_attention("decode", 1, 1, 256, 4, 64, DataType::fp16);
  // FLOPs: score and context 2 x 256 x 64 = 32768 each; softmax 5 a score (4 basic, 1 exp),
  // 1280; the reduction 2 per partial element, 2 x 4 x 64 = 512. 67328 in all.
  CHECK(op.total_flops() == Approx(67328.0));
  CHECK(op.stages.back().name == "combine");
  const Result r = run(op);
  CHECK(r.in_bytes == Approx(65664.0));
  CHECK(r.out_bytes == Approx(128.0));
  CHECK(r.cycles == Approx(1094.625));
  CHECK(operator_spec(operator_from_spec(operator_spec(op), "spec")) == operator_spec(op));
}

TEST_CASE("a grouped GEMM whose experts receive unequal token counts", "[analysis][llm]") {
  // Four experts receive 3, 0, 1 and 12 tokens; N = K = 64, fp16. The expert without tokens is
  // skipped: B = 3 experts, each grid covering the largest group, M = 12. From DRAM: A
  // 3 x 12 x 64 x 2 = 4608 B, W 3 x 64 x 64 x 2 = 24576 B (not the 32768 of all four); 29184 B
  // at 64: 456 cycles. The call reads 29184 at 1024 (28.5), writes C 3 x 12 x 64 x 2 = 4608 B
  // (4.5): 28.5. C to DRAM: 4608 / 64 = 72. 456 + 28.5 + 72 = 556.5.
  const Operator op = make_grouped_gemm("experts", {3, 0, 1, 12}, 64, 64, DataType::fp16);
  CHECK(op.dims[0].size == 3);
  CHECK(op.dims[1].size == 12);
  const Result r = run(op);
  CHECK(r.in_bytes == Approx(29184.0));
  CHECK(r.out_bytes == Approx(4608.0));
  CHECK(r.cycles == Approx(556.5));
  // Balanced, the same 16 tokens over the three experts (6, 5, 5) would cover M = 6 only.
  CHECK(make_grouped_gemm("even", {6, 0, 5, 5}, 64, 64, DataType::fp16).dims[1].size == 6);
  CHECK(operator_spec(op) ==
        "{name: experts, type: grouped_gemm, tokens: [3, 0, 1, 12], N: 64, K: 64, dtype: fp16}");
  CHECK(operator_spec(operator_from_spec(operator_spec(op), "spec")) == operator_spec(op));
}

TEST_CASE("an int8 x int8 -> int32 GEMM keeps C at int32", "[workload][llm]") {
  const Workload w = parse_workload(R"(version: 1
kind: workload
name: w
operators:
  - {name: i8, type: gemm, M: 4, N: 8, K: 16, dtype: int8, out_dtype: int32}
)",
                                    "w.yaml");
  const Operator& op = w.operators.front();
  CHECK(op.tensor_bytes(0) == 4 * 16);     // A int8
  CHECK(op.tensor_bytes(2) == 4 * 8 * 4);  // C int32
  CHECK(operator_spec(op) ==
        "{name: i8, type: gemm, M: 4, N: 8, K: 16, out_dtype: int32, dtype: int8}");
}

TEST_CASE("the LLM vector operators count their operations", "[workload][llm]") {
  // rmsnorm 4 basic an element; silu_mul 2 basic, 1 exp, 1 div; rope 3 basic.
  CHECK(make_rmsnorm("n", 2, 8, DataType::fp16).total_flops() == 2 * 8 * 4);
  CHECK(make_silu_mul("a", 2, 8, DataType::fp16).total_flops() == 2 * 8 * 4);
  CHECK(make_rope("r", 2, 4, 8, DataType::fp16).total_flops() == 2 * 4 * 8 * 3);
  // Each is stored and planned by its one-line spec, and rebuilt from it (rmsnorm, two stages
  // since the sum of squares became one of its own, lost its spec: stored empty, planned as
  // `spec=`, which the runner refuses).
  for (const Operator& op :
       {make_rmsnorm("n", 2, 8, DataType::fp16), make_silu_mul("a", 2, 8, DataType::fp16),
        make_rope("r", 2, 4, 8, DataType::fp16)}) {
    INFO(op.name);
    REQUIRE_FALSE(operator_spec(op).empty());
    CHECK(operator_spec(operator_from_spec(operator_spec(op), "spec")) == operator_spec(op));
  }
  // rope reads X (2 x 4 x 8 x 2 B = 128) and its tables (2 x 8 x 2 B = 32 each).
  const Operator rope = make_rope("r", 2, 4, 8, DataType::fp16);
  CHECK(rope.tensor_bytes(rope.find_tensor("Cos")) == 32);
  const Result r = run(rope);
  CHECK(r.in_bytes == Approx(128.0 + 64.0));
}

TEST_CASE("rope's rows of every kind are spread over the vector cores", "[mapper][llm]") {
  // The Ascend 910B3's vector template names rows R and columns C; rope has T, H and D. rope
  // T=4 H=64 D=128 is 32768 elements x 3 operations = 98304 fp16 operations. One vector core
  // runs 128 a cycle: 768 cycles if the rows stayed on one core (the template read as written
  // left T and H as loops at its root: the mapper then predicted 98304 cycles). With D as the
  // columns and T and H as rows spread over the 40 cores, the floor is 98304 / (40 x 128) =
  // 19.2 cycles, and the prediction must fall below the one-core 768.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  const Operator op = make_rope("rope", 4, 64, 128, DataType::fp16);
  OperatorPredictionOptions options;
  options.mapper.budget = 2000;
  const Prediction p = predict_operator(op, g, options);
  CHECK(p.cycles >= 19.2);
  CHECK(p.cycles < 768);
}

TEST_CASE("on the A100 a row kernel of one token waits on memory once per stride of its block",
          "[mapper][llm]") {
  // The A100 graph maps rmsnorm, silu_mul and rope with vLLM's kernels' templates: one block per
  // token, a loop over strides of 1024 elements whose loads are waited for, 1160.44 cycles at
  // 1.41 GHz = 823.0 ns each on HBM->L2. One token of RMSNorm over 8192 is 8 strides, of
  // SiLU-and-multiply over 11008 is 11 (the last of 768), of rotary embedding over 64 heads of
  // 128 is 8 (8 heads a stride): at least 6.584, 9.053 and 6.584 us, and the few bytes of each
  // stride (6 KiB) and its 1024 elements of work add under 0.1 us a stride.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100-fitted.yaml");
  REQUIRE(g.operator_templates.count("rmsnorm") == 1);
  OperatorPredictionOptions options;
  options.mapper.budget = 500;
  const double stride_us = 1160.44 / 1.41e9 * 1e6;
  struct Expected {
    Operator op;
    double strides;
  };
  const Expected cases[] = {
      {make_rmsnorm("norm", 1, 8192, DataType::fp16), 8},
      {make_silu_mul("act", 1, 11008, DataType::fp16), 11},
      {make_rope("rope", 1, 64, 128, DataType::fp16), 8},
  };
  for (const Expected& c : cases) {
    INFO(c.op.name);
    const Prediction p = predict_operator(c.op, g, options);
    CHECK(p.device_us >= c.strides * stride_us);
    CHECK(p.device_us < c.strides * (stride_us + 0.1));
    CHECK(p.bound_by == "edge:HBM->L2");
  }
  // Two blocks of 1024 threads fit on an SM: 216 tokens take one wave of strides, 217 two.
  const Prediction one_wave =
      predict_operator(make_silu_mul("a", 216, 4096, DataType::fp16), g, options);
  const Prediction two_waves =
      predict_operator(make_silu_mul("b", 217, 4096, DataType::fp16), g, options);
  CHECK(one_wave.device_us >= 4 * stride_us);
  CHECK(two_waves.device_us >= 8 * stride_us);
}

TEST_CASE("identical tiles of a scope take the factors the mapper chose for the first, tails too",
          "[mapper][llm]") {
  // Two passes of an RMSNorm as two register tiles under one scope, each fixed at 2 rows (two
  // resident blocks). The mapper's chains follow the first; with one row the chain makes the
  // first tile's 2 a tail of 1, and the second must run the same tile, or it covers 2 rows of a
  // 1-row problem and nothing maps.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100-fitted.yaml");
  const Mapping tmpl = parse_mapping(R"(version: 1
kind: mapping
name: two-passes
tree:
  tile: HBM
  temporal: {R: "?"}
  spatial: {R: "?"}
  children:
    - tile: SMEM
      buffers: {X: bypass, S: bypass, gamma: bypass, Y: bypass}
      temporal: {C: "?"}
      children:
        - scope: sequential
          children:
            - tile: RF
              temporal: {R: 2, C: 32}
              children:
                - op: CUDACores
                  stage: sum_squares
                  factors: {C: 32}
            - tile: RF
              temporal: {R: 2, C: 32}
              children:
                - op: CUDACores
                  stage: normalize
                  factors: {C: 32}
)",
                                     "two-passes.yaml");
  OperatorPredictionOptions options;
  options.mapping = &tmpl;
  options.mapper.budget = 200;
  for (int64_t rows : {1, 3, 216}) {
    INFO(rows << " rows");
    const Operator op = make_rmsnorm("norm", rows, 4096, DataType::fp16);
    MappingProgram program;
    const Prediction p = predict_operator(op, g, options, &program);
    CHECK(p.device_us > 0);
    std::vector<const ProgramNode*> rf;
    for (const ProgramNode& n : program.nodes)
      if (n.kind == MappingNodeKind::tile && g.node(n.memory).name == "RF") rf.push_back(&n);
    REQUIRE(rf.size() == 2);
    const int r = op.find_dim("R");
    CHECK(rf[0]->temporal[static_cast<size_t>(r)].full ==
          rf[1]->temporal[static_cast<size_t>(r)].full);
    CHECK(rf[0]->temporal[static_cast<size_t>(r)].tail ==
          rf[1]->temporal[static_cast<size_t>(r)].tail);
  }
}

TEST_CASE("a fused attention mapped stages apart is written with its bypasses and reloads the same",
          "[mapper][llm]") {
  // Each pass of the stages-apart mapping keeps its stage's own mapping, whose output (an
  // intermediate of the fused operator) bypasses the tiles under the root: a saved mapping must
  // say so, or the reloaded one buffers the scores in L1 and predicts another time.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  const Operator op = make_decode_attention("attention", 32, 1, 4096, 4, 128, DataType::fp16);
  OperatorPredictionOptions options;
  options.mapper.budget = 500;
  std::string origin;
  const MappingProgram program = resolve_mapping(op, g, options, &origin);
  REQUIRE(origin == "mapper (stages apart)");
  AnalysisScratch first;
  const double before = evaluate(program, first);
  REQUIRE(first.valid());
  const std::string written = mapping_yaml(program, "apart", "");
  CHECK_THAT(written, Catch::Contains("bypass"));
  const MappingProgram again = compile_mapping(parse_mapping(written, "apart.yaml"), op, g);
  AnalysisScratch second;
  CHECK(evaluate(again, second) == Approx(before).epsilon(1e-12));
  CHECK(mapping_yaml(again, "apart", "") == written);
}

TEST_CASE("on a split chip a fused attention runs its stages apart, through the outer memory",
          "[mapper][llm]") {
  // The Ascend 910B3's cube and vector cores meet only in L2/HBM, so decode attention's scores
  // cannot stay beside the cube for the softmax: each stage is mapped alone and the
  // intermediates are written out and read back. 32 sequences x KV heads, context 4096 in 4
  // splits, head_dim 128, fp16. Written to HBM: the scores Sc 32 x 4 x 1024 fp32 = 524288 B, the
  // probabilities P (fp16) 262144 B, the partials Op 32 x 4 x 128 fp32 = 65536 B and the output
  // O 32 x 128 fp16 = 8192 B: 860160 B. Read from HBM at least the KV cache, 2 x 32 x 4096 x
  // 128 x 2 B = 67108864 B: at 1.6 TB/s 41.94 us, a floor for the device time.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/ascend910b3.yaml");
  const Operator op = make_decode_attention("attention", 32, 1, 4096, 4, 128, DataType::fp16);
  OperatorPredictionOptions options;
  options.mapper.budget = 2000;
  const Prediction p = predict_operator(op, g, options);
  CHECK(p.mapping_origin == "mapper (stages apart)");
  double written = 0, read = 0;
  for (const auto& t : p.traffic) {
    if (t.edge == "L2->HBM") written += t.bytes;
    if (t.edge == "HBM->L2") read += t.bytes;
  }
  CHECK(written == Approx(860160.0));
  CHECK(read >= 67108864.0);
  CHECK(p.device_us >= 67108864.0 / 1.6e12 * 1e6);
}

TEST_CASE("a lookup-table GEMV on the A100 is bound by its lookups and its weight bytes",
          "[mapper][llm]") {
  // lut_gemm 1 x 4096 x 4096, 4 bit planes, scale groups of 128, 8-bit keys, on the A100 graph
  // (the base one: no HBM latency). Its lookups: 4 planes x 512 keys x 4096 columns = 8388608,
  // and a scaling per plane, group and column, 4 x 32 x 4096 = 524288: 8912896 at 11.5 a cycle
  // on each of 108 SMs at 1.41 GHz, 5.089 us. Its weights, 4 x 4096 x 4096 / 8 = 8 MiB, and
  // scales, 4 x 32 x 4096 x 2 B = 1 MiB, at 2.0 TB/s: 4.719 us. The tables are built apart and
  // read back; the prediction is above both bounds and, at this budget, under twice the larger.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100.yaml");
  const Operator op = make_lut_gemm("lut", 1, 4096, 4096, 4, 128, 8, DataType::fp16);
  OperatorPredictionOptions options;
  options.mapper.budget = 2000;
  const Prediction p = predict_operator(op, g, options);
  const double lookups_us = 8912896.0 / (11.5 * 108 * 1.41e9) * 1e6;
  const double bytes_us = (8388608.0 + 1048576.0) / 2.0e12 * 1e6;
  CHECK(p.device_us >= lookups_us);
  CHECK(p.device_us >= bytes_us);
  CHECK(p.device_us < 2 * std::max(lookups_us, bytes_us));
  CHECK(p.mapping_origin == "mapper (stages apart)");
}

TEST_CASE("a W4A16 GEMV on the A100 reads its int4 weights once and beats the fp16 one",
          "[mapper][llm]") {
  // quant_gemm 1 x 4096 x 4096, groups of 128: W 4096 x 4096 int4 = 8 MiB, S 32 x 4096 fp16 =
  // 256 KiB, A and C 8 KiB each: 8.41 MB, 4.206 us at 2.0 TB/s. The GEMM template names K; the
  // operator splits it into groups KG of KI: both must loop on chip, or each group's partial
  // sums go out to HBM and back (the prediction was 37.9 us, 75.8 MB through HBM, above the
  // fp16 GEMV's 16.8 us).
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100.yaml");
  OperatorPredictionOptions options;
  options.mapper.budget = 2000;
  const Prediction w4 =
      predict_operator(make_quant_gemm("w4a16", 1, 4096, 4096, 128, DataType::fp16), g, options);
  const Prediction fp16 = predict_operator(make_gemm("fp16", 1, 4096, 4096), g, options);
  const double bytes = 8388608.0 + 262144.0 + 2 * 8192.0;
  CHECK(w4.device_us >= bytes / 2.0e12 * 1e6);
  CHECK(w4.device_us <= 1.25 * bytes / 2.0e12 * 1e6);
  CHECK(w4.device_us < fp16.device_us / 3);
}
