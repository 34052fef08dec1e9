// The Kineto reader (trace/KinetoTrace) on the fixtures of tests/fixtures/trace/kineto (README
// there): a BERT layer's training step as PyTorch 1.8 to 2.4 lay it out. The expectations come
// from how make_fixtures.py lays the step out (its STEP table), worked by hand: the forward's
// first operator aten::linear [100, 110] us holds aten::addmm [102, 108], which launches at 102.5
// the GEMM that runs at 130 us for 41 us, and the trace's first event is ProfilerStep#2 at 95 us.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <string>

#include "InputErrorCapture.hpp"
#include "trace/KinetoTrace.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

std::string kineto(const std::string& name) { return fixture("trace/kineto/" + name); }

const TraceOperator& op_of(const TraceEvents& e, const TraceKernel& k) {
  REQUIRE(k.op);
  return e.operators.at(*k.op);
}

// The operator names from a kernel's operator out to the outermost, joined by " < ".
std::string chain(const TraceEvents& e, const TraceKernel& k) {
  std::string out;
  for (std::optional<size_t> at = k.op; at; at = e.operators.at(*at).parent)
    out += (out.empty() ? "" : " < ") + e.operators.at(*at).name;
  return out;
}

}  // namespace

TEST_CASE("a Kineto trace's kernels find the CPU operator that launched them", "[trace][kineto]") {
  const TraceEvents e = read_kineto_trace(kineto("bert_step.json"));
  CHECK(e.format == "kineto");
  CHECK(e.device_name == "NVIDIA A100-SXM4-80GB");
  CHECK(e.tool_version == "Kineto schema 1");
  // 13 forward kernels and 5 backward ones; the memcpy is counted, not a kernel
  REQUIRE(e.kernels.size() == 18);
  for (const TraceKernel& k : e.kernels) {
    INFO(kernel_name(e, k));
    CHECK(k.op);
    CHECK(op_of(e, k).has_shapes);
  }
  const TraceKernel& qkv = e.kernels[0];
  CHECK(kernel_name(e, qkv) == "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn");
  CHECK(qkv.start_ns == Approx(35000));  // 130 - 95 us
  CHECK(qkv.duration_ns == Approx(41000));
  CHECK(qkv.launch_ns == Approx(7500));  // 102.5 - 95 us
  CHECK(qkv.correlation_id == 1000);
  CHECK(qkv.grid == std::array<int64_t, 3>{24, 4, 1});
  CHECK(qkv.block == std::array<int64_t, 3>{128, 1, 1});
  CHECK(qkv.shared_memory_bytes == 49152);
  CHECK(qkv.registers_per_thread == 128);
  CHECK(qkv.stream == 7);
  CHECK(chain(e, qkv) == "aten::addmm < aten::linear < ProfilerStep#2");
  CHECK(op_of(e, qkv).input_shapes ==
        std::vector<std::vector<int64_t>>{{2304}, {512, 768}, {768, 2304}, {}, {}});
  CHECK(op_of(e, qkv).input_dtypes[0] == "c10::Half");
  // backward, on the autograd thread
  CHECK(chain(e, e.kernels[14]) ==
        "aten::mm < AddmmBackward0 < autograd::engine::evaluate_function: AddmmBackward0");

  // The two residual adds (same shapes, same parent) are one operator run twice; the two
  // evaluate_function: AddmmBackward0 ranges too. Operators kept: 21 of the forward (the step,
  // 4 linear + 4 addmm, 2 matmul + 2 bmm, softmax + _softmax, dropout + native_dropout, add,
  // layer_norm + native_layer_norm, gelu) and 13 of the backward (3 for each of layer norm,
  // gelu and softmax, 2 AddmmBackward0 ranges and 2 mm).
  CHECK(e.operators.size() == 34);
  CHECK(op_of(e, e.kernels[6]).name == "aten::add");
  CHECK(op_of(e, e.kernels[6]).occurrences == 2);
  CHECK(e.kernels[6].op == e.kernels[11].op);
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "1 memory copies and sets counted, not imported");
}

TEST_CASE("older Kineto layouts tie kernels alike: flows alone, correlation ids alone, gzip",
          "[trace][kineto]") {
  const TraceEvents base = read_kineto_trace(kineto("bert_step.json"));
  for (const char* name :
       {"bert_step_async_flows.json", "bert_step_correlation_only.json", "bert_step.json.gz"}) {
    INFO(name);
    const TraceEvents e = read_kineto_trace(kineto(name));
    // the absolute layout writes whole microseconds (make_fixtures.py rounds 130.5 to 130):
    // its times may be half a microsecond off the others'
    const double margin_ns = std::string(name) == "bert_step_correlation_only.json" ? 500 : 0;
    REQUIRE(e.kernels.size() == base.kernels.size());
    for (size_t k = 0; k < e.kernels.size(); ++k) {
      CHECK(kernel_name(e, e.kernels[k]) == kernel_name(base, base.kernels[k]));
      CHECK(chain(e, e.kernels[k]) == chain(base, base.kernels[k]));
      CHECK(e.kernels[k].start_ns == Approx(base.kernels[k].start_ns).margin(margin_ns));
    }
  }
  // the flows gave the kernels without a `correlation` arg their launch's id
  CHECK(read_kineto_trace(kineto("bert_step_async_flows.json")).kernels[0].correlation_id == 1000);
  // absolute integer microseconds: the launch at 102.5 us was written as 102 (rounded to even)
  CHECK(read_kineto_trace(kineto("bert_step_correlation_only.json")).kernels[0].launch_ns ==
        Approx(7000));
}

TEST_CASE("a Kineto trace without shapes still ties its kernels", "[trace][kineto]") {
  const TraceEvents e = read_kineto_trace(kineto("bert_step_no_shapes.json"));
  REQUIRE(e.kernels.size() == 18);
  CHECK(chain(e, e.kernels[0]) == "aten::addmm < aten::linear < ProfilerStep#2");
  CHECK(!op_of(e, e.kernels[0]).has_shapes);
}

TEST_CASE("a truncated Kineto trace is refused where it ends", "[trace][kineto]") {
  const std::string path = kineto("bert_step_truncated.json");
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const InputError e = input_error_of([&] { read_kineto_trace(path); });
  CHECK(e.where().file == path);
  // the file ends inside an event on its last line
  const auto lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  CHECK(e.where().line == lines);
  CHECK(e.message().find("byte offset " + std::to_string(text.size()) + " ") != std::string::npos);
  CHECK(e.message().find('\n') == std::string::npos);
}

TEST_CASE("the kineto importer knows a Chrome trace by its first line", "[trace][kineto]") {
  const KinetoImporter importer;
  CHECK(importer.sniff(R"({"schemaVersion": 1, "traceEvents": [)") == Sniff::yes);
  CHECK(importer.sniff("{") == Sniff::maybe);
  CHECK(importer.sniff("\x1f\x8b\x08") == Sniff::maybe);
  CHECK(importer.sniff("M,N,K,measured_us") == Sniff::no);
}
