#include "correlate/AccuracyGate.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

#include "common/InputError.hpp"

namespace ts {

namespace {

constexpr std::array<const char*, 5> kMetrics{"mape", "log_rmse", "pearson", "spearman", "kendall"};

[[noreturn]] void fail(const std::string& text, const std::string& why) {
  throw InputError(SourceLocation{"accuracy gate", 0, 0},
                   fmt::format("cannot read '{}': {}; expected METRIC OP NUMBER such as "
                               "mape>0.10 or spearman<0.95 (metrics: mape, log_rmse, pearson, "
                               "spearman, kendall; operators: > >= < <=)",
                               text, why));
}

std::string strip(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

}  // namespace

AccuracyGate parse_accuracy_gate(const std::string& text) {
  AccuracyGate g;
  g.text = text;
  const size_t at = text.find_first_of("<>");
  if (at == std::string::npos) fail(text, "no comparison");
  g.metric = strip(text.substr(0, at));
  for (char& c : g.metric) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool known = false;
  for (const char* m : kMetrics) known = known || g.metric == m;
  if (!known) fail(text, g.metric.empty() ? "no metric" : "unknown metric '" + g.metric + "'");
  size_t rest = at + 1;
  g.op = text.substr(at, 1);
  if (rest < text.size() && text[rest] == '=') {
    g.op += "=";
    ++rest;
  }
  std::string number = strip(text.substr(rest));
  bool percent = false;
  if (!number.empty() && number.back() == '%') {
    percent = true;
    number = strip(number.substr(0, number.size() - 1));
  }
  const char* first = number.data();
  const char* last = number.data() + number.size();
  const auto [end, ec] = std::from_chars(first, last, g.threshold);
  if (number.empty() || ec != std::errc() || end != last)
    fail(text, number.empty() ? "no threshold" : "'" + number + "' is not a number");
  // from_chars reads "nan" and "inf": a gate on them could never fire (every comparison with NaN
  // is false) or would always fire.
  if (!std::isfinite(g.threshold)) fail(text, "'" + number + "' is not a finite number");
  if (percent) {
    if (g.metric != "mape") fail(text, "only mape takes a percentage");
    g.threshold /= 100;
  }
  return g;
}

std::optional<double> gate_figure(const AccuracyGate& g, const AgreementStats& s) {
  if (g.metric == "mape") return s.mape;
  if (g.metric == "log_rmse") return s.log_rmse;
  if (g.metric == "pearson") return s.pearson;
  if (g.metric == "spearman") return s.spearman;
  return s.kendall;
}

const char* gate_result_text(GateResult result) {
  switch (result) {
    case GateResult::passed:
      return "passed";
    case GateResult::crossed:
      return "crossed";
    case GateResult::not_checked:
      break;
  }
  return "not_checked";
}

GateVerdict judge_gate(const AccuracyGate& g, const AgreementStats& s,
                       const std::string& no_points) {
  GateVerdict v;
  v.gate = g;
  v.figure = gate_figure(g, s);
  if (!v.figure) {
    // Why the figure has no value: the only ways Statistics.hpp leaves one out.
    if (s.count == 0)
      v.why_not_checked = fmt::format("{} over {}", g.metric, no_points);
    else if (s.count < 2)
      v.why_not_checked =
          fmt::format("{} needs 2 points or more and there is {}", g.metric, s.count);
    else
      v.why_not_checked = fmt::format(
          "{} is undefined: the predicted or the measured latencies are all equal", g.metric);
    return v;
  }
  const double x = *v.figure;
  bool crossed = false;
  if (g.op == ">")
    crossed = x > g.threshold;
  else if (g.op == ">=")
    crossed = x >= g.threshold;
  else if (g.op == "<")
    crossed = x < g.threshold;
  else
    crossed = x <= g.threshold;
  v.result = crossed ? GateResult::crossed : GateResult::passed;
  return v;
}

std::vector<GateVerdict> judge_gates(const std::vector<AccuracyGate>& gates,
                                     const AgreementStats& stats, const std::string& no_points) {
  std::vector<GateVerdict> out;
  for (const AccuracyGate& g : gates) out.push_back(judge_gate(g, stats, no_points));
  return out;
}

std::string crossed_gate_text(const GateVerdict& v) {
  return fmt::format("{} {:.4f} {} {}", v.gate.metric, v.figure.value_or(0), v.gate.op,
                     v.gate.threshold);
}

void refuse_unchecked_gates(const std::vector<GateVerdict>& verdicts) {
  const GateVerdict* first = nullptr;
  size_t unchecked = 0;
  for (const GateVerdict& v : verdicts)
    if (v.result == GateResult::not_checked) {
      if (!first) first = &v;
      ++unchecked;
    }
  if (!first) return;
  std::string more;
  if (unchecked > 1)
    more =
        fmt::format(" (and {} more gate{} not checked)", unchecked - 1, unchecked > 2 ? "s" : "");
  throw InputError(
      SourceLocation{"accuracy gate", 0, 0},
      fmt::format("'{}' not checked: {}{}", first->gate.text, first->why_not_checked, more));
}

}  // namespace ts
