#include "analysis/TailChain.hpp"

#include <limits>
#include <vector>

#include "common/CheckedArithmetic.hpp"

namespace ts {

int64_t chain_extent(std::span<const Factor> chain) {
  int64_t full = 1, tail = 1;  // extent below the current level, in full and tail mode
  for (size_t i = chain.size(); i-- > 0;) {
    const Factor& f = chain[i];
    int64_t new_full = f.full * full;
    int64_t new_tail = (f.tail - 1) * full + tail;
    full = new_full;
    tail = new_tail;
  }
  return tail;
}

bool make_tail_chain(int64_t size, std::span<Factor> chain) {
  if (chain.empty()) return size == 1;
  // Tile size below each level with the full factors.
  std::vector<int64_t> below(chain.size(), 1);
  // The mapper's candidate factors multiply past 64 bits on large sizes: a product that does
  // not fit is held as INT64_MAX, which is, like the product, more than `rest` (at most `size`),
  // so the count it gives is the same 1.
  for (size_t i = chain.size() - 1; i-- > 0;)
    below[i] =
        checked_mul(below[i + 1], chain[i + 1].full).value_or(std::numeric_limits<int64_t>::max());
  int64_t rest = size;
  bool only_tail = true;  // every level above runs once, so this one only ever runs its tail
  for (size_t i = 0; i < chain.size(); ++i) {
    if (rest < 1) return false;
    int64_t count = (rest - 1) / below[i] + 1;  // ceil(rest / below), without rest + below
    if (count < 1) return false;
    if (i == 0 || only_tail) {
      if (i > 0 && count > chain[i].full) return false;
      chain[i].full = count;
    } else if (count > chain[i].full) {
      return false;
    }
    chain[i].tail = count;
    only_tail = only_tail && count == 1;
    rest -= (count - 1) * below[i];
  }
  return rest == 1;
}

int64_t chain_tile_count(std::span<const Factor> chain) {
  int64_t total = 1;
  for (const Factor& f : chain) total = (total - 1) * f.full + f.tail;
  return total;
}

}  // namespace ts
