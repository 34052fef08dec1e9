#include "trace/TraceTimeCoverage.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "common/QuantityFormat.hpp"
#include "trace/RankTrace.hpp"

namespace ts {
namespace {

std::string_view reason_of(KernelFate fate) {
  switch (fate) {
    case KernelFate::measured:
      return "stored";
    case KernelFate::lacks_shapes:
      return "lack shapes";
    case KernelFate::operator_unmodelled:
      return "operator not modelled";
    case KernelFate::name_only:
      return "no operator in the trace";
    case KernelFate::unmatched:
      return "unmatched";
  }
  return "unmatched";
}

// As the rest of `tilescope trace` prints times: three significant figures, a prefix.
std::string us_text(double ns) {
  return ns == 0 ? std::string("0 s") : format_quantity(ns * 1e-9, "s");
}

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : "n/a";
}

}  // namespace

TraceTimeCoverage trace_time_coverage(const TraceEvents& events, const ResolvedTrace& resolved,
                                      const KernelNameRules& rules) {
  TraceTimeCoverage out;
  std::unordered_map<std::string, std::string> class_of_name;  // kernels not stored
  for (size_t k = 0; k < events.kernels.size(); ++k) {
    const TraceKernel& kernel = events.kernels[k];
    const double ns = kernel.duration_ns;
    const KernelFate fate = resolved.kernel_fate[k];
    std::string cls;
    if (fate == KernelFate::measured) {
      cls = std::string(to_string(
          resolved.operators[static_cast<size_t>(resolved.kernel_operator[k])].primary_class()));
    } else {
      const std::string& name = kernel_name(events, kernel);
      auto it = class_of_name.find(name);
      if (it == class_of_name.end()) {
        std::string c = "other";
        if (classify_gpu_activity(GpuActivityKind::kernel, name) == GpuTimeClass::communication)
          c = "communication";
        else if (const std::optional<KernelClass> kc = rules.classify(name))
          c = std::string(to_string(*kc));
        it = class_of_name.emplace(name, std::move(c)).first;
      }
      cls = it->second;
      out.left_out_ns[std::string(reason_of(fate))] += ns;
    }
    TraceTimeCoverage::ClassTime& t = out.classes[cls];
    t.total_ns += ns;
    out.total_ns += ns;
    if (fate == KernelFate::measured) {
      t.stored_ns += ns;
      out.stored_ns += ns;
    }
  }
  return out;
}

std::string coverage_text(const TraceTimeCoverage& c) {
  std::string classes;
  for (const auto& [name, t] : c.classes)
    classes += fmt::format("{}{} {} of {}", classes.empty() ? "" : ", ", name, us_text(t.stored_ns),
                           us_text(t.total_ns));
  std::string left;
  for (const auto& [why, ns] : c.left_out_ns)
    left += fmt::format("{}{} {} ({})", left.empty() ? "" : ", ", us_text(ns), why,
                        percent(ns, c.total_ns));
  return fmt::format("coverage by time: {} of {} of kernel time stored ({}): {}{}",
                     us_text(c.stored_ns), us_text(c.total_ns), percent(c.stored_ns, c.total_ns),
                     classes.empty() ? "no kernels" : classes,
                     left.empty() ? std::string() : "; left out: " + left);
}

nlohmann::json coverage_json(const TraceTimeCoverage& c) {
  nlohmann::json classes = nlohmann::json::object();
  for (const auto& [name, t] : c.classes)
    classes[name] = {{"total_us", t.total_ns / 1000.0}, {"stored_us", t.stored_ns / 1000.0}};
  nlohmann::json left = nlohmann::json::object();
  for (const auto& [why, ns] : c.left_out_ns) left[why] = ns / 1000.0;
  return {{"total_us", c.total_ns / 1000.0},
          {"stored_us", c.stored_ns / 1000.0},
          {"classes", classes},
          {"left_out_us", left}};
}

std::optional<TraceTimeCoverage> coverage_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("total_us") || !j["total_us"].is_number()) return std::nullopt;
  TraceTimeCoverage c;
  c.total_ns = j["total_us"].get<double>() * 1000.0;
  c.stored_ns = j.value("stored_us", 0.0) * 1000.0;
  if (const auto it = j.find("classes"); it != j.end() && it->is_object())
    for (const auto& [name, t] : it->items())
      if (t.is_object())
        c.classes[name] = {t.value("total_us", 0.0) * 1000.0, t.value("stored_us", 0.0) * 1000.0};
  if (const auto it = j.find("left_out_us"); it != j.end() && it->is_object())
    for (const auto& [why, us] : it->items())
      if (us.is_number()) c.left_out_ns[why] = us.get<double>() * 1000.0;
  return c;
}

}  // namespace ts
