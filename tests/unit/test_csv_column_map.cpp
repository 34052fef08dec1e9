// `import csv --columns`: a table that names its columns otherwise (m, n, k, time_ms) read
// through a map to tilescope's names, with the latency's unit said by its key; the map's own
// errors, and a table without the latency column named with what was expected.
#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "trace/CsvMeasurements.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {
const std::vector<std::string> kGemmColumns{"M", "N", "K"};
}

TEST_CASE("a column map reads a table under its own names, in its own unit", "[csv]") {
  const CsvColumnMap map =
      parse_csv_column_map("M=m,N=n,K=k,measured_ms=time_ms,name=kernel", kGemmColumns, "columns");
  CHECK(map.latency == "measured_ms");
  CHECK(map.file_column("M") == "m");
  CHECK(map.file_column("B") == "B");  // not mapped: the name itself
  const auto rows =
      read_shape_measurements(fixture("trace/csv/gemm-timings.csv"), "gemm", DataType::fp16, map);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].op.name == "qkv_proj");
  CHECK(rows[0].op.shape_text() == "M=128 N=2304 K=768");
  CHECK(rows[0].measured_s == Approx(21.3e-6));  // 0.0213 ms
  CHECK(rows[2].measured_s == Approx(25.1e-6));  // 0.0251 ms
  // nanoseconds and seconds as well: the same figure, in the other unit
  const auto in_ns = shape_measurements(
      parse_csv("m,n,k,t\n2,3,4,1500\n", "ns.csv"), "gemm", DataType::fp16,
      parse_csv_column_map("M=m,N=n,K=k,measured_ns=t", kGemmColumns, "columns"));
  CHECK(in_ns[0].measured_s == Approx(1.5e-6));
}

TEST_CASE("a table without its latency column is named with the column expected", "[csv]") {
  const std::string path = fixture("trace/csv/no-duration.csv");
  const CsvColumnMap map = parse_csv_column_map("M=m,N=n,K=k", kGemmColumns, "columns");
  const InputError e =
      input_error_of([&] { read_shape_measurements(path, "gemm", DataType::fp16, map); });
  CHECK(format_location(e.where()) == path + ":1:1");
  CHECK(e.message() ==
        "no column 'measured_us' in the header; a table of gemm measurements needs the columns "
        "M, N, K, measured_us (found kernel, m, n, k)");
  // a mapped column that is not there is named as given
  const InputError mapped = input_error_of([&] {
    read_shape_measurements(
        path, "gemm", DataType::fp16,
        parse_csv_column_map("M=m,N=n,K=k,measured_us=time", kGemmColumns, "columns"));
  });
  CHECK(mapped.message().rfind("no column 'time' in the header (--columns measured_us=time)", 0) ==
        0);
}

TEST_CASE("a column map names what it cannot read", "[csv]") {
  auto error_of = [](const std::string& text) {
    return input_error_of([&] { parse_csv_column_map(text, kGemmColumns, "columns"); }).message();
  };
  CHECK(error_of("M=m,latency=t")
            .rfind("'latency' is not a column tilescope reads; expected one "
                   "of M, N, K, op, name, measured_s, measured_ms, "
                   "measured_us, measured_ns",
                   0) == 0);
  CHECK(error_of("M=m,N").rfind("'N': expected NAME=COLUMN pairs", 0) == 0);
  CHECK(error_of("M=m,M=x") == "'M' is given twice");
  CHECK(error_of("measured_us=a,measured_ms=b")
            .rfind("'measured_us' and 'measured_ms' both name "
                   "the latency",
                   0) == 0);
}
