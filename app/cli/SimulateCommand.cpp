// `tilescope simulate --model M --strategy S --cluster C`: one training iteration, simulated
// (core/training/TrainingSimulation.hpp says what the engine models so far).
#include "SimulateCommand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "OptionValues.hpp"
#include "StopOnInterrupt.hpp"
#include "TerminalProgress.hpp"
#include "common/AtomicFile.hpp"
#include "common/QuantityFormat.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/SearchConvergence.hpp"
#include "training/SimulationJson.hpp"
#include "training/StrategySweep.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts::cli {
namespace {

int run_sweep(const SimulateOptions& a, const TransformerModel& model, const ParallelStrategy& base,
              const Cluster& cluster) {
  const StrategyGridAxes axes = read_option("strategy sweep", "--sweep", [&] {
    return parse_strategy_grid(a.sweep, "strategy sweep", /*clusters=*/false);
  });
  // Each point is a whole simulation (seconds with the mapper on large models): progress on
  // stderr, and Ctrl-C ranks the points done so far instead of losing them.
  StopOnInterrupt stop;
  TerminalProgress progress("simulate --sweep");
  size_t done = 0, total = 0;
  const std::vector<SweepPoint> points =
      sweep_strategies(model, base, cluster, axes, operator_times(a.operator_times),
                       [&](size_t d, size_t t, const ParallelStrategy& s) {
                         done = d;
                         total = t;
                         progress.show_count(d, t, s.name);
                         return !StopOnInterrupt::requested();
                       });
  progress.clear();
  const bool stopped = done < total;
  if (stopped)
    std::cerr << fmt::format(
        "stopped after {} of {} strategies (interrupted): the ranking "
        "holds those\n",
        done, total);
  if (a.format == "json") {
    std::cout << sweep_json(model, points) << "\n";
    return stopped ? 130 : 0;
  }
  // Points that run out of memory are not valid strategies: they come after the others (the
  // sweep ranks them so) under their own heading, and are not counted.
  const auto valid = static_cast<size_t>(std::count_if(
      points.begin(), points.end(), [](const SweepPoint& p) { return !p.result.out_of_memory; }));
  const double gib = 1024.0 * 1024 * 1024;
  std::cout << fmt::format("{} on {} GPUs of {}: {} valid strategies, fastest first\n", model.name,
                           base.gpus(), cluster.name, valid);
  const std::string header =
      fmt::format("{:>4} {:>4} {:>4} {:>4} {:>12} {:>12} {:>7} {:>11}\n", "tp", "pp", "dp", "mbs",
                  "iteration_s", "tokens/s", "MFU", "memory_GiB");
  std::cout << header;
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (i == valid)
      std::cout << fmt::format(
                       "{} out of memory (not valid: peak memory above the device's {:.2f} GiB), "
                       "fastest first\n",
                       points.size() - valid, p.result.device_memory_bytes / gib)
                << header;
    std::cout << fmt::format(
        "{:>4} {:>4} {:>4} {:>4} {:>12.3f} {:>12.0f} {:>6.1f}% {:>11.2f}{}\n", p.strategy.tp.value,
        p.strategy.pp.value, p.strategy.dp.value, p.strategy.micro_batch.value,
        p.result.iteration_s, p.result.tokens_per_s, p.result.mfu * 100,
        p.result.peak_memory_bytes / gib, p.result.out_of_memory ? "  OUT OF MEMORY" : "");
  }
  return stopped ? 130 : 0;  // as `sweep` does when interrupted
}

}  // namespace

int run_simulate(const SimulateOptions& a) {
  const TransformerModel model = load_transformer_model(a.model);
  const ParallelStrategy strategy = load_parallel_strategy(a.strategy);
  const Cluster cluster = load_cluster(a.cluster);
  if (!a.sweep.empty()) return run_sweep(a, model, strategy, cluster);
  SimulationOptions options;
  options.exploit_symmetry = !a.every_replica;
  const TrainingSimulation r =
      simulate_training(model, strategy, cluster, operator_times(a.operator_times), options);
  const std::string trace = simulation_trace_json(r, strategy.pp.value);
  if (!a.timeline.empty()) write_file_atomically(a.timeline, trace);
  if (!a.out.empty())
    write_file_atomically(a.out, simulation_file_json(model, strategy, cluster, r, trace));
  // Once the outputs are written (an error stays one line). Operator times come from the mapper
  // at its default budget; simulate has no --budget, so the way to a larger one is predict's.
  std::cerr << unconverged_warning(r.unconverged.operators, MapperOptions{}.budget,
                                   "tilescope predict --budget");
  if (a.format == "json") {
    std::cout << simulation_summary_json(model, strategy, cluster, r) << "\n";
    return 0;
  }
  const double gib = 1024.0 * 1024 * 1024;
  std::cout << fmt::format("{} with {} on {} ({} of {} GPUs)\n", model.name, strategy.name,
                           cluster.name, strategy.gpus(), cluster.gpus());
  std::cout << fmt::format("iteration        {:.3f} s\n", r.iteration_s);
  std::cout << fmt::format("tokens/s         {:.0f}\n", r.tokens_per_s);
  std::cout << fmt::format("MFU / HFU        {:.1f} % / {:.1f} % of {} per GPU (datasheet peak)\n",
                           r.mfu * 100, r.hfu * 100,
                           format_quantity(r.peak_flops_per_gpu, "FLOP/s"));
  std::cout << fmt::format("pipeline bubble  {:.1f} % of busy time\n", r.bubble_fraction * 100);
  std::cout << fmt::format("model state      {:.2f} GiB per GPU (weights, gradients, optimizer)\n",
                           r.model_state_bytes / gib);
  std::cout << fmt::format("activations      {:.2f} GiB per GPU (first pipeline stage)\n",
                           r.activation_bytes / gib);
  std::cout << fmt::format("peak memory      {:.2f} GiB per GPU (over the iteration as run)\n",
                           r.peak_memory_bytes / gib);
  if (r.out_of_memory)
    std::cout << fmt::format("OUT OF MEMORY    {:.2f} GiB needed, the device has {:.2f} GiB\n",
                             r.peak_memory_bytes / gib, r.device_memory_bytes / gib);
  std::cout << "where the time goes (one pipeline device)\n";
  for (const TimeShare& t : r.breakdown)
    std::cout << fmt::format("  {:<32} {:9.3f} s\n", t.what, t.seconds);
  return 0;
}

}  // namespace ts::cli
