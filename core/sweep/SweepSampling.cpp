#include "sweep/SweepSampling.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <set>

#include "common/InputError.hpp"
#include "common/WorkLabel.hpp"

namespace ts {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): std::uniform_real_distribution and std::shuffle are
// implementation-defined, so they could give another rank built elsewhere other points.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // In [0, 1), from the top 53 bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // In [0, n); the modulo bias is below 2^-40 for the counts a sweep draws.
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }

 private:
  uint64_t state_;
};

double on_axis(const SweepAxis& axis, double unit) {
  const double v = axis.min() + unit * (axis.max() - axis.min());
  return is_count(axis.resolved.field) ? std::round(v) : v;
}

}  // namespace

SweepSampling parse_sweep_sampling(const std::string& text, uint64_t seed,
                                   const std::string& input) {
  SweepSampling s;
  s.seed = seed;
  if (text == "cross") return s;
  const size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string count = colon == std::string::npos ? "" : text.substr(colon + 1);
  size_t n = 0;
  const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
  const bool count_ok =
      !count.empty() && ec == std::errc() && end == count.data() + count.size() && n >= 1;
  if ((kind != "lhs" && kind != "random") || !count_ok)
    throw InputError(SourceLocation{input, 0, 0},
                     fmt::format("'{}' is no sampling; expected cross, lhs:N or random:N with N a "
                                 "whole number of points, at least 1",
                                 text));
  if (n > kMaxSweepPoints)
    throw InputError(SourceLocation{input, 0, 0},
                     fmt::format("'{}' asks for {} points; expected at most {} (docs/formats.md, "
                                 "\"Sizes\")",
                                 text, n, kMaxSweepPoints));
  s.kind = kind == "lhs" ? SweepSampling::Kind::latin_hypercube : SweepSampling::Kind::random;
  s.count = n;
  return s;
}

std::vector<SweepValues> sweep_points(const std::vector<SweepAxis>& axes,
                                      const SweepSampling& sampling, const std::string& input) {
  const WorkLabel work("the sweep's points");
  std::vector<SweepValues> points;
  if (axes.empty()) return points;
  if (sampling.kind == SweepSampling::Kind::cross) {
    // The last axis varies fastest, as nested loops in the order the axes were written.
    size_t total = 1;
    std::string sizes;
    for (const SweepAxis& a : axes) {
      sizes += (sizes.empty() ? "" : " x ") + std::to_string(a.values.size());
      // Checked at each axis, so that the product never wraps past the limit unseen.
      if (a.values.size() > kMaxSweepPoints || total * a.values.size() > kMaxSweepPoints)
        throw InputError(SourceLocation{input, 0, 0},
                         fmt::format("the axes' grid has more than {} points ({}{}); expected at "
                                     "most that: sample it (--sample lhs:N) or narrow an axis "
                                     "(docs/formats.md, \"Sizes\")",
                                     kMaxSweepPoints, sizes, &a == &axes.back() ? "" : " x ..."));
      total *= a.values.size();
    }
    points.reserve(total);
    for (size_t i = 0; i < total; ++i) {
      SweepValues p(axes.size());
      size_t rest = i;
      for (size_t k = axes.size(); k-- > 0;) {
        p[k] = axes[k].values[rest % axes[k].values.size()];
        rest /= axes[k].values.size();
      }
      points.push_back(std::move(p));
    }
    return points;
  }
  SplitMix64 rng(sampling.seed);
  const size_t n = sampling.count;
  std::vector<SweepValues> drawn(n, SweepValues(axes.size()));
  for (size_t k = 0; k < axes.size(); ++k) {
    if (sampling.kind == SweepSampling::Kind::random) {
      for (size_t i = 0; i < n; ++i) drawn[i][k] = on_axis(axes[k], rng.unit());
      continue;
    }
    // Latin hypercube: stratum s of N holds [s/N, (s+1)/N); a random permutation (Fisher-Yates)
    // gives each point its stratum on this axis, a draw its place inside it.
    std::vector<size_t> stratum(n);
    for (size_t i = 0; i < n; ++i) stratum[i] = i;
    for (size_t i = n; i-- > 1;) std::swap(stratum[i], stratum[rng.below(i + 1)]);
    for (size_t i = 0; i < n; ++i)
      drawn[i][k] =
          on_axis(axes[k], (static_cast<double>(stratum[i]) + rng.unit()) / static_cast<double>(n));
  }
  std::set<SweepValues> seen;
  for (SweepValues& p : drawn)
    if (seen.insert(p).second) points.push_back(std::move(p));
  return points;
}

}  // namespace ts
