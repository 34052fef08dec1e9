// `tilescope compare`: one workload on two or more architecture graphs, side by side: per
// operator and in total, the time on each graph, the speed-up over the first graph, what bounds
// each and where the bound moved. The comparison is core's (report/GraphComparison); this file
// only prints it.
#include "CompareCommand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "TerminalProgress.hpp"
#include "common/QuantityFormat.hpp"
#include "common/WorkThreads.hpp"
#include "mapper/SearchConvergence.hpp"
#include "profile/ArchitectureReference.hpp"
#include "report/ComparisonExport.hpp"
#include "report/GraphComparison.hpp"

namespace ts::cli {
namespace {

std::string time_text(const TimeOnGraph& t) { return format_quantity(t.time_us() * 1e-6, "s"); }

std::string speedup_text(const TimeOnGraph& t) { return format_ratio(t.speedup); }

// Where the bound moved on each graph after the first: the move alone for two graphs,
// "B: ...; C: ..." for more.
std::string moves_text(const ArchitectureComparison& c, const std::vector<TimeOnGraph>& on) {
  std::string text;
  for (size_t g = 1; g < on.size(); ++g) {
    if (on[g].bound_moved.empty()) continue;
    if (!text.empty()) text += "; ";
    text += c.graphs.size() > 2 ? c.graphs[g].label + ": " + on[g].bound_moved : on[g].bound_moved;
  }
  return text;
}

void print_table(const ArchitectureComparison& c) {
  const size_t graphs = c.graphs.size();
  std::cout << fmt::format("{} on {} graphs ({} operators); speed-up of each graph over {}\n",
                           c.workload, graphs, c.operators.size(), c.graphs.front().label);
  for (const ComparedGraph& g : c.graphs)
    std::cout << fmt::format("  {}  {} ({})\n", g.label, g.name, g.source);
  std::cout << "\n";

  size_t name_w = 5, shape_w = 5;  // "total", "shape"
  std::vector<size_t> bound_w(graphs, 8);
  for (const ComparedOperator& op : c.operators) {
    name_w = std::max(name_w, op.name.size());
    shape_w = std::max(shape_w, op.shape.size());
    for (size_t g = 0; g < graphs; ++g)
      bound_w[g] = std::max(bound_w[g], op.on_graph[g].bound_by.size());
  }
  for (size_t g = 0; g < graphs; ++g) bound_w[g] = std::max(bound_w[g], c.total[g].bound_by.size());
  // Times are at most "-999 ms" (7 characters), speed-ups "1.00 kx"; columns are 9 and 10 wide.
  auto row = [&](const std::string& name, const std::string& shape,
                 const std::vector<TimeOnGraph>& on) {
    std::string line = fmt::format("{:<{}}  {:<{}}", name, name_w, shape, shape_w);
    for (size_t g = 0; g < graphs; ++g) line += fmt::format("  {:>9}", time_text(on[g]));
    for (size_t g = 1; g < graphs; ++g) line += fmt::format("  {:>10}", speedup_text(on[g]));
    for (size_t g = 0; g < graphs; ++g) line += fmt::format("  {:<{}}", on[g].bound_by, bound_w[g]);
    line += "  " + moves_text(c, on);
    line.erase(line.find_last_not_of(' ') + 1);  // no padding after the last text
    return line + "\n";
  };
  std::string header = fmt::format("{:<{}}  {:<{}}", "operator", name_w, "shape", shape_w);
  for (const ComparedGraph& g : c.graphs) header += fmt::format("  {:>9}", g.label + " time");
  for (size_t g = 1; g < graphs; ++g)
    header += fmt::format("  {:>10}", c.graphs[g].label + " speed-up");
  for (size_t g = 0; g < graphs; ++g)
    header += fmt::format("  {:<{}}", c.graphs[g].label + " bound", bound_w[g]);
  std::cout << header << "  bound moved\n";
  for (const ComparedOperator& op : c.operators) std::cout << row(op.name, op.shape, op.on_graph);
  std::cout << row("total", "", c.total);
  std::cout << "time: device time + launch overhead; the total's bound is the one whose "
               "operators take the most time together\n";
  for (size_t g = 1; g < graphs; ++g)
    std::cout << fmt::format("{}: {} of {} operators bound elsewhere than on {}\n",
                             c.graphs[g].label, c.moved_bounds[g], c.operators.size(),
                             c.graphs.front().label);
  // Energy and area only where some graph has them: a GPU-only comparison prints as before.
  bool any = false;
  for (size_t g = 0; g < graphs; ++g) any = any || c.total[g].energy_j || c.graphs[g].area_m2;
  if (!any) return;
  std::string energy = "energy:", area = "area:";
  for (size_t g = 0; g < graphs; ++g) {
    const std::optional<double>& e = c.total[g].energy_j;
    energy += fmt::format(" {} {}", c.graphs[g].label,
                          e ? format_quantity(*e, "J") : std::string("unknown"));
    if (g > 0 && e && c.total.front().energy_j && *e > 0)
      energy +=
          fmt::format(" ({:.3g}x of {})", *e / *c.total.front().energy_j, c.graphs.front().label);
    energy += g + 1 < graphs ? ";" : "";
    const std::optional<double>& a = c.graphs[g].area_m2;
    area += fmt::format(" {} {}{}", c.graphs[g].label,
                        a ? fmt::format("{:.4g} mm^2", *a * 1e6) : std::string("unknown"),
                        g + 1 < graphs ? ";" : "");
  }
  std::cout << energy << "\n" << area << "\n";
}

}  // namespace

int run_compare(const CompareOptions& a) {
  std::vector<ComparisonGraphFile> graphs;
  for (const std::string& arch : a.archs)
    graphs.push_back({arch, resolve_architecture_option(arch)});
  OperatorPredictionOptions options;
  options.mapper.budget = a.budget;
  TerminalProgress progress("compare");
  ArchitectureComparison c;
  run_with_threads(a.threads, [&] {
    c = compare_graph_files(
        graphs, a.workload, options, SourceLocation{"--arch", 0, 0},
        [&](size_t, size_t done, size_t total, const std::string& graph, const std::string& op) {
          progress.show_bar(done, total, fmt::format("{} on {}", op, graph));
        });
  });
  progress.clear();
  // As predict says it, on stderr so that JSON and CSV stay clean; one line per graph.
  for (const std::string& note : unconverged_graph_notes(c, a.budget))
    std::cerr << "warning: " << note << "\n";
  if (a.format == "json")
    std::cout << comparison_json(c) << "\n";
  else if (a.format == "csv")
    std::cout << comparison_csv(c);
  else
    print_table(c);
  return 0;
}

}  // namespace ts::cli
