#pragma once
// Factor chains with tails. A dimension split over levels f1 x f2 x ... covers
// C(1) where a level in "tail mode" runs its tail count and passes tail mode to its last
// iteration only: (f-1) x C(next, full) + C(next, tail). See docs/formats.md.
#include <cstdint>
#include <span>

#include "tile/MappingTree.hpp"

namespace ts {

// Extent covered by a chain (outermost first) when entered in tail mode (as the root is).
int64_t chain_extent(std::span<const Factor> chain);

// Given the full factors of every level (outermost first), fills in the tails so that the chain
// covers `size` exactly. The outermost level's full count becomes whatever covers the rest.
// Returns false when the inner levels already overshoot in a way no tail can fix.
bool make_tail_chain(int64_t size, std::span<Factor> chain);

// Number of distinct tiles a chain produces (iterations of all its loops together).
int64_t chain_tile_count(std::span<const Factor> chain);

}  // namespace ts
