#include "measure/MeasurementRecord.hpp"

#include <fmt/format.h>

namespace ts {

std::string_view to_string(TimingScope scope) {
  return scope == TimingScope::device ? "device" : "host_call";
}

std::optional<TimingScope> parse_timing_scope(std::string_view text) {
  if (text == "device") return TimingScope::device;
  if (text == "host_call") return TimingScope::host_call;
  return std::nullopt;
}

std::string_view to_string(RunStatus status) {
  switch (status) {
    case RunStatus::incomplete:
      return "incomplete";
    case RunStatus::complete:
      return "complete";
    case RunStatus::cancelled:
      return "cancelled";
  }
  return "incomplete";
}

std::string hash_text(uint64_t hash) { return fmt::format("{:016x}", hash); }

}  // namespace ts
