#pragma once
// Option values that several subcommands take, checked the same way everywhere: a bad value is
// an InputError naming the option (exit status 2).
#include <fmt/format.h>

#include <string>

#include "common/DataType.hpp"
#include "common/InputError.hpp"
#include "measure/MeasurementRecord.hpp"
#include "training/LayerTimes.hpp"

namespace ts::cli {

inline DataType data_type_option(const std::string& text) {
  const auto dtype = parse_data_type(text);
  if (!dtype)
    throw InputError(
        SourceLocation{"--dtype", 0, 0},
        fmt::format("unknown data type '{}'; expected one of: {}", text, data_type_names()));
  return *dtype;
}

inline TimingScope timing_scope_option(const std::string& text) {
  const auto scope = parse_timing_scope(text);
  if (!scope)
    throw InputError(SourceLocation{"--timing-scope", 0, 0},
                     fmt::format("unknown timing scope '{}'; expected device or host_call", text));
  return *scope;
}

// Core names an input by what it is ("grouping", "operator class"), for every face; on the
// command line it came from a flag, so an error about that input names the flag instead.
template <class Read>
auto read_option(const std::string& input, const std::string& flag, Read&& read)
    -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    if (e.where().file != input) throw;
    throw InputError(SourceLocation{flag, 0, 0}, e.message());
  }
}

// `--operator-times`: where the simulator takes each operator's time from.
inline OperatorTimeSource operator_times(const std::string& text) {
  return read_option("operator times", "--operator-times",
                     [&] { return parse_operator_time_source(text); });
}

}  // namespace ts::cli
