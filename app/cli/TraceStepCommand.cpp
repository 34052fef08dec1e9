#include "TraceStepCommand.hpp"

#include <fmt/format.h>

#include <iostream>

#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/QuantityFormat.hpp"
#include "profile/ArchitectureReference.hpp"
#include "trace/TraceStepPrediction.hpp"

namespace ts::cli {
namespace {

std::string time_text(double ns) { return format_quantity(ns * 1e-9, "s"); }

std::string percent(double part, double whole) {
  return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : "-";
}

std::string signed_percent(double value, double reference) {
  return reference > 0 ? fmt::format("{:+.1f} %", 100.0 * (value / reference - 1)) : "-";
}

std::string step_name(const TraceStepPrediction& p) {
  return p.window.step >= 0 ? fmt::format("ProfilerStep#{}", p.window.step) : "the whole trace";
}

void print_step(const TraceStepPrediction& p, size_t top) {
  std::cout << fmt::format("{} of {}{}\n", step_name(p), p.file,
                           p.device_name.empty() ? "" : " (" + p.device_name + ")");
  std::cout << fmt::format("{:<22} {:>12} {:>20} {:>20} {:>20}\n", "", "measured", "predicted here",
                           "predicted there", "there by ratio");
  std::cout << fmt::format("{:<22} {:>12} {:>20} {:>20} {:>20}\n", "", "(trace)", p.here, p.there,
                           "(there / here)");
  std::cout << fmt::format("{:<22} {:>12} {:>20} {:>20} {:>20}\n", "step time",
                           time_text(p.wall_ns), time_text(p.predicted_here_wall_ns()),
                           time_text(p.predicted_there_wall_ns()),
                           time_text(p.there_by_ratio_wall_ns()));
  std::cout << fmt::format("{:<22} {:>12} {:>20} {:>20} {:>20}\n", "  modelled operators",
                           time_text(p.modelled_ns), time_text(p.here_ns), time_text(p.there_ns),
                           time_text(p.there_by_ratio_ns));
  std::cout << fmt::format("{:<22} {:>12} {:>20} {:>20} {:>20}\n", "  carried over",
                           time_text(p.carried_ns()), "as measured", "as measured", "as measured");
  std::cout << fmt::format(
      "predicted here is {} from the measured step: the model's error on the chip the trace came "
      "from\n",
      signed_percent(p.predicted_here_wall_ns(), p.wall_ns));
  std::cout << fmt::format(
      "carried over: {} of the step ({}) is time no modelled operator ran (kernels not modelled, "
      "idle, overlap), assumed the same there\n",
      time_text(p.carried_ns()), percent(p.carried_ns(), p.wall_ns));
  std::cout << coverage_text(p.coverage) << "\n";
  std::cout << fmt::format("\n{:>12} {:>12} {:>12} {:>6}  {:<11} operator\n", "measured", "here",
                           "there", "runs", "class");
  size_t shown = 0;
  for (const StepOperatorPrediction& o : p.operators) {
    if (shown++ == top) break;
    std::cout << fmt::format("{:>12} {:>12} {:>12} {:>6}  {:<11} {} {}\n", time_text(o.measured_ns),
                             o.here_ns ? time_text(*o.here_ns) : "-",
                             o.there_ns ? time_text(*o.there_ns) : "-", o.runs, o.op_class, o.name,
                             o.shape);
  }
  if (p.operators.size() > top)
    std::cout << fmt::format("({} more operators; --top N)\n", p.operators.size() - top);
  if (!p.notes.empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& n : p.notes) std::cout << "  " << n << "\n";
  }
}

}  // namespace

int run_trace_step(const TraceStepOptions& a) {
  const std::string here_file = resolve_architecture_option(a.here);
  const std::string there_file = resolve_architecture_option(a.there);
  const ArchitectureGraph here = load_architecture(here_file);
  const ArchitectureGraph there = load_architecture(there_file);
  MapperOptions mapper;
  mapper.budget = a.budget;
  TerminalProgress progress("trace predict");
  const TraceStepPrediction p =
      predict_trace_step(a.trace, here, there, a.step, mapper, [&](size_t done, size_t total) {
        progress.show_count(done, total, fmt::format("predicting {}/{}", done, total));
      });
  progress.clear();
  if (a.format == "json")
    std::cout << trace_step_prediction_json(p).dump(2) << "\n";
  else
    print_step(p, a.top);
  return 0;
}

}  // namespace ts::cli
