#include <catch2/catch.hpp>

#include "arch/Units.hpp"

using namespace ts;

TEST_CASE("byte sizes: IEC prefixes are binary, SI decimal, a bare number is bytes", "[units]") {
  CHECK(parse_bytes("64KiB") == 65536.0);
  CHECK(parse_bytes("192MiB") == 192.0 * 1048576.0);
  CHECK(parse_bytes("64GiB") == 64.0 * 1073741824.0);
  CHECK(parse_bytes("80GB") == 80e9);
  CHECK(parse_bytes("4096") == 4096.0);
  CHECK(parse_bytes("1.5MiB") == 1572864.0);
  CHECK(parse_bytes(" 2 KiB ") == 2048.0);
}

TEST_CASE("byte sizes reject other units and negative values", "[units]") {
  CHECK_FALSE(parse_bytes("64Kb"));
  CHECK_FALSE(parse_bytes("64KB/s"));
  CHECK_FALSE(parse_bytes("-1"));
  CHECK_FALSE(parse_bytes("KiB"));
  CHECK_FALSE(parse_bytes(""));
  CHECK_FALSE(parse_bytes("64XiB"));
}

TEST_CASE("bandwidths per second and per cycle", "[units]") {
  auto tb = parse_bandwidth("1.6TB/s");
  REQUIRE(tb);
  CHECK(tb->per == Bandwidth::Per::second);
  CHECK(tb->bytes_per_second(1e9) == Approx(1.6e12));

  auto gib = parse_bandwidth("1GiB/s");
  REQUIRE(gib);
  CHECK(gib->bytes_per_second(5e9) == 1073741824.0);  // the clock plays no part

  auto per_cycle = parse_bandwidth("32B/cycle");
  REQUIRE(per_cycle);
  CHECK(per_cycle->per == Bandwidth::Per::cycle);
  CHECK(per_cycle->value == 32.0);
  CHECK(per_cycle->bytes_per_second(1.8e9) == Approx(57.6e9));  // 32 x 1.8e9

  CHECK_FALSE(parse_bandwidth("900GB"));
  CHECK_FALSE(parse_bandwidth("900Gb/s"));
  CHECK_FALSE(parse_bandwidth("fast"));
}

TEST_CASE("frequencies and durations", "[units]") {
  CHECK(parse_frequency_hz("1.8GHz") == Approx(1.8e9));
  CHECK(parse_frequency_hz("1410MHz") == Approx(1.41e9));
  CHECK_FALSE(parse_frequency_hz("1410"));
  CHECK_FALSE(parse_frequency_hz("1.8GB"));

  CHECK(parse_duration_seconds("12us") == Approx(12e-6));
  CHECK(parse_duration_seconds("5ns") == Approx(5e-9));
  CHECK(parse_duration_seconds("1.5ms") == Approx(1.5e-3));
  CHECK(parse_duration_seconds("2s") == 2.0);
  CHECK_FALSE(parse_duration_seconds("12"));
  CHECK_FALSE(parse_duration_seconds("12min"));
}
