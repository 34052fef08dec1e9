#include "views/ReportComparison.hpp"

#include <fmt/format.h>

#include <QApplication>
#include <algorithm>
#include <tuple>
#include <utility>

#include "common/QuantityFormat.hpp"
#include "report/ComparisonExport.hpp"
#include "views/ComparisonBars.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/ReportHtmlParts.hpp"

namespace ts::views {
namespace {

// As `tilescope compare` prints them (CompareCommand.cpp): three significant figures.
std::string time_text(const TimeOnGraph& t) { return format_quantity(t.time_us() * 1e-6, "s"); }
std::string speedup_text(const TimeOnGraph& t) { return format_ratio(t.speedup); }

// One operator (or the total) as rows, one per graph: the graph, its time, its speed-up over
// the first, its bound and where the bound moved from the first graph. The operator's name and
// shape span the rows. A table as long as it needs, never wider than a page, however many
// graphs are compared.
std::string operator_rows(const ArchitectureComparison& c, const std::string& name,
                          const std::string& shape, const std::vector<TimeOnGraph>& on) {
  std::string out;
  for (size_t g = 0; g < on.size(); ++g) {
    out += g == 0 ? "<tr class=\"first\">" : "<tr>";
    if (g == 0)
      out += fmt::format("<td rowspan=\"{0}\">{1}</td><td rowspan=\"{0}\">{2}</td>", on.size(),
                         html_escape(name), html_escape(shape));
    for (const std::string& cell : {c.graphs[g].label, time_text(on[g]), speedup_text(on[g]),
                                    on[g].bound_by, on[g].bound_moved})
      out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out;
}

std::string graphs_text(const ArchitectureComparison& c) {
  std::string text;
  for (const ComparedGraph& g : c.graphs)
    text += fmt::format("{}{} ({})", text.empty() ? "" : ", ", g.name, g.label);
  return text;
}

// Some graph prices the whole workload: the report has an energy section.
bool has_energy(const ArchitectureComparison& c) {
  return std::any_of(c.total.begin(), c.total.end(),
                     [](const TimeOnGraph& t) { return t.energy_j.has_value(); });
}

std::string energy_text(const std::optional<double>& joules) {
  return joules ? format_quantity(*joules, "J") : std::string("unknown");
}

std::vector<std::pair<std::string, std::string>> summary_facts(const ComparisonReport& r) {
  const ArchitectureComparison& c = r.comparison;
  std::vector<std::pair<std::string, std::string>> facts;
  for (const ComparedGraph& g : c.graphs)
    facts.push_back({"graph " + g.label, fmt::format("{} ({})", g.name, g.source)});
  facts.push_back({"workload", fmt::format("{} ({}), {} operators", c.workload, r.workload_file,
                                           c.operators.size())});
  std::string totals, speedups, bounds, moved;
  for (size_t g = 0; g < c.graphs.size(); ++g) {
    const std::string sep = g == 0 ? "" : "; ";
    totals += sep + c.graphs[g].label + " " + time_text(c.total[g]);
    bounds += sep + c.graphs[g].label + " " + c.total[g].bound_by;
    if (g == 0) continue;
    speedups += fmt::format("{}{} {} over {}", g == 1 ? "" : "; ", c.graphs[g].label,
                            speedup_text(c.total[g]), c.graphs.front().label);
    moved += fmt::format("{}{} {} of {}", g == 1 ? "" : "; ", c.graphs[g].label, c.moved_bounds[g],
                         c.operators.size());
  }
  facts.push_back({"total time", totals});
  if (has_energy(c)) {
    std::string energy;
    for (size_t g = 0; g < c.graphs.size(); ++g)
      energy += (g == 0 ? "" : "; ") + c.graphs[g].label + " " + energy_text(c.total[g].energy_j);
    facts.push_back({"energy", energy});
  }
  if (!r.time_per_token.empty()) facts.push_back({"time per token", r.time_per_token});
  facts.push_back({"speed-up", speedups});
  facts.push_back({"what bounds each", bounds + " (the bound whose operators take the most time)"});
  facts.push_back(
      {"bound moved", moved + " operators bound elsewhere than on " + c.graphs.front().label});
  if (!r.notes.empty()) facts.push_back({"notes", fmt::format("{} (see Notes)", r.notes.size())});
  return facts;
}

std::string data_block(const ArchitectureComparison& c) {
  std::string text = comparison_json(c);
  // "</" would end the script element early.
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return "<script type=\"application/json\" id=\"tilescope-comparison-data\">\n" + text +
         "\n</script>\n";
}

}  // namespace

ReportFigures render_comparison_figures(const ComparisonReport& r) {
  const ArchitectureComparison& c = r.comparison;
  ReportFigures out;
  QPalette palette = QApplication::palette();
  palette.setColor(QPalette::Base, Qt::white);
  palette.setColor(QPalette::Text, Qt::black);
  const QString graphs = QString::fromStdString(graphs_text(c));
  const QString workload = QString::fromStdString(c.workload);
  for (const auto& [kind, name, title, caption] :
       {std::tuple{ComparisonBarsKind::time, QStringLiteral("comparison-time"),
                   QString("%1 on %2: time per operator").arg(workload, graphs),
                   QStringLiteral("Each operator's predicted time on each graph (device time + "
                                  "launch overhead, log scale), labelled with what bounds it "
                                  "there.")},
        std::tuple{ComparisonBarsKind::speedup, QStringLiteral("comparison-speedup"),
                   QString("%1: speed-up over %2")
                       .arg(workload, QString::fromStdString(c.graphs.front().label)),
                   QStringLiteral("Each operator's speed-up over the first graph (its time "
                                  "there over the time on the graph); the dashed line is 1x.")}}) {
    QCustomPlot plot;
    // Wide enough for the labels, narrow enough that A4 shrinks the fonts by at most 7/9.
    const int width = kMaxPdfPlotWidth - 43;
    const int height =
        std::clamp(fill_comparison_bars(plot, c, kind, title, palette).readable_height, 300, 2400);
    out.figures.push_back(plot_report_figure(plot, name, caption, width, height));
  }
  if (has_energy(c)) {
    QCustomPlot plot;
    const QString title = QString("%1 on %2: energy per node").arg(workload, graphs);
    const int height = std::clamp(
        fill_comparison_bars(plot, c, ComparisonBarsKind::energy, title, palette).readable_height,
        300, 2400);
    out.figures.push_back(plot_report_figure(
        plot, QStringLiteral("comparison-energy"),
        QStringLiteral("The workload's energy on each node of each graph that prices it (its "
                       "operators' reads, fills, updates, operations and leakage summed; log "
                       "scale)."),
        kMaxPdfPlotWidth - 43, height));
  }
  return out;
}

std::string comparison_report_html(const ComparisonReport& r, const ReportFigures& figures,
                                   ReportFormat format) {
  const ArchitectureComparison& c = r.comparison;
  const ReportFigurePlacer placer(figures, format);
  const std::string title =
      fmt::format("tilescope comparison: {} on {}", c.workload, graphs_text(c));
  std::string h = report_head(title) + "<body>\n";
  h += "<h1>" + html_escape(title) + "</h1>\n";
  h += fmt::format("<p>Made by {} at {} with <code>{}</code>.</p>\n", html_escape(r.tool_version),
                   html_escape(r.generated_at), html_escape(r.command_line));
  h += summary_box(summary_facts(r));
  std::vector<ReportSection> sections{{"operators", "Per operator"},
                                      {"time", "Time per operator"},
                                      {"speedup", "Speed-up per operator"},
                                      {"graphs", "The graphs"}};
  if (has_energy(c)) sections.insert(sections.end() - 1, {"energy", "Energy and area"});
  if (!r.notes.empty()) sections.push_back({"notes", "Notes"});
  h += table_of_contents(sections);

  h += "<h2 id=\"operators\">Per operator</h2>\n";
  h += fmt::format(
      "<p>Every operator predicted on every graph as <code>tilescope predict</code> predicts it. "
      "time = device time + launch overhead; speed-up = time on {} / time on the graph (above "
      "1x: faster); bound = what bounds the operator (compute:NODE, edge:FROM->TO or launch); "
      "bound moved = where it went from {}.</p>\n",
      html_escape(c.graphs.front().label), html_escape(c.graphs.front().label));
  h += "<table class=\"compare\" id=\"comparison-operators\">\n";
  h += html_row({"operator", "shape", "graph", "time", "speed-up over " + c.graphs.front().label,
                 "bound", "bound moved from " + c.graphs.front().label},
                "th");
  for (const ComparedOperator& op : c.operators)
    h += operator_rows(c, op.name, op.shape, op.on_graph);
  h += operator_rows(c, "total", "", c.total);
  h += "</table>\n";
  h += "<p>The total's bound is the one whose operators take the most time together.</p>\n";

  h += "<h2 id=\"time\">Time per operator</h2>\n" + placer.figure("comparison-time");
  h += "<h2 id=\"speedup\">Speed-up per operator</h2>\n" + placer.figure("comparison-speedup");

  if (has_energy(c)) {
    h += "<h2 id=\"energy\">Energy and area</h2>\n";
    h += "<p>Where a graph gives the energy of every action the workload takes (docs/energy.md): "
         "the workload's energy, the graph's area, and the energy-delay product (energy x total "
         "time). Unknown where a graph prices not everything; never a partial sum.</p>\n";
    h += "<table class=\"facts\" id=\"comparison-energy-table\">\n";
    h += html_row({"graph", "energy", "area", "energy-delay product"}, "th");
    for (size_t g = 0; g < c.graphs.size(); ++g) {
      const std::optional<double>& e = c.total[g].energy_j;
      const std::optional<double>& a = c.graphs[g].area_m2;
      h += html_row(
          {c.graphs[g].label, energy_text(e),
           a ? fmt::format("{:.4g} mm²", *a * 1e6) : std::string("unknown"),
           e ? format_quantity(*e * c.total[g].time_us() * 1e-6, "J s") : std::string("unknown")});
    }
    h += "</table>\n" + placer.figure("comparison-energy");
  }

  h += "<h2 id=\"graphs\">The graphs</h2>\n<table class=\"facts\">\n";
  h += html_row({"graph", "name", "file", "total",
                 "operators bound elsewhere than on " + c.graphs.front().label},
                "th");
  for (size_t g = 0; g < c.graphs.size(); ++g)
    h += html_row({c.graphs[g].label, c.graphs[g].name, c.graphs[g].source, time_text(c.total[g]),
                   g == 0 ? std::string("-") : std::to_string(c.moved_bounds[g])});
  h += "</table>\n";

  if (!r.notes.empty()) {
    h += "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
    for (const std::string& n : r.notes) h += "<li>" + html_escape(n) + "</li>\n";
    h += "</ul>\n";
  }
  if (format == ReportFormat::html) h += data_block(c);
  h += "</body>\n</html>\n";
  if (format == ReportFormat::pdf)
    prepare_html_for_pdf(h, {"summary", "compare", "facts"}, {"summary", "compare", "facts"});
  return h;
}

void write_comparison_report(const ComparisonReport& r, const ReportFigures& figures,
                             const std::string& out_path) {
  write_report_document(
      [&](ReportFormat format) { return comparison_report_html(r, figures, format); }, figures,
      fmt::format("tilescope comparison: {} on {}", r.comparison.workload,
                  graphs_text(r.comparison)),
      r.tool_version, out_path);
}

}  // namespace ts::views
