#include "mapper/MappingSet.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "common/Fnv1a.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"

namespace ts {

std::vector<NamedProgram> suite_mappings(const Operator& op, const ArchitectureGraph& graph,
                                         size_t count, uint64_t seed, const MapperOptions& options,
                                         const Mapping* given, bool* converged) {
  constexpr size_t kTop = 3;
  constexpr double kMaxSlowdown = 20;
  MapperOptions o = options;
  o.keep = 8;
  // Free buffers: the set is drawn from the way of settling them whose search found the fastest.
  std::optional<MappingProgram> tmpl;
  MapperResult best;
  std::optional<InputError> first_error;
  bool compiled = false;
  for (const Mapping& settled : buffer_choices(given ? *given : default_template(op, graph))) {
    MappingProgram program;
    try {
      program = compile_mapping(settled, op, graph, true);
    } catch (const InputError& e) {
      // A way that cannot hold (an input bypassing the root) is no choice; none: say why.
      if (!first_error) first_error = e;
      continue;
    }
    compiled = true;
    MapperResult found = search_mapping(program, o);
    if (found.found && (!tmpl || found.device_s < best.device_s)) {
      tmpl = std::move(program);
      best = std::move(found);
    }
  }
  if (!compiled) throw *first_error;
  if (!tmpl)
    throw InputError(op.where,
                     fmt::format("the mapper found no valid mapping for '{}' ({}) on '{}'", op.name,
                                 op.shape_text(), graph.name));
  if (converged) *converged = best.converged;
  std::vector<NamedProgram> out;
  std::set<std::string> seen;
  auto take = [&](MappingProgram p, const std::string& name) {
    if (out.size() >= count) return;
    const std::string hash = mapping_record(p, name).hash;
    if (!seen.insert(hash).second) return;
    out.push_back({name, std::move(p)});
  };
  for (size_t k = 0; k < best.ranked.size() && out.size() < std::min(kTop, count); ++k)
    take(best.ranked[k], fmt::format("{}-top{}", op.name, out.size() + 1));
  const size_t top = out.size();
  std::vector<MappingProgram> draws =
      sample_valid_mappings(*tmpl, 4 * count, seed ^ fnv1a(op.name), best.device_s, kMaxSlowdown);
  for (auto& p : draws) take(std::move(p), fmt::format("{}-draw{}", op.name, out.size() - top + 1));
  return out;
}

}  // namespace ts
