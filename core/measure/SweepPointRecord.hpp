#pragma once
// One point of an architecture sweep as the store keeps it (table sweep_points, schema 3): the
// parameter values written into the graph, and what the workload's operators took on it. A point
// is keyed by (sweep_key, workload_hash, parameters_json), so that a rerun of the same sweep
// finds the points already stored and skips them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

struct SweepOperatorTime {
  std::string name;
  double device_s = 0;
  double launch_s = 0;
  std::string bound_by;
  // False when the mapper chose the operator's mapping and its search ran out of budget while it
  // was still improving (Prediction::search_converged): a sweep says so, as predict does.
  bool converged = true;
  // The concrete mapping the time is for (mapping_yaml's text); empty for an operator without a
  // valid mapping and in records of sweeps before mappings were kept.
  std::string mapping;
  // Empty when the point's own search found the mapping; otherwise where it was found
  // ("mapper, as found on '{...}'": another point's values), when the sweep's exchange
  // (sweep/SweepExchange) took it because it is strictly faster here.
  std::string mapping_origin;
  // The operator's energy with that mapping, one run of it (Prediction::energy.total_j), where
  // the graph prices everything it moves and computes; unknown otherwise, for an operator without
  // a valid mapping, and in records of sweeps before energy was kept.
  std::optional<double> energy_j = std::nullopt;
};

struct SweepPointRecord {
  // hash_text of the base graph's content hash and the mapper's settings (sweep/SweepPoint):
  // points of one sweep, whatever values they write.
  std::string sweep_key;
  std::string workload_hash;
  // {"PATH": value, ...}, keys sorted, values in SI base units printed to round-trip exactly.
  std::string parameters_json;
  std::string arch_hash;  // content hash of the graph with the values written
  double total_s = 0;     // sum over the operators of device + launch time
  // The cost proxy (sweep/SweepPoint: the sum over memories of capacity x instances, in bytes).
  double cost = 0;
  // The suite's energy, the sum over the operators of their energy, once each (J), where every
  // operator's is known; and the graph's area (m^2: area x instances summed over the nodes that
  // give one), where any node gives one (sweep/ArchitectureSweep). Unknown in stores before schema
  // 4 and in strategy grids.
  std::optional<double> energy_j = std::nullopt;
  std::optional<double> area_m2 = std::nullopt;
  std::vector<SweepOperatorTime> operators;  // in the workload's order
};

// The operators as the column operators_json holds them: [{"name", "device_s", "launch_s",
// "bound_by"[, "converged": false][, "mapping"][, "mapping_origin"][, "energy_j"]}, ...]
// ("converged" only when false, the mapping fields only when not empty, energy_j only when known,
// so that the records of earlier sweeps read as they were written); doubles printed to round-trip
// exactly.
std::string sweep_operators_json(const std::vector<SweepOperatorTime>& operators);
// Reading them back checks what the store's file says, since anyone may have written it: text
// that is not JSON, a field missing or of another type, a time or an energy that is negative or
// not a number is an InputError at `where` (the file and the row), naming the field and what
// was expected; never a JSON library's exception.
std::vector<SweepOperatorTime> sweep_operators_from_json(std::string_view text,
                                                         const SourceLocation& where = {});
// The whole record as one JSON text: how an MPI rank sends a finished point to rank 0.
std::string sweep_point_json(const SweepPointRecord& point);
SweepPointRecord sweep_point_from_json(std::string_view text,
                                       const SourceLocation& where = {"sweep point", 0, 0});

// The figures of a stored point, as the store's row gives them, checked as above: total_s a
// time in s (>= 0; infinite when an operator has no valid mapping), cost >= 0 and finite,
// energy_j and area_m2 unknown or >= 0 and finite. Throws InputError at `where`.
void check_sweep_point_figures(const SweepPointRecord& point, const SourceLocation& where);

}  // namespace ts
