#include <catch2/catch.hpp>
#include <vector>

#include "analysis/TailChain.hpp"

using namespace ts;

TEST_CASE("a chain with tails covers (f-1) x inner + tail case", "[tail]") {
  // The design's example: M: [5, 8/4, 16] covers (5-1)x8x16 + 1x4x16 = 576.
  std::vector<Factor> chain{Factor::exact(5), Factor::with_tail(8, 4), Factor::exact(16)};
  CHECK(chain_extent(chain) == 576);
  // Tiles: 4 x 8 full outer iterations and 4 in the last: 36 middle tiles, 36 x 16 leaves.
  CHECK(chain_tile_count(std::vector<Factor>{Factor::exact(5), Factor::with_tail(8, 4)}) == 36);
  CHECK(chain_tile_count(chain) == 576);
}

TEST_CASE("make_tail_chain places the remainder in tails from the top down", "[tail]") {
  // 1576 = ViT-B tokens over [?, 5, 8, 16]: blocks of 640, 128 and 16 rows.
  std::vector<Factor> chain{Factor::exact(1), Factor::exact(5), Factor::exact(8),
                            Factor::exact(16)};
  REQUIRE(make_tail_chain(1576, chain));
  // ceil(1576/640) = 3; 1576 - 2x640 = 296 -> ceil(296/128) = 3; 296 - 256 = 40 -> 3 of 16; 8.
  CHECK(chain[0].full == 3);
  CHECK(chain[1].full == 5);
  CHECK(chain[1].tail == 3);
  CHECK(chain[2].tail == 3);
  CHECK(chain[3].tail == 8);
  CHECK(chain_extent(chain) == 1576);
}

TEST_CASE("a level that can only run its tail is written as its tail", "[tail]") {
  // 2304 over [1, 64, 12, 16]: the top runs once, so the 64 never runs in full: it becomes 12.
  std::vector<Factor> chain{Factor::exact(1), Factor::exact(64), Factor::exact(12),
                            Factor::exact(16)};
  REQUIRE(make_tail_chain(2304, chain));
  CHECK(chain[0].full == 1);
  CHECK(chain[1].full == 12);
  CHECK_FALSE(chain[1].has_tail());
  CHECK(chain_extent(chain) == 2304);
}

TEST_CASE("inner levels that overshoot cannot be fixed by tails", "[tail]") {
  // 100 over [?, 2, 64]: one block of 128 would need the middle level to run 2 then 0 times.
  std::vector<Factor> chain{Factor::exact(1), Factor::exact(3), Factor::exact(64)};
  REQUIRE(make_tail_chain(100, chain));
  CHECK(chain_extent(chain) == 100);
  std::vector<Factor> too_many{Factor::exact(1), Factor::exact(2), Factor::exact(3)};
  REQUIRE(make_tail_chain(7, too_many));
  CHECK(chain_extent(too_many) == 7);
}
