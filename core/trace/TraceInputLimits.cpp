#include "trace/TraceInputLimits.hpp"

#include <fmt/format.h>

#include <cmath>

#include "common/InputError.hpp"

namespace ts {

std::optional<std::string> duration_problem(double ns, std::string_view what) {
  if (std::isfinite(ns) && ns >= 0 && ns <= kTraceDurationLimitNs) return std::nullopt;
  return fmt::format("{} {} ns: expected a finite duration in [0, {:g}] ns", what, ns,
                     kTraceDurationLimitNs);
}

std::optional<std::string> timestamp_problem(double ns, std::string_view what) {
  if (std::isfinite(ns) && std::fabs(ns) <= kTraceTimestampLimitNs) return std::nullopt;
  return fmt::format("{} {} ns: expected a finite time in [-{:g}, {:g}] ns", what, ns,
                     kTraceTimestampLimitNs, kTraceTimestampLimitNs);
}

}  // namespace ts
