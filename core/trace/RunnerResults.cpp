#include "trace/RunnerResults.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>

#include "common/InputError.hpp"
#include "trace/TraceInputLimits.hpp"

namespace ts {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw InputError(SourceLocation{file, line, 0}, what);
}

// nlohmann's message without its `[json.exception.type_error.316] ` prefix.
std::string reason(const json::exception& e) {
  const std::string what = e.what();
  const size_t end = what.find("] ");
  return end == std::string::npos ? what : what.substr(end + 2);
}

// How far a record's spread may be from (max - min) / median: hand-written files round it (0.08
// for 0.0800035, 0.03 for 0.0333); a spread past this is a record that contradicts itself.
constexpr double kSpreadAbsolute = 0.01, kSpreadRelative = 0.5;

struct Fields {
  const json& j;
  const std::string& file;
  int line;

  const json& get(const char* key) const {
    auto it = j.find(key);
    if (it == j.end()) fail(file, line, fmt::format("a {} record needs '{}'", kind(), key));
    return *it;
  }
  std::string kind() const { return text_or("record", "?"); }
  // An optional text, for messages only: `fallback` when absent or not a string.
  std::string text_or(const char* key, const char* fallback) const {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
  }
  std::string text(const char* key, bool required = true) const {
    if (!required && !j.contains(key)) return "";
    const json& v = get(key);
    if (!v.is_string()) fail(file, line, fmt::format("'{}': expected a string", key));
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& key) const {
    if (!v.is_number()) fail(file, line, fmt::format("'{}': expected a number", key));
    return v.get<double>();
  }
  double number(const char* key) const { return number(get(key), key); }
  // A count such as a line number or repetitions: a whole number that fits an int.
  int count(const char* key) const {
    const double v = number(key);
    if (!(v >= 0 && v <= std::numeric_limits<int>::max()) || v != std::floor(v))
      fail(file, line,
           fmt::format("'{}': expected a whole number from 0 to {}", key,
                       std::numeric_limits<int>::max()));
    return static_cast<int>(v);
  }
  RunnerTimes times(const char* key) const {
    const json& v = get(key);
    if (!v.is_object())
      fail(file, line, fmt::format("'{}': expected an object with min, median, max, spread", key));
    RunnerTimes t;
    for (auto [name, target] : {std::pair{"min", &t.min_ns}, std::pair{"median", &t.median_ns},
                                std::pair{"max", &t.max_ns}, std::pair{"spread", &t.spread}}) {
      auto it = v.find(name);
      if (it == v.end()) fail(file, line, fmt::format("'{}' needs '{}'", key, name));
      *target = number(*it, std::string(key) + "." + name);
    }
    if (!(t.median_ns > 0))
      fail(file, line, fmt::format("'{}.median': expected a positive time in ns", key));
    // The times every trace and record keeps (trace/TraceInputLimits.hpp), and what the runner's
    // statistics are by construction: min <= median <= max, spread = (max - min) / median >= 0
    // (to the rounding of a hand-written file). A record that contradicts itself is refused.
    for (auto [name, value] :
         {std::pair{"min", t.min_ns}, std::pair{"median", t.median_ns}, std::pair{"max", t.max_ns}})
      if (const auto problem = duration_problem(value, fmt::format("'{}.{}'", key, name)))
        fail(file, line, *problem);
    if (!(t.min_ns <= t.median_ns && t.median_ns <= t.max_ns))
      fail(file, line,
           fmt::format("'{}': min {}, median {}, max {}; expected min <= median <= max", key,
                       t.min_ns, t.median_ns, t.max_ns));
    const double spread = (t.max_ns - t.min_ns) / t.median_ns;
    if (!std::isfinite(t.spread) || t.spread < 0 ||
        std::fabs(t.spread - spread) > kSpreadAbsolute + kSpreadRelative * spread)
      fail(file, line,
           fmt::format("'{}.spread' is {}; expected (max - min) / median = {:.6g}", key, t.spread,
                       spread));
    return t;
  }
};

RunnerKernelRecord kernel_record(const Fields& f) {
  RunnerKernelRecord r;
  r.line = f.line;
  r.plan_line = f.count("plan_line");
  r.suite = f.text("suite");
  r.op = f.text("operator");
  r.type = f.text("type");
  r.steps = f.text("steps", false);
  r.shape = f.text("shape");
  r.dtype = f.text("dtype");
  r.implementation = f.text("implementation");
  r.mapping_hash = f.text("mapping_hash", false);
  r.mapping_name = f.text("mapping_name", false);
  r.spec = f.text("spec");
  r.mapping_yaml = f.text("mapping_yaml", false);
  if (!r.mapping_hash.empty() && r.mapping_yaml.empty())
    fail(f.file, f.line, "a record with a mapping_hash needs its mapping_yaml");
  r.block = f.text("block", false);
  r.warp = f.text("warp", false);
  r.l2 = f.text("l2", false);
  r.algorithm = f.text("algorithm", false);
  r.kernel_names = f.text("kernel_names", false);
  r.device_name = f.text("device", false);
  r.repetitions = f.count("repetitions");
  r.device = f.times("device_ns");
  r.host_call = f.times("host_call_ns");
  const json& check = f.get("check");
  if (!check.is_object() || !check.contains("passed") || !check["passed"].is_boolean())
    fail(f.file, f.line, "'check': expected an object with a boolean 'passed'");
  r.checked = check["passed"].get<bool>();
  // The check's verdict is max_error <= tolerance (collectors/cupti/DeviceJob.hpp); the runner
  // writes an error that is not a number (NaN, infinite) as null, which never passes. A verdict
  // that contradicts its own figures is refused, never stored as checked.
  std::optional<double> max_error, tolerance;
  for (auto [name, into] :
       {std::pair{"max_error", &max_error}, std::pair{"tolerance", &tolerance}}) {
    if (!check.contains(name)) continue;
    const json& v = check[name];
    if (v.is_null() && std::string_view(name) == "max_error") {
      *into = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const double value = f.number(v, std::string("check.") + name);
    if (!std::isfinite(value) || value < 0)
      fail(f.file, f.line,
           fmt::format("'check.{}' is {}; expected a finite number >= 0", name, value));
    *into = value;
  }
  if (max_error && std::isfinite(*max_error)) r.max_error = *max_error;
  if (max_error && tolerance && r.checked != (*max_error <= *tolerance))
    fail(f.file, f.line,
         fmt::format("'check.passed' is {} with max_error {} and tolerance {}; expected passed to "
                     "be max_error <= tolerance",
                     r.checked, *max_error, *tolerance));
  if (max_error && std::isnan(*max_error) && r.checked)
    fail(f.file, f.line,
         "'check.passed' is true with max_error null (not a number); expected passed to be "
         "max_error <= tolerance");
  return r;
}

}  // namespace

RunnerResults parse_runner_results(const std::string& text, const std::string& file_name) {
  RunnerResults out;
  out.file = file_name;
  out.run_device_json = "{}";
  std::istringstream in(text);
  std::string line_text;
  int line = 0;
  size_t records = 0;
  bool seen_run = false;
  while (std::getline(in, line_text)) {
    ++line;
    if (line_text.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (++records > kRunnerRecordLimit)
      fail(file_name, line,
           fmt::format("more than {} records; expected at most {} in one file (split the plan)",
                       kRunnerRecordLimit, kRunnerRecordLimit));
    json j;
    try {
      j = json::parse(line_text);
    } catch (const json::parse_error& e) {
      fail(file_name, line,
           fmt::format("not a JSON object (byte {}): expected one record per line as the "
                       "runner writes them",
                       e.byte));
    } catch (const json::exception& e) {
      // A number past a double, such as 1e309 (out_of_range.406).
      fail(file_name, line, fmt::format("{}; expected numbers a double can hold", reason(e)));
    }
    try {
      if (!j.is_object()) fail(file_name, line, "expected a JSON object");
      const Fields f{j, file_name, line};
      if (!j.contains("runner_version") || !j["runner_version"].is_number_integer())
        fail(file_name, line, "a record needs an integer 'runner_version'");
      const int64_t version = j["runner_version"].get<int64_t>();
      if (version > kRunnerResultsVersion || version < 1)
        fail(file_name, line,
             fmt::format("record of runner version {}; this tilescope reads versions 1 to {} "
                         "(update tilescope)",
                         version, kRunnerResultsVersion));
      const std::string kind = f.text("record");
      if (kind == "run") {
        if (!seen_run && j.contains("device") && j["device"].is_object())
          out.run_device_json = j["device"].dump();
        seen_run = true;
      } else if (kind == "kernel") {
        out.kernels.push_back(kernel_record(f));
      } else if (kind == "calibration") {
        RunnerCalibrationRecord c;
        c.line = line;
        c.figure = f.text("figure");
        if (c.figure == "device") {
          const json& p = f.get("properties");
          if (!p.is_object()) fail(file_name, line, "'properties': expected an object");
          c.properties_json = p.dump();
        } else {
          c.value = f.number("value");
          c.unit = f.text("unit");
          c.method = f.text("method", false);
          // A sweep point says what it ran (block, warp tile, warps) in its properties.
          if (f.j.contains("properties")) {
            const json& p = f.get("properties");
            if (!p.is_object()) fail(file_name, line, "'properties': expected an object");
            c.properties_json = p.dump();
          }
          if (!(c.value > 0) || !std::isfinite(c.value))
            fail(file_name, line,
                 fmt::format("'value' of {}: expected a positive number", c.figure));
        }
        out.calibration.push_back(std::move(c));
      } else if (kind == "error") {
        out.job_errors.push_back(
            fmt::format("{}:{}: {} {}: {}", file_name, line, f.text_or("operator", "?"),
                        f.text_or("implementation", "?"), f.text_or("message", "?")));
      } else {
        fail(file_name, line,
             fmt::format("unknown record '{}': expected run, kernel, calibration or error", kind));
      }
    } catch (const json::exception& e) {
      // A value of a type no check above expected, or text that is not UTF-8 when an object is
      // written back as JSON (type_error.316).
      fail(file_name, line,
           fmt::format("{}; expected a record as the runner writes it", reason(e)));
    }
  }
  return out;
}

RunnerResults read_runner_results(const std::string& path) {
  return parse_runner_results(
      read_bounded_text(path, kWholeFileByteLimit, "the runner's results (JSON lines)",
                        kTraceLimitsSection),
      path);
}

}  // namespace ts
