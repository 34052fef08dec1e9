// The runner's hand-written JSON lines and its statistics.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "JsonLine.hpp"
#include "SampleStatistics.hpp"

using namespace ts::cupti;

TEST_CASE("JSON strings escape quotes, backslashes and control characters", "[cupti][json]") {
  CHECK(json_escape("plain") == "\"plain\"");
  CHECK(json_escape("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(json_escape("line\nnext\ttab\r") == "\"line\\nnext\\ttab\\r\"");
  CHECK(json_escape(std::string("\x01\x1f", 2)) == "\"\\u0001\\u001f\"");
  CHECK(json_escape("tiled_gemm<__half, 2, 2> µs") == "\"tiled_gemm<__half, 2, 2> µs\"");
}

TEST_CASE("a JSON line keeps key order, nests objects and writes exact doubles", "[cupti][json]") {
  JsonLine inner;
  inner.add("min", 1.5).add("median", 2.0);
  JsonLine j;
  j.add("record", "kernel")
      .add("count", 3)
      .add("big", int64_t{1} << 40)
      .add("passed", true)
      .add("ratio", 0.1)
      .add("nan", std::nan(""))
      .add("inf", std::numeric_limits<double>::infinity())
      .add_null("none")
      .add_object("device_ns", inner);
  CHECK(j.str() ==
        "{\"record\":\"kernel\",\"count\":3,\"big\":1099511627776,\"passed\":true,"
        "\"ratio\":0.10000000000000001,\"nan\":null,\"inf\":null,\"none\":null,"
        "\"device_ns\":{\"min\":1.5,\"median\":2}}");
  CHECK(JsonLine().str() == "{}");
}

TEST_CASE("summaries give min, median, max and spread", "[cupti][statistics]") {
  const SampleSummary odd = summarize({30, 10, 20});
  CHECK(odd.count == 3);
  CHECK(odd.min == 10);
  CHECK(odd.median == 20);
  CHECK(odd.max == 30);
  CHECK(odd.spread == Approx(1.0));
  const SampleSummary even = summarize({4, 1, 3, 2});
  CHECK(even.median == 2.5);
  CHECK(even.spread == Approx(3.0 / 2.5));
  const SampleSummary none = summarize({});
  CHECK(none.count == 0);
  CHECK(none.spread == 0);
  CHECK(summarize({0, 0}).spread == 0);
}
