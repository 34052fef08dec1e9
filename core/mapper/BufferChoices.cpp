#include "mapper/BufferChoices.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

namespace ts {
namespace {

// A template entry instantiated for a fused operator becomes several placements of one tile (the
// product and the chain's outputs where the template names C): one choice, made for all of them.
struct FreeBuffer {
  SourceLocation where;
  std::vector<std::string> tensors;
};

bool same_place(const SourceLocation& a, const SourceLocation& b) {
  return a.file == b.file && a.line == b.line && a.column == b.column;
}

void collect(const MappingNode& node, std::vector<std::vector<FreeBuffer>>& out) {
  std::vector<FreeBuffer> here;
  for (const TensorPlacement& p : node.placements) {
    if (!p.free()) continue;
    auto it = std::find_if(here.begin(), here.end(),
                           [&](const FreeBuffer& f) { return same_place(f.where, p.where); });
    if (it == here.end())
      here.push_back({p.where, {p.tensor}});
    else
      it->tensors.push_back(p.tensor);
  }
  out.push_back(std::move(here));
  for (const MappingNode& c : node.children) collect(c, out);
}

// Settles the free buffers of `node` and its subtree in preorder; `next` counts the choices made.
void settle(MappingNode& node, uint32_t bypassed, int& next) {
  std::vector<SourceLocation> seen;
  std::vector<bool> bypass_of;
  for (TensorPlacement& p : node.placements) {
    if (!p.free()) continue;
    auto it = std::find_if(seen.begin(), seen.end(),
                           [&](const SourceLocation& w) { return same_place(w, p.where); });
    bool bypass = false;
    if (it == seen.end()) {
      bypass = (bypassed >> next++) & 1u;
      seen.push_back(p.where);
      bypass_of.push_back(bypass);
    } else {
      bypass = bypass_of[static_cast<size_t>(it - seen.begin())];
    }
    p.memory = bypass ? kBypass : node.memory;
    if (bypass)
      std::erase_if(node.keeps, [&](const TensorKeep& k) { return k.tensor == p.tensor; });
  }
  for (MappingNode& c : node.children) settle(c, bypassed, next);
}

}  // namespace

std::vector<Mapping> buffer_choices(const Mapping& tmpl) {
  std::vector<std::vector<FreeBuffer>> per_node;
  collect(tmpl.root, per_node);
  int count = 0;
  for (const auto& node : per_node)
    for (const FreeBuffer& f : node) {
      if (++count > kMaxFreeBuffers)
        throw InputError(f.where,
                         fmt::format("more than {} free buffers (`\"?\"` in `buffers`) in "
                                     "template '{}': the mapper searches every way to settle "
                                     "them, 2^{} searches at most; fix some as a memory or "
                                     "bypass",
                                     kMaxFreeBuffers, tmpl.name, kMaxFreeBuffers));
    }
  if (count == 0) return {tmpl};
  std::vector<Mapping> out;
  for (uint32_t bypassed = 0; bypassed < (1u << count); ++bypassed) {
    Mapping m = tmpl;
    int next = 0;
    settle(m.root, bypassed, next);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ts
