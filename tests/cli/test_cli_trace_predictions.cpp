// A trace's predictions, honestly: a Kineto trace the test writes (three steps, each an aten::mm
// that cuBLAS ran as split-K, a GEMM kernel and its splitKreduce_kernel; a 1-D and a 2-D float add
// of the same 15.8 M elements; an NCCL all-reduce no operator models) imported with --arch, then
// `correlate --db` with no graph given predicts on the recorded one, states the share of the
// trace's kernel time it compares, and reuses its stored predictions the second time; `db export`
// and `correlate --format csv|json` give every operator's measured and predicted time.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "KinetoTraceWriter.hpp"
#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

constexpr const char* kGemm = "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize64x64x64_splitK";
constexpr const char* kReduce =
    "void cublasLt::splitKreduce_kernel<32, 16, int, __half, __half, float, __half, true, false, "
    "false>(cublasLt::cublasSplitKParams<float>, __half const*, __half const*, __half*)";

// Each step s (0, 1, 2) at 1000 s us: mm [64, 8192] x [8192, 64] with a GEMM of 20 + s us and a
// reduction of 4 us; add of two [15800000] floats (1-D) and of two [15430, 1024] floats (2-D,
// 15,800,320 elements), 100 us each; an all-reduce of 50 us on stream 13.
std::string step_trace() {
  ts::test::KinetoTraceWriter w;
  const char* add =
      "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>";
  for (int s = 0; s < 3; ++s) {
    const double t = 1000.0 * s;
    w.cpu("ProfilerStep#" + std::to_string(s + 1), t, 900, json::object(), "user_annotation");
    w.cpu("aten::mm", t + 1, 10,
          {{"Input Dims", {{64, 8192}, {8192, 64}}}, {"Input type", {"c10::Half", "c10::Half"}}});
    w.gpu("kernel", kGemm, t + 2, t + 20, 20 + s, 7);
    w.gpu("kernel", kReduce, t + 5, t + 50, 4, 7);
    w.cpu("aten::add", t + 20, 5,
          {{"Input Dims", {{15800000}, {15800000}, json::array()}},
           {"Input type", {"float", "float", "Scalar"}}});
    w.gpu("kernel", add, t + 21, t + 100, 100, 7);
    w.cpu("aten::add", t + 30, 5,
          {{"Input Dims", {{15430, 1024}, {15430, 1024}, json::array()}},
           {"Input type", {"float", "float", "Scalar"}}});
    w.gpu("kernel", add, t + 31, t + 300, 100, 7);
    w.cpu("nccl:all_reduce", t + 40, 5);
    w.gpu("kernel",
          "ncclDevKernel_AllReduce_Sum_f16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", t + 41,
          t + 500, 50, 13);
  }
  return w.trace({{"deviceProperties", {{{"id", 0}, {"name", "NVIDIA A100-SXM4-80GB"}}}}}).dump();
}

const json* measurement_named(const json& rows, const std::string& prefix) {
  for (const json& m : rows)
    if (m.value("name", "").rfind(prefix, 0) == 0) return &m;
  return nullptr;
}

}  // namespace

TEST_CASE(
    "an imported trace round-trips: split-K summed, 1-D kept, coverage by time, stored "
    "predictions reused",
    "[cli][trace][correlate][kineto]") {
  ts::test::TempDir dir("trace-predictions");
  const std::string trace = dir / "step.json";
  std::ofstream(trace) << step_trace();
  const std::string db = dir / "results.sqlite";

  const RunResult imported = run_tilescope(
      {"import", "kineto", trace, "--db", db, "--arch", "samples/arch/nvidia-a100.yaml"});
  INFO(imported.err);
  REQUIRE(imported.status == 0);
  CHECK(imported.out == "run 1 kineto kernels device: 3 measurements\n");
  // (24 + 25 + 26) + 3 x 200 = 675 us stored of 825 us: the all-reduces (150 us) are left out.
  CHECK(imported.err.find("coverage by time: 675 us of 825 us of kernel time stored (81.8 %)") !=
        std::string::npos);
  CHECK(imported.err.find("communication 0 s of 150 us") != std::string::npos);

  // db export before any prediction: the split-K GEMM is one measurement of the operator, each
  // run the sum of its two kernels (24, 25, 26 us), and nothing is predicted yet.
  const RunResult before = run_tilescope({"db", "export", "--db", db, "--format", "json"});
  REQUIRE(before.status == 0);
  const json rows = json::parse(before.out)["measurements"];
  REQUIRE(rows.size() == 3);
  const json* mm = measurement_named(rows, "mm_64x64x8192_fp16");
  REQUIRE(mm);
  CHECK((*mm)["implementation"].get<std::string>() == std::string(kGemm) + " + " + kReduce);
  CHECK((*mm)["repetitions"] == 3);
  CHECK((*mm)["median_us"].get<double>() == Approx(25.0));
  CHECK((*mm)["min_us"].get<double>() == Approx(24.0));
  // The 1-D add stays 1-D: one row of 15.8 M columns.
  const json* flat = measurement_named(rows, "add_1x15800000_fp32");
  REQUIRE(flat);
  CHECK((*flat)["predicted_us"].is_null());

  // No --arch: the graph the import recorded. Every operator's measured and predicted.
  const RunResult csv = run_tilescope({"correlate", "--db", db, "--format", "csv"}, 300);
  INFO(csv.err);
  REQUIRE(csv.status == 0);
  CHECK(csv.err.find("samples/arch/nvidia-a100.yaml, the one the run recorded") !=
        std::string::npos);
  CHECK(csv.out.rfind("operator,suite,class,shape,dtypes,implementation,measured_us,"
                      "predicted_us,error,bound_by\n",
                      0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 4);
  CHECK(csv.out.find("mm_64x64x8192_fp16,step,matmul,M=64 N=64 K=8192") != std::string::npos);

  // The second time the stored predictions serve: no mapper run.
  const RunResult again = run_tilescope({"correlate", "--db", db, "--format", "json"}, 300);
  INFO(again.err);
  REQUIRE(again.status == 0);
  const json doc = json::parse(again.out);
  bool reused = false;
  for (const json& n : doc["notes"])
    reused = reused || n.get<std::string>().find("3 predictions reused") != std::string::npos;
  CHECK(reused);
  REQUIRE(doc["operators"].size() == 3);
  const json& share = doc["coverage_by_time"];
  CHECK(share["trace_kernel_us"].get<double>() == Approx(825.0));
  CHECK(share["compared_us"].get<double>() == Approx(675.0));  // medians x runs: 25 x 3 + 600
  CHECK(share["classes"]["communication"]["compared_us"].get<double>() == 0.0);
  CHECK(share["classes"]["communication"]["trace_us"].get<double>() == Approx(150.0));
  // A 1-D tensor is priced as the same elements in 2-D: an element-wise kernel runs over the
  // flattened index either way (within 1 %: the 2-D one has 320 more elements).
  double one_d = 0, two_d = 0;
  for (const json& op : doc["operators"]) {
    if (op["operator"] == "add_1x15800000_fp32") one_d = op["predicted_us"].get<double>();
    if (op["operator"] == "add_15430x1024_fp32") two_d = op["predicted_us"].get<double>();
  }
  REQUIRE(two_d > 0);
  CHECK(one_d == Approx(two_d).epsilon(0.01));

  // db export now has the predictions correlate stored under the recorded graph.
  const RunResult after = run_tilescope({"db", "export", "--db", db, "--format", "json"});
  REQUIRE(after.status == 0);
  const json exported = json::parse(after.out);  // kept: a range over a temporary's member dangles
  REQUIRE(exported["measurements"].size() == 3);
  for (const json& m : exported["measurements"]) {
    INFO(m.dump());
    CHECK(m["predicted_us"].is_number());
  }
}

// The same three steps on another chip: `trace predict` gives the measured step, the step
// predicted on the graph of the chip it ran on and on another's, each operator's runs summed.
TEST_CASE("trace predict: a traced step measured, predicted here and predicted there",
          "[cli][trace]") {
  ts::test::TempDir dir("trace-step-predict");
  const std::string trace = dir / "step.json";
  std::ofstream(trace) << step_trace();

  const RunResult r =
      run_tilescope({"trace", "predict", trace, "--arch", "samples/arch/nvidia-a100.yaml", "--on",
                     "samples/arch/nvidia-h200.yaml", "--step", "2", "--format", "json"},
                    300);
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json p = json::parse(r.out);
  CHECK(p["here"] == "nvidia-a100");
  CHECK(p["there"] == "nvidia-h200");
  // Step 2's work: launched in [1000, 1900], first kernel at 1020, the all-reduce ends at 1550.
  CHECK(p["measured_us"].get<double>() == Approx(530.0));
  // Its operators, one run each: the mm (21 + 4 us, split-K summed) and the two adds.
  REQUIRE(p["operators"].size() == 3);
  double measured = 0, here = 0, there = 0, ratio = 0;
  for (const json& o : p["operators"]) {
    CHECK(o["runs"] == 1);
    REQUIRE(o["here_us"].is_number());
    REQUIRE(o["there_us"].is_number());
    measured += o["measured_us"].get<double>();
    here += o["here_us"].get<double>();
    there += o["there_us"].get<double>();
    ratio +=
        o["measured_us"].get<double>() * o["there_us"].get<double>() / o["here_us"].get<double>();
    if (o["operator"] == "mm_64x64x8192_fp16") {
      CHECK(o["measured_us"].get<double>() == Approx(25.0));
      CHECK(o["kernels"].get<std::string>().find(" + ") != std::string::npos);
    }
    // The adds move 190 MB: HBM-bound, faster on the H200's 4.8 TB/s than the A100's 2.0.
    if (o["class"] == "elementwise")
      CHECK(o["there_us"].get<double>() < o["here_us"].get<double>());
  }
  CHECK(measured == Approx(225.0));
  CHECK(p["modelled"]["measured_us"].get<double>() == Approx(225.0));
  // Whatever no modelled operator ran (the all-reduce, the gaps) is carried over as measured.
  CHECK(p["carried_over_us"].get<double>() == Approx(530.0 - 225.0));
  CHECK(p["predicted_here_us"].get<double>() == Approx(530.0 - 225.0 + here));
  CHECK(p["predicted_there_us"].get<double>() == Approx(530.0 - 225.0 + there));
  CHECK(p["there_by_ratio_us"].get<double>() == Approx(530.0 - 225.0 + ratio));
  CHECK(p["predicted_there_us"].get<double>() < p["predicted_here_us"].get<double>());

  // Text names all three; a graph that does not load is exit 2.
  const RunResult text =
      run_tilescope({"trace", "predict", trace, "--arch", "samples/arch/nvidia-a100.yaml", "--on",
                     "samples/arch/nvidia-h200.yaml"},
                    300);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("step time") != std::string::npos);
  CHECK(text.out.find("nvidia-h200") != std::string::npos);
  const RunResult bad = run_tilescope(
      {"trace", "predict", trace, "--arch", "samples/arch/nvidia-a100.yaml", "--on", "nope.yaml"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("nope.yaml") != std::string::npos);
}
