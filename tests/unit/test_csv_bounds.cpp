// What spreadsheets write and how large a table may be: a UTF-8 byte-order mark is read as
// nothing, and a table past kCsvRowLimit data rows is refused at the first row past it.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "trace/CsvMeasurements.hpp"

using namespace ts;
using ts::test::input_error_of;

TEST_CASE("CSV: a UTF-8 byte-order mark is not part of the first column", "[csv]") {
  const CsvTable t = parse_csv("\xEF\xBB\xBFM,N,K,measured_us\r\n1,2,3,4.5\r\n", "bom.csv");
  CHECK(t.header == std::vector<std::string>{"M", "N", "K", "measured_us"});
  CHECK(t.column_index("M") == 0);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0].columns[0] == 1);
  // Columns of the header still count from the first visible character.
  const InputError e = input_error_of([] {
    parse_csv(
        "\xEF\xBB\xBF"
        "M,M\n1,2\n",
        "twice.csv");
  });
  CHECK(e.where().line == 1);
  CHECK(e.where().column == 3);
  // Only at the start of the file: elsewhere the bytes stay part of the field.
  const CsvTable inner = parse_csv("a,b\n\xEF\xBB\xBFx,y\n", "inner.csv");
  CHECK(inner.rows[0].fields[0] == "\xEF\xBB\xBFx");
}

TEST_CASE("CSV: more data rows than the limit are refused at the first row past it", "[csv]") {
  // Header on line 1, data rows on lines 2 .. kCsvRowLimit + 1: exactly the limit is read.
  std::string text = "M,measured_us\n";
  text.reserve(text.size() + (kCsvRowLimit + 1) * 4);
  for (size_t r = 0; r < kCsvRowLimit; ++r) text += "1,2\n";
  CHECK(parse_csv(text, "limit.csv").rows.size() == kCsvRowLimit);
  // One more row: refused at its line, kCsvRowLimit + 2.
  text += "\n1,2\n";  // a blank line is not a row, but it still counts as a line
  const InputError e = input_error_of([&] { parse_csv(text, "over.csv"); });
  CHECK(e.where().line == static_cast<int>(kCsvRowLimit) + 3);
  CHECK(e.where().column == 1);
  CHECK(e.message().find("more than 1000000 rows") != std::string::npos);
}

TEST_CASE("CSV: a field that is not UTF-8 is an error at the field", "[csv]") {
  // Line 2, third field: `1,2,` is 4 characters, so the name starts at column 5.
  const InputError e = input_error_of([] { parse_csv("M,N,name\n1,2,gemm_\xff\n", "latin1.csv"); });
  CHECK(e.where().line == 2);
  CHECK(e.where().column == 5);
  CHECK(e.message() == "not valid UTF-8 (byte 0xFF at byte 6); expected UTF-8 text");
}
