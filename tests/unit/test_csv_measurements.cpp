// The strict CSV reader of `correlate --csv` and `fit`: fields, quotes, and every error located
// at file:line:col with what was expected.
#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "trace/CsvMeasurements.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

TEST_CASE("CSV: header, rows, quoted fields, blanks and CRLF", "[csv]") {
  const CsvTable t = parse_csv(
      "M, N ,K,name,measured_us\r\n"
      "1,2,3,\"a, \"\"quoted\"\" name\",4.5\r\n"
      "\n"
      "  10 ,20,30,plain,40\n",
      "t.csv");
  CHECK(t.header == std::vector<std::string>{"M", "N", "K", "name", "measured_us"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0].line == 2);
  CHECK(t.rows[0].fields[3] == "a, \"quoted\" name");
  CHECK(t.rows[1].line == 4);
  CHECK(t.rows[1].fields[0] == "10");
  CHECK(t.rows[1].columns[0] == 3);  // after the two blanks
  CHECK(t.rows[1].columns[1] == 7);
  CHECK(t.column_index("K") == 2);
  CHECK(t.column_index("k") == -1);  // names are exact
}

TEST_CASE("CSV: malformed tables are refused where they go wrong", "[csv]") {
  const InputError empty = input_error_of([] { parse_csv("", "e.csv"); });
  CHECK(format_location(empty.where()) == "e.csv:1:1");
  const InputError twice = input_error_of([] { parse_csv("M,N,M\n1,2,3\n", "d.csv"); });
  CHECK(format_location(twice.where()) == "d.csv:1:5");
  CHECK_THAT(twice.message(), Catch::Contains("'M' twice"));
  const InputError fields = input_error_of([] { parse_csv("M,N\n1,2\n1,2,3\n", "f.csv"); });
  CHECK(format_location(fields.where()) == "f.csv:3:5");
  CHECK_THAT(fields.message(), Catch::Contains("3 fields") && Catch::Contains("2 columns"));
  const InputError quote = input_error_of([] { parse_csv("M\n\"12\n", "q.csv"); });
  CHECK(format_location(quote.where()) == "q.csv:2:1");
  const InputError after = input_error_of([] { parse_csv("M\n\"12\"x\n", "x.csv"); });
  CHECK(format_location(after.where()) == "x.csv:2:5");
}

TEST_CASE("shape columns are the builder's dimensions", "[csv]") {
  CHECK(shape_columns("gemm") == std::vector<std::string>{"M", "N", "K"});
  CHECK(shape_columns("batched_gemm") == std::vector<std::string>{"B", "M", "N", "K"});
  CHECK(shape_columns("softmax") == std::vector<std::string>{"R", "C"});
  const InputError unknown = input_error_of([] { shape_columns("conv2d"); });
  CHECK(unknown.where().file == "operator class");
  CHECK_THAT(unknown.message(), Catch::Contains("'conv2d'") && Catch::Contains("gemm") &&
                                    Catch::Contains("batched_gemm") && Catch::Contains("softmax"));
}

TEST_CASE("shape measurements: one operator per row, latencies in seconds", "[csv]") {
  const CsvTable t = parse_csv("K,M,N,measured_us,note\n64,128,256,12.5,x\n", "g.csv");
  const auto rows = shape_measurements(t, "gemm", DataType::fp16);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].op.type == OperatorType::gemm);
  CHECK(rows[0].op.shape_text() == "M=128 N=256 K=64");
  CHECK(rows[0].op.name == "gemm@2");
  CHECK(rows[0].op.primary_dtype() == DataType::fp16);
  CHECK(rows[0].measured_s == Approx(12.5e-6));
  const auto softmax = shape_measurements(
      parse_csv("name,R,C,measured_us\nsm,1024,512,3\n", "s.csv"), "softmax", DataType::fp32);
  CHECK(softmax[0].op.name == "sm");
  CHECK(softmax[0].op.shape_text() == "R=1024 C=512");
}

TEST_CASE("a missing column is named at line 1 with the expected columns", "[csv]") {
  const std::string path = fixture("csv/missing-column.csv");
  const InputError e =
      input_error_of([&] { read_shape_measurements(path, "gemm", DataType::fp16); });
  CHECK(format_location(e.where()) == path + ":1:1");
  CHECK_THAT(e.message(),
             Catch::Contains("no column 'K'") && Catch::Contains("M, N, K, measured_us"));
}

TEST_CASE("a bad number is located at its line and column", "[csv]") {
  const CsvTable t = parse_csv("M,N,K,measured_us\n1,2,3,4\n128,12x,64,5\n", "b.csv");
  const InputError size = input_error_of([&] { shape_measurements(t, "gemm", DataType::fp16); });
  CHECK(format_location(size.where()) == "b.csv:3:5");
  CHECK_THAT(size.message(), Catch::Contains("'12x'") && Catch::Contains("positive integer"));
  const CsvTable neg = parse_csv("M,N,K,measured_us\n1,2,3,-4\n", "n.csv");
  const InputError latency =
      input_error_of([&] { shape_measurements(neg, "gemm", DataType::fp16); });
  CHECK(format_location(latency.where()) == "n.csv:2:7");
  CHECK_THAT(latency.message(), Catch::Contains("measured_us"));
  const CsvTable zero = parse_csv("M,N,K,measured_us\n0,2,3,4\n", "z.csv");
  CHECK(format_location(input_error_of([&] {
                          shape_measurements(zero, "gemm", DataType::fp16);
                        }).where()) == "z.csv:2:1");
}

TEST_CASE("an unreadable file is an InputError naming it", "[csv]") {
  const InputError e = input_error_of([] { read_csv("/nonexistent/table.csv"); });
  CHECK(e.where().file == "/nonexistent/table.csv");
}

TEST_CASE("shape measurements by row: each row's class from its op column", "[csv]") {
  // A GEMM and a layernorm in one table: each row reads only its own class's columns, so the
  // empty fields of the other class are never read.
  const CsvTable t = parse_csv(
      "name,op,M,N,K,R,C,measured_us\n"
      "up,gemm,4,8,16,,,10\n"
      "norm,layernorm,,,,32,64,2.5\n",
      "mixed.csv");
  const auto rows = shape_measurements(t, kOpClassByRow, DataType::fp16);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].op_type == "gemm");
  CHECK(rows[0].op.type == OperatorType::gemm);
  CHECK(rows[0].op.total_flops() == 2.0 * 4 * 8 * 16);
  CHECK(rows[0].measured_s == Approx(10e-6));
  CHECK(rows[1].op_type == "layernorm");
  CHECK(rows[1].op.name == "norm");
  CHECK(rows[1].op.shape_text() ==
        make_vector_op("n", "layernorm", 32, 64, DataType::fp16).shape_text());

  const InputError unknown = input_error_of([] {
    shape_measurements(parse_csv("op,R,C,measured_us\nconv,1,2,3\n", "u.csv"), kOpClassByRow,
                       DataType::fp16);
  });
  CHECK(format_location(unknown.where()) == "u.csv:2:1");
  CHECK_THAT(unknown.message(), Catch::Contains("'conv'") && Catch::Contains("gemm"));
  // A GEMM row with its K left empty is refused at the empty field.
  const InputError empty = input_error_of([] {
    shape_measurements(parse_csv("op,M,N,K,measured_us\ngemm,1,2,,3\n", "k.csv"), kOpClassByRow,
                       DataType::fp16);
  });
  CHECK(format_location(empty.where()) == "k.csv:2:10");
  const InputError no_op = input_error_of([] {
    shape_measurements(parse_csv("M,N,K,measured_us\n1,2,3,4\n", "n.csv"), kOpClassByRow,
                       DataType::fp16);
  });
  CHECK_THAT(no_op.message(), Catch::Contains("'op'"));
}
