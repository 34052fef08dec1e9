#pragma once
// What the mapper minimises (docs/mapper.md, "The objective"): the predicted device time (the
// default), the energy (docs/energy.md), or their product (energy-delay product, EDP). The
// energy of a candidate comes from its access counts (analysis/AccessCounts), which the latency
// search never computes: an energy or EDP search prices every point it evaluates, and no floor
// on the time bounds the energy, so it prunes nothing and is slower than a latency search.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "analysis/TileAnalysis.hpp"

namespace ts {

enum class MapperObjective { latency, energy, edp };

std::string_view to_string(MapperObjective objective);
// "latency", "energy" or "edp"; nullopt for anything else.
std::optional<MapperObjective> parse_mapper_objective(std::string_view text);
// What a mapping chosen under the objective says of itself in its origin: "" for latency (the
// origin stays "mapper"), ", lowest energy", ", lowest EDP".
std::string objective_origin_suffix(MapperObjective objective);

// What the program uses and the graph gives no energy for, as energy_of words it ("memory 'GLB'
// has no `energy`", "compute node 'PE' has no `energy_per_op` for this operation"): every memory
// that holds a buffer and every unit an op runs on. Empty: every candidate of the template has a
// known energy.
std::vector<std::string> objective_unpriced(const MappingProgram& program);
// Throws InputError at the graph's file, one line naming the graph and what lacks an energy,
// when the objective needs energy (energy, EDP) and objective_unpriced is not empty.
void require_energy_for(MapperObjective objective, const MappingProgram& program);

// The objective's value for a program just evaluated in `eval` (after evaluate, which returned
// `device_s`): device_s itself, its energy in joules, or energy x device_s. +infinity where the
// evaluation is invalid or the energy is not known.
double objective_value(MapperObjective objective, const MappingProgram& program,
                       const AnalysisScratch& eval, double device_s);
// The same for a program not yet evaluated: evaluates it in `eval` first.
double evaluate_objective(MapperObjective objective, const MappingProgram& program,
                          AnalysisScratch& eval);

}  // namespace ts
