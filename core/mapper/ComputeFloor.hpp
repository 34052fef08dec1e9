#pragma once
// A floor under a point's device time that costs a few multiplications instead of an evaluation:
// the mapper skips the full evaluation of a point whose floor is already above the time it has
// to beat (branch and bound over the mapping space).
//
// The floor is the primary op's useful work (the operator's points of its stage times its
// operations per point, no padding) over the most instances that can run it at once (along the
// primary path, each tile's spatial product, capped by the instances its children spread over)
// at the unit's peak rate. The analysis times every op call at no less than its padded work over
// that rate (a call is never shorter than its compute; edge times only lengthen it), runs calls
// of one instance in turn, and no more calls at once than the instances busy; so the device time
// is never below this floor, whatever the traffic, tails or waves.
#include "analysis/MappingProgram.hpp"

namespace ts {

class ComputeFloor {
 public:
  explicit ComputeFloor(const MappingProgram& tmpl);
  // Seconds; 0 when the template has no op. `program` is a point of the template (same tree).
  double seconds(const MappingProgram& program) const;

 private:
  std::vector<int> tiles_;       // tile ancestors of the primary op, root first
  std::vector<int64_t> spread_;  // instances each such tile's spatial children spread over
  double ops_ = 0;               // useful operations of the primary op's stage
  double ops_per_s_ = 0;         // one instance at the unit's peak
  int ndims_ = 0;
};

}  // namespace ts
