#include "training/StrategyGridAxes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <tuple>
#include <type_traits>

#include "common/InputError.hpp"
#include "common/WorkLimits.hpp"

namespace ts {
namespace {

constexpr int64_t kMaxDegree = 65536;  // keeps tp x pp x dp and its kin far from overflow

std::vector<std::string> split_values(const std::string& text, size_t at) {
  std::vector<std::string> values;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    values.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return values;
}

std::vector<int64_t> degrees(const SourceLocation& where, const std::string& text,
                             const std::vector<std::string>& values) {
  std::vector<int64_t> out;
  for (const std::string& v : values) {
    int64_t d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec != std::errc() || end != v.data() + v.size() || d < 1 || d > kMaxDegree)
      throw InputError(
          where, fmt::format("'{}': '{}' is not a whole number from 1 to {}", text, v, kMaxDegree));
    out.push_back(d);
  }
  return out;
}

PipelineSchedule schedule_named(const SourceLocation& where, const std::string& text,
                                const std::string& v) {
  for (PipelineSchedule s :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved})
    if (to_string(s) == v) return s;
  throw InputError(where, fmt::format("'{}': unknown schedule '{}'; expected gpipe, 1f1b or "
                                      "interleaved",
                                      text, v));
}

}  // namespace

StrategyGridAxes parse_strategy_grid(const std::vector<std::string>& texts,
                                     const std::string& where_name, bool clusters) {
  const SourceLocation where{where_name, 0, 0};
  const std::string keys = clusters ? "tp, pp, dp, micro-batch (mbs), schedule or cluster"
                                    : "tp, pp, dp, micro-batch (mbs) or schedule";
  StrategyGridAxes axes;
  std::set<std::string> seen;
  for (const std::string& text : texts) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos)
      throw InputError(where, fmt::format("'{}': expected KEY=V1,V2,... with KEY {}", text, keys));
    std::string key = text.substr(0, eq);
    if (key == "mbs") key = "micro-batch";
    const std::vector<std::string> values = split_values(text, eq + 1);
    for (const std::string& v : values)
      if (v.empty()) throw InputError(where, fmt::format("'{}': an empty value", text));
    if (key == "tp")
      axes.tp = degrees(where, text, values);
    else if (key == "pp")
      axes.pp = degrees(where, text, values);
    else if (key == "dp")
      axes.dp = degrees(where, text, values);
    else if (key == "micro-batch")
      axes.micro_batch = degrees(where, text, values);
    else if (key == "schedule")
      for (const std::string& v : values) axes.schedule.push_back(schedule_named(where, text, v));
    else if (key == "cluster" && clusters)
      axes.cluster = values;
    else
      throw InputError(where, fmt::format("'{}': unknown key '{}'; expected {}", text,
                                          text.substr(0, eq), keys));
    if (!seen.insert(key).second)
      throw InputError(where, fmt::format("'{}': '{}' is given twice; give all its values in one "
                                          "KEY=V1,V2,...",
                                          text, key));
  }
  // The grid is every combination: bounded as an architecture sweep's is, before it is built.
  size_t combinations = 1;
  for (const size_t n : {axes.tp.size(), axes.pp.size(), axes.dp.size(), axes.micro_batch.size(),
                         axes.schedule.size(), axes.cluster.size()}) {
    combinations *= std::max<size_t>(n, 1);
    if (combinations > kMaxSweepPoints)
      throw InputError(where, fmt::format("the grid has more than {} combinations; expected at "
                                          "most that (docs/formats.md, \"Sizes\")",
                                          kMaxSweepPoints));
  }
  return axes;
}

std::vector<std::string> varied_grid_keys(const StrategyGridAxes& axes) {
  std::vector<std::string> keys;
  if (!axes.cluster.empty()) keys.push_back("cluster");
  if (!axes.dp.empty()) keys.push_back("dp");
  if (!axes.micro_batch.empty()) keys.push_back("micro-batch");
  if (!axes.pp.empty()) keys.push_back("pp");
  if (!axes.schedule.empty()) keys.push_back("schedule");
  if (!axes.tp.empty()) keys.push_back("tp");
  return keys;
}

StrategyGrid expand_strategy_grid(const TransformerModel& model, const ParallelStrategy& base,
                                  const StrategyGridAxes& axes) {
  const auto or_base = [](const auto& v, auto fallback) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    return v.empty() ? std::vector<T>{fallback} : v;
  };
  StrategyGrid grid;
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t, PipelineSchedule>> kept;
  for (int64_t tp : or_base(axes.tp, base.tp.value))
    for (int64_t pp : or_base(axes.pp, base.pp.value))
      for (int64_t dp : or_base(axes.dp, int64_t{0}))
        for (int64_t mbs : or_base(axes.micro_batch, base.micro_batch.value))
          for (PipelineSchedule schedule : or_base(axes.schedule, base.schedule.value)) {
            // dp not given: the base strategy's GPUs.
            if (dp == 0 && base.gpus() % (tp * pp) != 0) {
              ++grid.skipped;
              continue;
            }
            ParallelStrategy s = base;
            s.tp.value = tp;
            s.pp.value = pp;
            s.dp.value = dp > 0 ? dp : base.gpus() / (tp * pp);
            s.micro_batch.value = mbs;
            s.schedule.value = pp == 1 ? PipelineSchedule::one_f_one_b : schedule;
            s.chunks.value = s.schedule.value == PipelineSchedule::interleaved
                                 ? std::max<int64_t>(base.chunks.value, 2)
                                 : 1;
            s.name = fmt::format("{} tp{} pp{} dp{} mbs{} {}", base.name, tp, pp, s.dp.value, mbs,
                                 to_string(s.schedule.value));
            try {
              check_strategy_fits(s, model, s.gpus());
            } catch (const InputError&) {
              ++grid.skipped;
              continue;
            }
            if (s.schedule.value == PipelineSchedule::interleaved && s.micro_batches() % pp != 0) {
              ++grid.skipped;  // Megatron's interleaving needs whole groups of pp micro-batches
              continue;
            }
            if (kept.insert({tp, pp, s.dp.value, mbs, s.schedule.value}).second)
              grid.strategies.push_back(std::move(s));
          }
  return grid;
}

}  // namespace ts
