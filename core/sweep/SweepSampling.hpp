#pragma once
// Which points of the space spanned by a sweep's axes are evaluated: every combination of the
// listed values (the cross product, the default), or N points drawn over each axis' min..max:
// a Latin hypercube (`lhs:N`: each axis' range cut into N equal strata, one point in each, the
// strata paired at random across axes) or plain uniform draws (`random:N`). Draws come from a
// seeded generator of our own (SplitMix64), so that the points are the same on every platform,
// build and rank: under MPI every rank derives the same list and only indices travel.
#include <cstdint>
#include <string>
#include <vector>

#include "common/WorkLimits.hpp"
#include "sweep/SweepAxis.hpp"

namespace ts {

struct SweepSampling {
  enum class Kind { cross, latin_hypercube, random } kind = Kind::cross;
  size_t count = 0;  // points drawn (lhs, random)
  uint64_t seed = 0;
};

// "cross", "lhs:N" or "random:N" (N >= 1); throws InputError located at `input` naming the text.
SweepSampling parse_sweep_sampling(const std::string& text, uint64_t seed,
                                   const std::string& input = "--sample");

// One value per axis, in the axes' order. Throws InputError at `input` when the cross product
// of the axes has more than kMaxSweepPoints points. Counts are rounded to whole numbers (so a drawn
// sample may repeat a point of a count-only sweep; repeats are dropped, keeping the first).
using SweepValues = std::vector<double>;
std::vector<SweepValues> sweep_points(const std::vector<SweepAxis>& axes,
                                      const SweepSampling& sampling,
                                      const std::string& input = "--vary");

}  // namespace ts
