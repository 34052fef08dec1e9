#include "correlate/LeaveOneGraphOut.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <regex>

#include "analysis/Roofline.hpp"
#include "measure/ComparedTime.hpp"

namespace ts {
namespace {

struct Sums {
  size_t count = 0;
  double model = 0, training = 0, roofline = 0, roofline_launch = 0;
  size_t named = 0, agreeing = 0;
};

double ape(double predicted, double measured) {
  if (!(predicted > 0) || !std::isfinite(predicted)) return 1.0;  // a failed prediction: 100 %
  return std::abs(predicted - measured) / measured;
}

}  // namespace

std::string kernel_tile(const std::string& name) {
  static const std::regex tile(R"((\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_search(name, m, tile)) return {};
  std::string t = m[1].str() + "x" + m[2].str();
  if (name.find("sliced") != std::string::npos) t += "-sliced";
  return t;
}

LeaveOneGraphOut leave_one_graph_out(const DeviceMeasurements& data,
                                     const std::vector<SharedParameter>& params,
                                     int max_evaluations, size_t fit_per_type,
                                     const GraphFoldProgress& progress) {
  const size_t n = data.graphs.size();
  if (n < 2)
    throw InputError(SourceLocation{"--graph", 0, 0},
                     "leaving one device out needs at least two devices (--graph)");
  LeaveOneGraphOut out;
  const auto fold_progress = [&](size_t fold) {
    return [&, fold](int evaluations, double error) {
      if (progress) progress(fold, n + 1, evaluations, error);
    };
  };
  const std::vector<GraphSamples> fitted = fit_subset(data.graphs, fit_per_type);
  for (size_t h = 0; h < n; ++h) {
    std::vector<size_t> others;
    for (size_t g = 0; g < n; ++g)
      if (g != h) others.push_back(g);
    out.held_out.push_back(
        fit_shared_parameters(fitted, params, max_evaluations, fold_progress(h + 1), others));
  }
  // The fit on every device starts also where each fold ended: several starts, one descent.
  std::vector<std::vector<double>> starts;
  for (const SharedFitResult& f : out.held_out) starts.push_back(f.values);
  out.all = fit_shared_parameters(fitted, params, max_evaluations, fold_progress(0), {}, starts);

  for (size_t h = 0; h < n; ++h) {
    const GraphSamples& g = data.graphs[h];
    const ArchitectureGraph held = with_shared_values(g.graph, params, out.held_out[h].values);
    const ArchitectureGraph trained = with_shared_values(g.graph, params, out.all.values);
    const std::vector<double> model = predict_samples(held, g.samples);
    const std::vector<double> training = predict_samples(trained, g.samples);
    std::map<std::pair<bool, std::string>, Sums> cells;
    for (size_t i = 0; i < g.samples.size(); ++i) {
      const FitSample& s = g.samples[i];
      const SampleFacts& f = data.facts[h][i];
      // The roofline knows the specification alone (the graph as given), and with the launch
      // overhead the held-out fit gives: what a datasheet and a measured launch cost predict.
      const double roof = roofline(s.op, g.graph).seconds();
      const double launch = held.launch_overhead_for(to_string(s.op.type));
      const double roof_launch = compared_time(roof, launch, s.scope);
      const std::string measured_tile = kernel_tile(f.measured_kernel);
      for (const auto& key :
           {std::make_pair(false, f.op_type), std::make_pair(true, operator_group(f.op_type))}) {
        Sums& c = cells[key];
        ++c.count;
        c.model += ape(model[i], s.measured_s);
        c.training += ape(training[i], s.measured_s);
        c.roofline += ape(roof, s.measured_s);
        c.roofline_launch += ape(roof_launch, s.measured_s);
        if (!measured_tile.empty()) {
          ++c.named;
          if (kernel_tile(f.chosen_kernel) == measured_tile) ++c.agreeing;
        }
      }
    }
    // Types first, then classes; a class of one type only repeats its type and is left out.
    for (const bool is_class : {false, true})
      for (const auto& [key, c] : cells) {
        if (key.first != is_class) continue;
        if (is_class && cells.count({false, key.second}) &&
            cells.at({false, key.second}).count == c.count)
          continue;
        const double count = static_cast<double>(c.count);
        out.cells.push_back(HoldOutCell{g.label, key.second, is_class, c.count, c.model / count,
                                        c.training / count, c.roofline / count,
                                        c.roofline_launch / count, c.named, c.agreeing});
      }
  }
  return out;
}

}  // namespace ts

namespace ts {

std::string leave_one_graph_out_text(const LeaveOneGraphOut& r,
                                     const std::vector<SharedParameter>& params,
                                     const std::vector<std::string>& devices) {
  std::string out =
      fmt::format("{:<24} {:<14} {:>7} {:>9} {:>9} {:>9} {:>12} {:>8}\n", "device", "group", "rows",
                  "LOO MAPE", "training", "roofline", "roof+launch", "kernel");
  const auto pct = [](double x) { return fmt::format("{:.1f}%", x * 100); };
  for (const HoldOutCell& c : r.cells) {
    const std::string kernel =
        c.kernels_named
            ? pct(static_cast<double>(c.kernels_agreeing) / static_cast<double>(c.kernels_named))
            : std::string("-");
    out += fmt::format("{:<24} {:<14} {:>7} {:>9} {:>9} {:>9} {:>12} {:>8}\n", c.device,
                       (c.is_class ? "[" + c.group + "]" : c.group), c.count, pct(c.mape),
                       pct(c.training_mape), pct(c.roofline_mape), pct(c.roofline_launch_mape),
                       kernel);
  }
  out += "\nfitted values (the parameter's factor on each graph's own value, or its value):\n";
  out += fmt::format("{:<36} {:>14}", "parameter", "all devices");
  for (const std::string& d : devices) out += fmt::format(" {:>14}", "w/o " + d.substr(0, 10));
  out += "\n";
  for (size_t p = 0; p < params.size(); ++p) {
    const auto value = [&](double v) {
      return params[p].relative ? fmt::format("x{:.4g}", v) : format_parameter(params[p].field, v);
    };
    out += fmt::format("{:<36} {:>14}", params[p].path, value(r.all.values[p]));
    for (const SharedFitResult& f : r.held_out) out += fmt::format(" {:>14}", value(f.values[p]));
    out += "\n";
  }
  out += fmt::format("objective (log-RMSE over device x type cells): all {:.4f} -> {:.4f}\n",
                     r.all.initial_error, r.all.final_error);
  return out;
}

}  // namespace ts
