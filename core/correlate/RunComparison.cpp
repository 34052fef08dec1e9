#include "correlate/RunComparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace ts {

namespace {

std::string key_of(const ComparedPoint& p) {
  return p.suite + "/" + p.op_name + " " + p.shape + " [" + p.mapping + ", " +
         std::string(to_string(p.scope)) + "]";
}

std::map<std::string, const ComparedPoint*> index(const std::vector<ComparedPoint>& points) {
  std::map<std::string, const ComparedPoint*> out;
  for (const ComparedPoint& p : points) out.emplace(key_of(p), &p);  // the first one wins
  return out;
}

double log_error(const ComparedPoint& p) {
  if (!(p.predicted_s > 0) || !std::isfinite(p.predicted_s) || !(p.measured_s > 0)) return INFINITY;
  return std::log(p.predicted_s / p.measured_s);
}

}  // namespace

RunComparison compare_runs(const std::vector<ComparedPoint>& before,
                           const std::vector<ComparedPoint>& after) {
  RunComparison c;
  const auto a = index(before), b = index(after);
  std::vector<double> pa, ma, pb, mb;
  for (const auto& [key, p] : a) {
    const auto it = b.find(key);
    if (it == b.end()) {
      c.only_before.push_back(key);
      continue;
    }
    const ComparedPoint* q = it->second;
    OperatorDelta d;
    d.op = key;
    d.before = p;
    d.after = q;
    d.log_error_before = log_error(*p);
    d.log_error_after = log_error(*q);
    d.worse_by = std::abs(d.log_error_after) - std::abs(d.log_error_before);
    if (!std::isfinite(d.worse_by))
      d.worse_by = std::isfinite(d.log_error_after) ? -INFINITY : INFINITY;
    d.measured_change = p->measured_s > 0 ? q->measured_s / p->measured_s - 1 : 0;
    d.predicted_change = p->predicted_s > 0 ? q->predicted_s / p->predicted_s - 1 : 0;
    c.matched.push_back(d);
    pa.push_back(p->predicted_s);
    ma.push_back(p->measured_s);
    pb.push_back(q->predicted_s);
    mb.push_back(q->measured_s);
  }
  for (const auto& [key, q] : b)
    if (!a.count(key)) c.only_after.push_back(key);
  c.before = agreement(pa, ma);
  c.after = agreement(pb, mb);
  // Worse first; among equals, larger changes in what was measured, then by name, so the order
  // is the same on every machine.
  std::stable_sort(
      c.matched.begin(), c.matched.end(), [](const OperatorDelta& x, const OperatorDelta& y) {
        if (x.worse_by != y.worse_by) return x.worse_by > y.worse_by;
        const double cx = std::abs(x.measured_change), cy = std::abs(y.measured_change);
        if (cx != cy) return cx > cy;
        return x.op < y.op;
      });
  return c;
}

std::string nothing_in_common_text(const RunComparison& c, const std::string& before,
                                   const std::string& after) {
  if (!c.matched.empty()) return {};
  return fmt::format(
      "no operator in common between {} ({} operators) and {} ({} operators): the comparison's "
      "figures are n/a",
      before, c.only_before.size(), after, c.only_after.size());
}

}  // namespace ts
