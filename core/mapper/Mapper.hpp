#pragma once
// Mapping search: fills the free factors and loop orders of a template so that the predicted
// latency is lowest (or the energy, or the energy-delay product: MapperOptions::objective).
// Deterministic for a given budget and seed whatever the thread count: exhaustive when the space
// fits the budget, otherwise seeded sampling, coordinate descent from the best samples to local
// optima, and neighbourhood moves around the best point, until the best stops improving
// (MapperOptions::patience) or the budget runs out. Either way, in a latency search, a point
// whose compute floor (ComputeFloor) or traffic floor (traffic_floor) is above the time to beat
// is not evaluated (no floor on the time bounds an energy: the other objectives prune nothing).
#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "mapper/MapperObjective.hpp"
#include "tile/MappingTree.hpp"

namespace ts {

struct MapperOptions {
  // Evaluations per operator. A search that converges stops well before (patience), so this
  // only caps the searches that keep improving: at 50,000 the H200 graph came out slower than
  // the H100 on bert-base ffn_down; at 200,000 both converge and H200 is the faster.
  uint64_t budget = 200000;
  uint64_t seed = 0x7113c0bull;
  bool parallel = true;
  // How many of the best distinct points to return in MapperResult::ranked (at most 8).
  size_t keep = 1;
  // The search has converged, and stops, once its best point has not improved over this
  // fraction of the budget's evaluations (MapperResult::converged). 0: run to the budget.
  double patience = 0.25;
  // A concrete point to start from: the mapping shown before a what-if edit, compiled (not as a
  // template) from a mapping of the template's tree on the graph being searched. The search
  // descends from it first and returns it unless some point is strictly faster, so that an
  // edit that speeds the hardware up never shows a slower operator. Ignored when its tree is
  // not the template's. Null: none.
  const MappingProgram* start = nullptr;
  // Skip the evaluation of points whose compute floor (ComputeFloor) or traffic floor
  // (traffic_floor) is above the time they would have to beat. The result is the same either way;
  // off only to measure what it saves.
  bool prune = true;
  // Set from any thread to stop the search: polled every kCancelPollEvaluations evaluations on
  // each thread, so that an interactive caller (the GUI's what-if) is not held for a whole
  // search. Null: the search runs to its budget.
  const std::atomic<bool>* cancel = nullptr;
  // What the search minimises (MapperObjective.hpp): the device time, the energy or the EDP.
  // Energy and EDP price every evaluated point from its access counts and prune nothing (no
  // floor on the time bounds the energy); the template must give energy for every memory and
  // unit it uses (search_mapping throws InputError otherwise). Ties, the start point, `keep` and
  // convergence all go by the objective's value.
  MapperObjective objective = MapperObjective::latency;
};

// How many evaluations a thread makes between two looks at MapperOptions::cancel: about 0.1 ms
// of work at the analysis' hundreds of thousands of evaluations per second.
inline constexpr uint64_t kCancelPollEvaluations = 64;

struct MapperResult {
  MappingProgram program;  // the template with every free choice made
  double device_s = 0;
  // The objective's value for `program` (MapperOptions::objective): device_s for latency, joules
  // for energy, joule-seconds for EDP.
  double score = 0;
  uint64_t evaluations = 0;        // full evaluations (of at most the budget, plus one per sweep)
  uint64_t pruned = 0;             // points skipped because a floor under their time could not win
  uint64_t pruned_by_traffic = 0;  // of those, the ones the traffic floor skipped
  double space_size = 0;           // points in the search space
  bool exhaustive = false;
  // The search stopped because it stopped improving (MapperOptions::patience, or no start and
  // no neighbour of the best improved any more) or was exhaustive; false when the budget ran out
  // while it was still improving: a larger budget may find a faster mapping.
  bool converged = false;
  bool from_start = false;  // the returned program is MapperOptions::start (nothing beat it)
  bool found = false;       // false when no point of the space is valid
  // Stopped through MapperOptions::cancel: found is false then (no mapping is returned) and
  // evaluations counts those made before the search stopped.
  bool cancelled = false;
  // The best `keep` distinct points the search evaluated, best first (ranked[0] is `program`).
  // Distinct points can still write the same tree (a loop order over factors of 1); callers
  // that need distinct trees compare their canonical text.
  std::vector<MappingProgram> ranked;
  std::vector<double> ranked_device_s;
  std::vector<double> ranked_score;  // the objective's value of each, as `score`
};

// Throws InputError (require_energy_for) when the objective needs energy the graph does not give.
MapperResult search_mapping(const MappingProgram& template_program, const MapperOptions& options);

// Up to `count` distinct valid points of the template's space drawn uniformly with a fixed seed
// (at most `max_tries` draws), in the order drawn; for mapping sets that test whether the model
// ranks mappings. Points predicted slower than `max_slowdown` x `reference_s` are redrawn so that
// a measurement of the set stays bounded (0: no limit).
std::vector<MappingProgram> sample_valid_mappings(const MappingProgram& template_program,
                                                  size_t count, uint64_t seed,
                                                  double reference_s = 0, double max_slowdown = 0,
                                                  uint64_t max_tries = 200000);

// The mapper's starting tree for an operator on a graph: the graph's template for the operator's
// class when it names one, else a chain of tiles along the shortest memory path to a compute node
// able to run it. Multi-stage operators get one op per stage in a sequential scope.
Mapping default_template(const Operator& op, const ArchitectureGraph& graph);
// Every template the graph names for the operator (its type's list, else its class's: a kernel
// menu, docs/formats.md), instantiated, keeping those whose units declare the operator's class at
// its data type (all of them when none does); the generic chain when the graph names none. The
// first of it is default_template's.
std::vector<Mapping> template_menu(const Operator& op, const ArchitectureGraph& graph);
// Makes a template fit an operator: a single op node expands into one per stage. With a graph,
// a stage whose class the op's unit does not run goes to a unit that does (unit_for_stage).
Mapping instantiate_template(const Mapping& tmpl, const Operator& op,
                             const ArchitectureGraph* graph = nullptr);

}  // namespace ts
