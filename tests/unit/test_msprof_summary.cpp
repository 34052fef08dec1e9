// Ascend msprof op_summary tables read into TraceEvents, in CANN 8's column naming and in the
// older one (CANN 5.x: `Task Start Time` without its unit, no device column); a table whose
// needed columns are renamed is refused at line 1 naming the column and its known names. Expected
// figures are read off the fixtures' rows (times in microseconds, so x 1000 for ns).
#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "trace/MsprofImport.hpp"
#include "trace/MsprofSummary.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

using Shapes = std::vector<std::vector<int64_t>>;

TEST_CASE("a CANN 8 op_summary reads as one operator and one kernel per task", "[trace][msprof]") {
  const TraceEvents e = read_msprof_summary(fixture("trace/msprof/op_summary_cann8.csv"));
  CHECK(e.format == "msprof");
  CHECK(e.tool_version == "msprof op_summary (CANN 6.3 or later)");
  REQUIRE(e.operators.size() == 5);
  REQUIRE(e.kernels.size() == 5);
  const TraceOperator& mm = e.operators[0];
  CHECK(mm.name == "MatMulV2");  // OP Type
  CHECK(mm.has_shapes);
  CHECK(mm.input_shapes == Shapes{{128, 768}, {768, 768}});
  CHECK(mm.input_dtypes == std::vector<std::string>{"fp16", "fp16"});  // FLOAT16;FLOAT16
  CHECK(mm.duration_ns == Approx(21340));                              // 21.34 us
  CHECK(mm.line == 2);
  const TraceKernel& k = e.kernels[0];
  CHECK(k.name == "aclnnMm_MatMulCommon_MatMulV2");  // Op Name
  CHECK(k.op == std::optional<size_t>(0));
  // `1733130000100.120<tab>`: msprof's tab after a timestamp is not part of it
  CHECK(k.start_ns == Approx(1733130000100120.0));
  CHECK(k.duration_ns == Approx(21340));
  CHECK(k.stream == 2);
  CHECK(k.device == 0);
  CHECK(e.operators[1].input_shapes == Shapes{{128, 768}, {768}});  // Add with its bias
  CHECK(e.operators[2].input_shapes == Shapes{{12, 128, 64}, {12, 64, 128}});
  // the AI_CPU task records N/A for its shapes: an operator without shapes, counted
  CHECK_FALSE(e.operators[4].has_shapes);
  CHECK(e.kernels[4].duration_ns == Approx(38700));
  bool counted = false;
  for (const std::string& n : e.notes) counted |= n == "1 tasks record no input shapes (N/A)";
  CHECK(counted);
}

TEST_CASE("an older op_summary (CANN 5.x column names) reads the same way", "[trace][msprof]") {
  const TraceEvents e = read_msprof_summary(fixture("trace/msprof/op_summary_cann5.csv"));
  CHECK(e.tool_version == "msprof op_summary (before CANN 6.3)");
  REQUIRE(e.kernels.size() == 3);
  CHECK(e.operators[0].name == "MatMul");
  CHECK(e.kernels[0].name == "bert/encoder/layer_0/attention/self/query/MatMul");
  CHECK(e.kernels[0].start_ns == Approx(1649911623842915310.0));  // `Task Start Time`, in us
  CHECK(e.kernels[0].duration_ns == Approx(23060));
  CHECK(e.kernels[0].stream == 5);
  CHECK(e.operators[2].input_shapes == Shapes{{1, 12, 128, 128}});
  CHECK(e.operators[2].input_dtypes == std::vector<std::string>{"fp16"});
}

TEST_CASE("an op_summary with renamed columns is refused naming the column expected",
          "[trace][msprof]") {
  const std::string path = fixture("trace/msprof/op_summary_renamed.csv");
  const InputError e = input_error_of([&] { read_msprof_summary(path); });
  CHECK(e.where().file == path);
  CHECK(e.where().line == 1);
  CHECK(e.message().rfind("no column 'Op Name' in the header; an msprof op_summary names it Op "
                          "Name, OP Name",
                          0) == 0);

  // a duration that is not a number is an error at its field
  ts::test::TempDir dir("msprof-bad");
  const std::string bad = dir / "op_summary_bad.csv";
  std::ofstream(bad) << "Op Name,OP Type,Task Start Time(us),Task Duration(us)\n"
                        "mm,MatMulV2,10.5,fast\n";
  const InputError field = input_error_of([&] { read_msprof_summary(bad); });
  CHECK(field.where().line == 2);
  CHECK(field.where().column == 18);
  CHECK(field.message() ==
        "'fast' is not a valid task duration; expected a number of microseconds");
}

TEST_CASE("msprof's importer knows op_summary headers, renamed ones too", "[trace][msprof]") {
  const MsprofImporter msprof;
  auto header = [](const std::string& name) {
    return first_line_of(fixture("trace/msprof/" + name));
  };
  CHECK(msprof.sniff(header("op_summary_cann8.csv")) == Sniff::yes);
  CHECK(msprof.sniff(header("op_summary_cann5.csv")) == Sniff::yes);
  // renamed columns still say op_summary (OP Type, Task Start Time(us)): msprof's to refuse,
  // naming the column, not another importer's
  CHECK(msprof.sniff(header("op_summary_renamed.csv")) == Sniff::maybe);
  CHECK(msprof.sniff("M,N,K,measured_us") == Sniff::no);
  CHECK(msprof.sniff("SQLite format 3") == Sniff::no);
}
