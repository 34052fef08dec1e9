#include "training/StrategySweep.hpp"

#include <algorithm>
#include <charconv>

namespace ts {

SweepAxes parse_sweep_axes(const std::vector<std::string>& texts) {
  SweepAxes axes;
  for (const std::string& text : texts) {
    const SourceLocation where{"strategy sweep", 0, 0};
    const size_t eq = text.find('=');
    if (eq == std::string::npos)
      throw InputError(where, "'" + text + "': expected AXIS=V1,V2,... with AXIS tp, pp or mbs");
    const std::string axis = text.substr(0, eq);
    std::vector<int64_t>* values = axis == "tp"    ? &axes.tp
                                   : axis == "pp"  ? &axes.pp
                                   : axis == "mbs" ? &axes.micro_batch
                                                   : nullptr;
    if (!values)
      throw InputError(where,
                       "'" + text + "': unknown axis '" + axis + "'; expected tp, pp or mbs");
    size_t at = eq + 1;
    while (at <= text.size()) {
      const size_t comma = std::min(text.find(',', at), text.size());
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(text.data() + at, text.data() + comma, v);
      if (ec != std::errc() || end != text.data() + comma || v <= 0)
        throw InputError(where, "'" + text + "': '" + text.substr(at, comma - at) +
                                    "' is not a positive integer");
      values->push_back(v);
      at = comma + 1;
    }
  }
  return axes;
}

std::vector<SweepPoint> sweep_strategies(const TransformerModel& model,
                                         const ParallelStrategy& base, const Cluster& cluster,
                                         const SweepAxes& axes, const OperatorTimeSource& times,
                                         const StrategySweepProgress& progress) {
  auto or_base = [](const std::vector<int64_t>& v, int64_t fallback) {
    return v.empty() ? std::vector<int64_t>{fallback} : v;
  };
  const int64_t gpus = base.gpus();
  // The valid points first (cheap checks), so that progress can say how many there are.
  std::vector<ParallelStrategy> grid;
  for (int64_t tp : or_base(axes.tp, base.tp.value))
    for (int64_t pp : or_base(axes.pp, base.pp.value))
      for (int64_t mbs : or_base(axes.micro_batch, base.micro_batch.value)) {
        if (gpus % (tp * pp) != 0) continue;
        ParallelStrategy s = base;
        s.tp.value = tp;
        s.pp.value = pp;
        s.dp.value = gpus / (tp * pp);
        s.micro_batch.value = mbs;
        if (pp == 1) {
          s.schedule.value = PipelineSchedule::one_f_one_b;
          s.chunks.value = 1;
        }
        s.name = base.name + " tp" + std::to_string(tp) + " pp" + std::to_string(pp) + " mbs" +
                 std::to_string(mbs);
        try {
          check_strategy_fits(s, model, gpus);
        } catch (const InputError&) {
          continue;  // not a valid point of the grid
        }
        if (s.schedule.value == PipelineSchedule::interleaved && s.chunks.value > 1 &&
            s.micro_batches() % pp != 0)
          continue;  // Megatron's interleaving needs whole groups of p micro-batches
        grid.push_back(std::move(s));
      }
  std::vector<SweepPoint> points;
  size_t done = 0;
  for (const ParallelStrategy& s : grid) {
    try {
      points.push_back({s, simulate_training(model, s, cluster, times)});
    } catch (const InputError&) {
      // not a valid point of the grid
    }
    if (progress && !progress(++done, grid.size(), s)) break;
  }
  std::stable_sort(points.begin(), points.end(), [](const SweepPoint& a, const SweepPoint& b) {
    if (a.result.out_of_memory != b.result.out_of_memory) return !a.result.out_of_memory;
    return a.result.iteration_s < b.result.iteration_s;
  });
  return points;
}

}  // namespace ts
