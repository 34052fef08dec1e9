#pragma once
// Keep or bypass, chosen by the mapper: a template's `buffers: {T: "?"}` leaves to the mapper
// whether a tile holds T in its memory or T bypasses it (Timeloop's keep/bypass per level and
// data space). Holding a tensor lets the tile reuse it across the loops above; bypassing frees
// the tile's memory for larger tiles of the others, and the tensor then moves between the levels
// around it without stopping. The choice changes which transfers a mapping makes, so each way of
// settling the template's free buffers is compiled and searched as a template of its own.
#include <vector>

#include "tile/MappingTree.hpp"

namespace ts {

// At most this many free buffers in one template: 2^4 = 16 searches.
inline constexpr int kMaxFreeBuffers = 4;

// Every way to settle the template's free buffers: the first holds each tensor at its tile, the
// next ones bypass more of them (in binary order of the free buffers, preorder). A template with
// none gives itself. A bypassed tensor's `keep:` at its tile is dropped (there is nothing to
// keep). Throws InputError at the first free buffer over kMaxFreeBuffers.
std::vector<Mapping> buffer_choices(const Mapping& tmpl);

}  // namespace ts
