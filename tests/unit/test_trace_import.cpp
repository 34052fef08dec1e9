// The shared step of every trace import (trace/TraceImport): kernels tied to the operator around
// their launch, operators converted from their names and shapes, kernel-name rules, what cannot
// be stored counted by reason, and one measurement per operator and the kernels one run of it
// launched (their durations summed: a split-K GEMM and its reduction are one operator's time).
// Every expectation is worked out by hand from the small trace written inline below.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "trace/KernelNameRules.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceKernelResolution.hpp"
#include "trace/TraceOperatorConversion.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::TempDir;

namespace {

TraceOperator op(std::string name, double start, double end, int64_t thread,
                 std::vector<std::vector<int64_t>> shapes = {},
                 std::vector<std::string> dtypes = {}) {
  TraceOperator o;
  o.name = std::move(name);
  o.start_ns = start;
  o.duration_ns = end - start;
  o.thread = thread;
  o.has_shapes = !shapes.empty();
  o.input_shapes = std::move(shapes);
  o.input_dtypes = std::move(dtypes);
  return o;
}

TraceKernel kernel(std::string name, double launch, int64_t thread, double duration_ns) {
  TraceKernel k;
  k.name = std::move(name);
  k.launch_ns = launch;
  k.launch_thread = thread;
  k.start_ns = launch + 1000;
  k.duration_ns = duration_ns;
  return k;
}

const std::string H = "c10::Half";

// Thread 1: a profiler step [0, 1000] holding aten::linear [10, 100] > aten::addmm [20, 80], an
// aten::copy_ [200, 300], a custom op my::fused [600, 700] and a comms range without shapes
// [800, 900]; thread 2: an aten::add [400, 500] of a row vector (a bias).
TraceEvents small_trace() {
  TraceEvents e;
  e.file = "inline";
  e.format = "test";
  e.operators = {
      op("ProfilerStep#1", 0, 1000, 1),
      op("aten::linear", 10, 100, 1, {{8, 16}, {32, 16}, {32}}, {H, H, H}),
      op("aten::addmm", 20, 80, 1, {{32}, {8, 16}, {16, 32}, {}, {}},
         {H, H, H, "Scalar", "Scalar"}),
      op("aten::copy_", 200, 300, 1, {{8, 16}, {8, 16}, {}}, {"float", H, "Scalar"}),
      op("aten::add", 400, 500, 2, {{8, 16}, {16}}, {H, H}),
      op("my::fused", 600, 700, 1, {{4, 8}, {8, 12}}, {H, H}),
      op("record_param_comms", 800, 900, 1),
  };
  e.kernels = {
      kernel("sm80_xmma_gemm_f16f16", 30, 1, 5000),               // k0: addmm
      kernel("sm80_xmma_gemm_f16f16", 50, 1, 7000),               // k1: the same run of addmm
      kernel("copy_kernel", 250, 1, 900),                         // k2: copy_, no model
      kernel("vectorized_elementwise_kernel<add>", 450, 2, 800),  // k3: add of a bias
      kernel("cutlass_80_tensorop_h16816gemm", 650, 1, 3000),     // k4: my::fused, by its name
      kernel("ncclKernel_AllReduce", 850, 1, 20000),              // k5: no shapes around it
      kernel("gemv2T_kernel", -1, -1, 400),                       // k6: no launch: name only
      kernel("mystery", -1, -1, 100),                             // k7: no launch, no rule
  };
  return e;
}

}  // namespace

TEST_CASE("each kernel is tied to the operator around its launch, or counted by why not",
          "[trace]") {
  TraceEvents e = small_trace();
  const ResolvedTrace r = resolve_trace(e, KernelNameRules::builtin());
  // parents from the spans: addmm in linear in the step; the add on thread 2 has none
  REQUIRE(e.operators[2].parent == std::optional<size_t>(1));
  CHECK(e.operators[1].parent == std::optional<size_t>(0));
  CHECK(!e.operators[4].parent);
  CHECK(e.kernels[0].op == std::optional<size_t>(2));
  CHECK(e.kernels[3].op == std::optional<size_t>(4));
  CHECK(e.kernels[5].op == std::optional<size_t>(6));

  // addmm(bias[32], x[8,16], w[16,32]): M 8, N 32, K 16; add(x[8,16], b[16]): a bias over C;
  // my::fused has no conversion by name, but a cutlass kernel says matmul: [4,8] x [8,12].
  REQUIRE(r.operators.size() == 3);
  CHECK(r.operators[0].name == "addmm_8x32x16_fp16");
  CHECK(r.operators[0].shape_text() == "M=8 N=32 K=16");
  CHECK(r.operators[1].name == "add_bias_8x16_fp16");
  CHECK(to_string(r.operators[1].type) == "bias");
  CHECK(r.operators[2].name == "fused_4x12x8_fp16");
  CHECK(r.operators[2].shape_text() == "M=4 N=12 K=8");
  // two kernels of one addmm are one run of it
  CHECK(r.operator_runs == std::vector<int64_t>{1, 1, 1});
  CHECK(r.kernel_operator == std::vector<int>{0, 0, -1, 1, 2, -1, -1, -1});

  CHECK(r.fate_counts.at(KernelFate::measured) == 4);
  CHECK(r.fate_counts.at(KernelFate::operator_unmodelled) == 1);
  CHECK(r.examples.at(KernelFate::operator_unmodelled) == std::vector<std::string>{"aten::copy_"});
  CHECK(r.fate_counts.at(KernelFate::lacks_shapes) == 1);
  CHECK(r.fate_counts.at(KernelFate::name_only) == 1);
  CHECK(r.name_only_classes.at("matmul") == 1);
  CHECK(r.fate_counts.at(KernelFate::unmatched) == 1);
  CHECK(r.examples.at(KernelFate::unmatched) == std::vector<std::string>{"mystery"});
  const std::vector<std::string> notes = resolution_notes(r);
  REQUIRE(notes.size() == 4);
  CHECK(notes[0].rfind("1 kernels lack shapes", 0) == 0);
  CHECK(notes[3] ==
        "1 kernels match no operator and no kernel-name rule, not stored; e.g. mystery");
}

TEST_CASE("framework operators become tilescope operators from their recorded shapes", "[trace]") {
  auto convert = [](std::string name, std::vector<std::vector<int64_t>> shapes,
                    std::vector<std::string> dtypes) {
    return tilescope_operator_of(
        op(std::move(name), 0, 1, 1, std::move(shapes), std::move(dtypes)));
  };
  // linear(x[4,128,768], W[3072,768]): tokens 4 x 128 = 512 rows, N 3072, K 768
  const auto linear = convert("aten::linear", {{4, 128, 768}, {3072, 768}, {3072}}, {H, H, H});
  REQUIRE(linear);
  CHECK(linear->shape_text() == "M=512 N=3072 K=768");
  // matmul of [4,12,128,64] x [4,12,64,128]: batch 48
  const auto scores = convert("aten::matmul", {{4, 12, 128, 64}, {4, 12, 64, 128}}, {H, H});
  REQUIRE(scores);
  CHECK(scores->shape_text() == "B=48 M=128 N=128 K=64");
  // softmax over the last dimension: 4 x 12 x 128 rows of 128; bf16 from c10::BFloat16
  const auto softmax =
      convert("aten::_softmax", {{4, 12, 128, 128}, {}, {}}, {"c10::BFloat16", "Scalar", "Scalar"});
  REQUIRE(softmax);
  CHECK(softmax->name == "softmax_6144x128_bf16");
  CHECK(softmax->shape_text() == "R=6144 C=128");
  // mul by a scalar is a scale step; dropout a multiply by its mask
  CHECK(to_string(convert("aten::mul", {{2, 3}, {}}, {"float", "Scalar"})->type) == "scale");
  CHECK(to_string(convert("aten::native_dropout", {{2, 3}, {}, {}}, {H, "", ""})->type) == "mul");
  // what cannot be read: inner dimensions that disagree, an unknown name, a double
  CHECK(!convert("aten::mm", {{8, 16}, {15, 4}}, {H, H}));
  CHECK(!convert("aten::index_select", {{8, 16}, {}, {4}}, {H, "", "long int"}));
  CHECK(!convert("aten::mm", {{8, 16}, {16, 4}}, {"double", "double"}));
}

TEST_CASE("kernel-name rules: a profile's file first, then the built-in ones", "[trace]") {
  const KernelNameRules builtin = KernelNameRules::builtin();
  CHECK(builtin.classify("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn") ==
        KernelClass::matmul);
  CHECK(builtin.classify("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>(Params)") ==
        KernelClass::matmul);
  CHECK(builtin.classify("void at::native::vectorized_elementwise_kernel<4, add>") ==
        KernelClass::elementwise);
  CHECK(builtin.classify("softmax_warp_forward<c10::Half>") == KernelClass::softmax);
  CHECK(builtin.classify("vectorized_layer_norm_kernel<c10::Half, float>") ==
        KernelClass::layernorm);
  CHECK(builtin.classify("reduce_kernel<512, 1>") == KernelClass::reduction);
  CHECK(!builtin.classify("ncclKernel_AllReduce_RING_LL_Sum_half"));

  KernelNameRules rules = KernelNameRules::parse(
      "version: 1\nkind: kernel_rules\nrules:\n"
      "  - {match: '^nvjet_', class: matmul}\n"
      "  - {match: 'gemm_epilogue_softmax', class: softmax}\n",
      "rules.yaml");
  rules.append(builtin);
  CHECK(rules.classify("nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_TNN") == KernelClass::matmul);
  // the file's rule wins over the built-in `gemm`
  CHECK(rules.classify("my_gemm_epilogue_softmax") == KernelClass::softmax);

  const InputError bad_class = input_error_of([] {
    KernelNameRules::parse("version: 1\nkind: kernel_rules\nrules:\n  - {match: x, class: conv}\n",
                           "rules.yaml");
  });
  CHECK(bad_class.where().line == 4);
  CHECK(bad_class.message().find("expected one of matmul") != std::string::npos);
  const InputError bad_regex = input_error_of([] {
    KernelNameRules::parse(
        "version: 1\nkind: kernel_rules\nrules:\n  - {match: '(', class: matmul}\n", "rules.yaml");
  });
  CHECK(bad_regex.where().line == 4);
}

TEST_CASE("a trace imports as one run of one measurement per operator run's kernels",
          "[trace][import]") {
  TempDir dir("trace-import");
  ImportRequest request;
  request.file = "inline-trace.json";
  request.db_path = dir / "results.sqlite";
  request.options["workload-out"] = dir / "step.yaml";
  const ImportResult result = import_trace(small_trace(), request);
  REQUIRE(result.runs.size() == 1);
  // addmm (one run of two gemm kernels), add (elementwise) and fused (cutlass)
  CHECK(result.runs[0].measurements == 3);
  CHECK(result.notes.size() == 4);

  ResultStore store(request.db_path, ResultStore::Mode::read_only);
  const std::vector<Measurement> stored = store.measurements(result.runs[0].id);
  REQUIRE(stored.size() == 3);
  const Measurement& addmm = stored[0];
  CHECK(addmm.op.name == "addmm_8x32x16_fp16");
  CHECK(addmm.op.suite == "inline-trace");
  CHECK(addmm.implementation == "sm80_xmma_gemm_f16f16 x2");
  CHECK(addmm.scope == TimingScope::device);
  // one run of addmm launched both kernels: its time is their sum, 5000 + 7000 ns
  CHECK(addmm.repetitions == 1);
  CHECK(addmm.min_ns == Approx(12000));
  CHECK(addmm.median_ns == Approx(12000));
  CHECK(addmm.spread == 0);

  // the workload: the three operators, each run once, loadable as written
  const Workload w = load_workload(dir / "step.yaml");
  REQUIRE(w.operators.size() == 3);
  CHECK(w.name == "inline-trace");
  CHECK(w.operators[0].name == "addmm_8x32x16_fp16");
  CHECK(w.operators[0].count == 1);
}

// cuBLAS runs a GEMM with a small M x N and a long K as split-K: a GEMM kernel writing partial
// sums and splitKreduce_kernel adding them. Three runs of one aten::mm, merged by the reader into
// one entry (occurrences 3, as KinetoTrace merges a training loop's repeats), each a GEMM of 20,
// 22, 24 us and a reduction of 4, 4, 5 us; and an aten::mm of other shapes run once, one kernel.
TEST_CASE("a split-K GEMM's kernels are summed per run and stored as one operator",
          "[trace][import]") {
  TraceEvents e;
  e.file = "splitk";
  e.format = "test";
  e.operators = {op("aten::mm", 0, 100, 1, {{64, 8192}, {8192, 64}}, {H, H}),
                 op("aten::mm", 200, 300, 1, {{512, 64}, {64, 512}}, {H, H})};
  e.operators[0].occurrences = 3;
  e.kernels = {
      kernel("sm80_xmma_gemm_f16f16_splitK", 10, 1, 20000),
      kernel("splitKreduce_kernel", 20, 1, 4000),
      kernel("sm80_xmma_gemm_f16f16_splitK", 30, 1, 22000),
      kernel("splitKreduce_kernel", 40, 1, 4000),
      kernel("sm80_xmma_gemm_f16f16_splitK", 50, 1, 24000),
      kernel("splitKreduce_kernel", 60, 1, 5000),
      kernel("ampere_h16816gemm_64x64", 250, 1, 9000),
  };
  for (size_t i = 0; i < 6; ++i) e.kernels[i].start_ns = 1e6 + 1e5 * static_cast<double>(i);

  TempDir dir("trace-splitk");
  ImportRequest request;
  request.file = "splitk.json";
  request.db_path = dir / "results.sqlite";
  const ImportResult result = import_trace(e, request);
  REQUIRE(result.runs.size() == 1);
  CHECK(result.runs[0].measurements == 2);
  ResultStore store(request.db_path, ResultStore::Mode::read_only);
  const std::vector<Measurement> stored = store.measurements(result.runs[0].id);
  REQUIRE(stored.size() == 2);
  const Measurement& splitk = stored[0];
  CHECK(splitk.op.name == "mm_64x64x8192_fp16");
  CHECK(splitk.implementation == "sm80_xmma_gemm_f16f16_splitK + splitKreduce_kernel");
  // runs of 24, 26 and 29 us: min 24, median 26, spread (29 - 24) / 26
  CHECK(splitk.repetitions == 3);
  CHECK(splitk.min_ns == Approx(24000));
  CHECK(splitk.median_ns == Approx(26000));
  CHECK(splitk.spread == Approx(5000.0 / 26000));
  CHECK(stored[1].op.name == "mm_512x512x64_fp16");
  CHECK(stored[1].implementation == "ampere_h16816gemm_64x64");
  CHECK(stored[1].median_ns == Approx(9000));

  // Runs that launched different kernels cannot be told apart: one run of the mean, named so.
  e.kernels.erase(e.kernels.begin() + 5);  // the third run's reduction is missing
  TempDir other("trace-splitk-uneven");
  request.db_path = other / "results.sqlite";
  const ImportResult uneven = import_trace(e, request);
  ResultStore uneven_store(request.db_path, ResultStore::Mode::read_only);
  const Measurement mean = uneven_store.measurements(uneven.runs[0].id)[0];
  CHECK(mean.implementation ==
        "sm80_xmma_gemm_f16f16_splitK + splitKreduce_kernel (mean of the runs)");
  CHECK(mean.median_ns == Approx((20000 + 4000 + 22000 + 4000 + 24000) / 3.0));
}

TEST_CASE("a cancelled trace import stores nothing and writes no workload", "[trace][import]") {
  TempDir dir("trace-cancel");
  ImportRequest request;
  request.file = "inline.json";
  request.db_path = dir / "results.sqlite";
  request.options["workload-out"] = dir / "step.yaml";
  CHECK_THROWS_AS(import_trace(small_trace(), request,
                               [](std::string_view stage, double) { return stage != "store"; }),
                  TraceImportCancelled);
  CHECK(dir.names().empty());
}
