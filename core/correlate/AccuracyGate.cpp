#include "correlate/AccuracyGate.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>

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
  if (percent) {
    if (g.metric != "mape") fail(text, "only mape takes a percentage");
    g.threshold /= 100;
  }
  return g;
}

double gate_figure(const AccuracyGate& g, const AgreementStats& s) {
  if (g.metric == "mape") return s.mape;
  if (g.metric == "log_rmse") return s.log_rmse;
  if (g.metric == "pearson") return s.pearson;
  if (g.metric == "spearman") return s.spearman;
  return s.kendall;
}

bool gate_crossed(const AccuracyGate& g, const AgreementStats& s) {
  const double x = gate_figure(g, s);
  if (g.op == ">") return x > g.threshold;
  if (g.op == ">=") return x >= g.threshold;
  if (g.op == "<") return x < g.threshold;
  return x <= g.threshold;
}

std::vector<std::string> crossed_gates(const std::vector<AccuracyGate>& gates,
                                       const AgreementStats& stats) {
  std::vector<std::string> out;
  for (const AccuracyGate& g : gates)
    if (gate_crossed(g, stats))
      out.push_back(
          fmt::format("{} {:.4f} {} {}", g.metric, gate_figure(g, stats), g.op, g.threshold));
  return out;
}

}  // namespace ts
