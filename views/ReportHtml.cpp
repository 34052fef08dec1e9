// The report's HTML text (report_html in ReportDocument.hpp). The figures in the statistics
// tables are formatted as `tilescope correlate` prints them, so that the two can be compared by
// eye and by a test.
#include <fmt/format.h>

#include <QBuffer>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "arch/ArchitectureParameterPath.hpp"
#include "common/QuantityFormat.hpp"
#include "correlate/CorrelationJson.hpp"
#include "correlate/FigureText.hpp"
#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"
#include "views/MappingTreeModel.hpp"
#include "views/ReportDocument.hpp"
#include "views/ReportHtmlParts.hpp"
#include "views/ReportPdf.hpp"

namespace ts::views {
namespace {

std::string esc(const std::string& text) { return html_escape(text); }
std::string esc(const QString& text) { return html_escape(text.toStdString()); }

std::string cells(const std::vector<std::string>& texts, const char* tag = "td") {
  return html_row(texts, tag);
}

// As `correlate` prints a row: count, Pearson, Spearman, Kendall, MAPE, log-RMSE.
std::vector<std::string> stats_cells(const std::string& name, const AgreementStats& s) {
  return {name,
          std::to_string(s.count),
          figure_text(s.pearson, 4),
          figure_text(s.spearman, 4),
          figure_text(s.kendall, 4),
          percent_text(s.mape, 2),
          figure_text(s.log_rmse, 4)};
}

// Figures are appended to the text as they are placed.
class Html {
 public:
  Html(const ReportFigures& figures, ReportFormat format)
      : placer_(figures, format), pdf_(format == ReportFormat::pdf) {}
  std::string text;
  bool pdf() const { return pdf_; }
  void figure(const QString& name, double share = 1.0) { text += placer_.figure(name, share); }

 private:
  ReportFigurePlacer placer_;
  bool pdf_;
};

void tree_rows(const MappingTreeModel& model, const QModelIndex& parent, int depth,
               std::string& out) {
  for (int row = 0; row < model.rowCount(parent); ++row) {
    const QModelIndex first = model.index(row, 0, parent);
    const bool failing = model.data(first, MappingTreeModel::FailingRole).toBool();
    out += failing ? "<tr class=\"failing\">" : "<tr>";
    for (int col = 0; col < model.columnCount(); ++col) {
      std::string t = esc(model.data(model.index(row, col, parent)).toString());
      if (col == 0) {
        std::string indent;
        for (int d = 0; d < depth; ++d) indent += "&nbsp;&nbsp;&nbsp;";
        t = indent + t;
      }
      out += "<td>" + t + "</td>";
    }
    out += "</tr>\n";
    tree_rows(model, first, depth + 1, out);
  }
}

std::string mapping_tree(const WorstEntry& e) {
  if (!e.evaluation.program) {
    std::string why = e.missing.empty() ? e.evaluation.error : e.missing;
    return fmt::format("<p class=\"note\">No mapping tree: {}</p>\n", esc(why));
  }
  MappingTreeModel model;
  model.setEvaluation(e.keep_alive,
                      MappingEvaluation{std::make_unique<MappingProgram>(*e.evaluation.program),
                                        e.evaluation.result, e.evaluation.error});
  std::string out;
  if (!e.mapping_note.empty()) out += fmt::format("<p>{}.</p>\n", esc(e.mapping_note));
  if (!e.evaluation.error.empty())
    out += fmt::format("<p class=\"note\">{}</p>\n", esc(e.evaluation.error));
  out += "<table class=\"tree\">\n<tr>";
  for (int col = 0; col < model.columnCount(); ++col)
    out += "<th>" + esc(model.headerData(col, Qt::Horizontal).toString()) + "</th>";
  out += "</tr>\n";
  tree_rows(model, {}, 0, out);
  return out + "</table>\n";
}

// Pretty keys and values of a JSON object as table rows (nested values as compact JSON).
std::string json_rows(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || j.empty()) return {};
  std::string out;
  for (const auto& [key, value] : j.items())
    out += cells({key, value.is_string() ? value.get<std::string>() : value.dump()});
  return out;
}

void run_section(std::string& h, const ReportRun& r) {
  const RunInfo& i = r.info;
  h += "<table class=\"facts\">\n";
  h += cells({"database", r.db});
  h += cells({"run", fmt::format("{} ({}, started {}, finished {})", i.id,
                                 std::string(to_string(i.status)), i.started_at,
                                 i.finished_at.empty() ? "-" : i.finished_at)});
  h += cells({"collector", i.start.collector});
  h += cells({"workload", i.start.workload});
  h += cells({"measured with", i.start.tool_version.empty() ? "-" : i.start.tool_version});
  h += cells({"measurements", std::to_string(i.measurement_count)});
  h += cells({"device", fmt::format("{} ({})", i.start.device.name, i.start.device.kind)});
  h += cells({"device graph",
              i.start.device.arch_hash.empty() ? "none recorded" : i.start.device.arch_hash});
  h += cells({"predictions", r.predictions});
  h += cells({"compared", r.input->source});
  h += "</table>\n";
  if (const std::string rows = json_rows(i.start.device.properties_json); !rows.empty())
    h += "<h3>Device properties</h3>\n<table class=\"facts\">\n" + rows + "</table>\n";
  if (const std::string rows = json_rows(i.start.settings_json); !rows.empty())
    h += "<h3>Settings of the run</h3>\n<table class=\"facts\">\n" + rows + "</table>\n";
}

std::string percent(double fraction) { return fmt::format("{:+.1f}%", fraction * 100); }

void comparison_section(std::string& h, Html& html, const ReportContent& c) {
  const RunComparison& d = *c.comparison;
  h += "<h2 id=\"comparison\">Comparison with another run</h2>\n";
  h += fmt::format("<p>before: {}<br>after: {}</p>\n", esc(c.before->input->source),
                   esc(c.run.input->source));
  h += fmt::format(
      "<p>{} operators in both, {} only before, {} only after. Figures on the "
      "operators both runs have.</p>\n",
      d.matched.size(), d.only_before.size(), d.only_after.size());
  if (d.matched.empty())
    h += "<p class=\"note\">The runs have no operator in common: every figure of the "
         "comparison is n/a.</p>\n";
  h += "<table class=\"stats\" id=\"comparison-statistics\">\n";
  h += cells({"", "count", "pearson", "spearman", "kendall", "MAPE", "log-RMSE"}, "th");
  h += cells(stats_cells("before", d.before));
  h += cells(stats_cells("after", d.after));
  h += cells({"change", "", signed_figure_text(figure_change(d.before.pearson, d.after.pearson), 4),
              signed_figure_text(figure_change(d.before.spearman, d.after.spearman), 4),
              signed_figure_text(figure_change(d.before.kendall, d.after.kendall), 4),
              percent_text(figure_change(d.before.mape, d.after.mape), 2, true),
              signed_figure_text(figure_change(d.before.log_rmse, d.after.log_rmse), 4)});
  h += "</table>\n";
  if (html.pdf()) {
    // One above the other: side by side on A4 they would be shrunk to unreadable labels.
    html.figure("diff-before");
    html.figure("diff-after");
  } else {
    h += "<table class=\"side\"><tr><td>";
    html.figure("diff-before", 0.5);
    h += "</td><td>";
    html.figure("diff-after", 0.5);
    h += "</td></tr></table>\n";
  }
  h += "<h3>Operators, worse first</h3>\n<p>error = predicted / measured - 1; worse by = how "
       "much further |ln(predicted / measured)| moved from 0.</p>\n";
  h += "<table class=\"ops\" id=\"comparison-operators\">\n";
  // The operator's key is long and the figures short: give it room before the columns share out.
  h += "<tr><th width=\"24%\">operator</th>";
  for (const char* t :
       {"measured us", "was", "change", "predicted us", "was", "error", "was", "worse by"})
    h += fmt::format("<th>{}</th>", t);
  h += "</tr>\n";
  for (const OperatorDelta& o : d.matched)
    h += cells({o.op, fmt::format("{:.3f}", o.after->measured_s * 1e6),
                fmt::format("{:.3f}", o.before->measured_s * 1e6), percent(o.measured_change),
                fmt::format("{:.3f}", o.after->predicted_s * 1e6),
                fmt::format("{:.3f}", o.before->predicted_s * 1e6),
                percent(std::expm1(o.log_error_after)), percent(std::expm1(o.log_error_before)),
                fmt::format("{:+.4f}", o.worse_by)});
  h += "</table>\n";
  for (const std::string& k : d.only_before) h += "<p>only before: " + esc(k) + "</p>\n";
  for (const std::string& k : d.only_after) h += "<p>only after: " + esc(k) + "</p>\n";
}

// The gates in one line: "passed (2 gates)", "crossed: mape>0.10 (0.3130)", ...
std::string verdict_text(const std::vector<GateVerdict>& gates) {
  if (gates.empty()) return "no gate given (--fail-if)";
  std::string crossed, unchecked;
  for (const GateVerdict& g : gates) {
    if (g.result == GateResult::crossed)
      crossed += fmt::format("{}{} ({})", crossed.empty() ? "" : ", ", g.gate.text,
                             figure_text(g.figure, 4));
    if (g.result == GateResult::not_checked)
      unchecked +=
          fmt::format("{}{}: {}", unchecked.empty() ? "" : ", ", g.gate.text, g.why_not_checked);
  }
  if (!crossed.empty()) return "crossed: " + crossed;
  if (!unchecked.empty()) return "not checked: " + unchecked;
  return fmt::format("passed ({} gate{})", gates.size(), gates.size() == 1 ? "" : "s");
}

std::string agreement_text(const AgreementStats& s) {
  return fmt::format("Pearson {}, Spearman {}, MAPE {}, log-RMSE {} over {} points",
                     figure_text(s.pearson, 4), figure_text(s.spearman, 4), percent_text(s.mape, 2),
                     figure_text(s.log_rmse, 4), s.count);
}

// The run's facts: where, how much, how well.
void run_facts(const ReportContent& c, std::vector<std::pair<std::string, std::string>>& facts) {
  const RunInfo& i = c.run.info;
  facts.push_back({"device", fmt::format("{} ({})", i.start.device.name, i.start.device.kind)});
  facts.push_back({"run", fmt::format("{} run {}: {}, workload {}", c.run.db, i.id,
                                      i.start.collector, i.start.workload)});
  std::set<std::string> operators;
  for (const ComparedPoint& p : c.run.input->points) operators.insert(p.op_name + " " + p.shape);
  const size_t classes = c.correlation.groups.size();
  facts.push_back({"counts", fmt::format("{} measurements; {} compared with a prediction, of {} "
                                         "operator shapes in {} class{}",
                                         i.measurement_count, c.correlation.overall.count,
                                         operators.size(), classes, classes == 1 ? "" : "es")});
  facts.push_back({"agreement", agreement_text(c.correlation.overall)});
  if (c.comparison)
    facts.push_back(
        {"against the run before",
         fmt::format("{} operators in common; MAPE {} before, {} now", c.comparison->matched.size(),
                     percent_text(c.comparison->before.mape, 2),
                     percent_text(c.comparison->after.mape, 2))});
  if (!c.worst.empty())
    facts.push_back(
        {"furthest off", fmt::format("{} {}: {:+.1f}%, bound by {}", c.worst.front().worst.op_name,
                                     c.worst.front().worst.shape, c.worst.front().worst.error * 100,
                                     c.worst.front().worst.bound_by)});
}

// What a reader wants before anything else: where, how much, how well, and the verdict.
std::vector<std::pair<std::string, std::string>> summary_facts(const ReportContent& c) {
  std::vector<std::pair<std::string, std::string>> facts;
  if (c.has_run()) run_facts(c, facts);
  if (c.simulation)
    facts.push_back({"simulated iteration",
                     fmt::format("{}: {:.4f} s", c.simulation->title, c.simulation->iteration_s)});
  if (c.sweep)
    facts.push_back(
        {"sweep", fmt::format("{} points of {}", c.sweep->points.size(), c.sweep_file)});
  if (c.has_run()) facts.push_back({"verdict", verdict_text(c.gates)});
  if (!c.notes.empty()) facts.push_back({"notes", fmt::format("{} (see Notes)", c.notes.size())});
  return facts;
}

// The sections in the order report_html writes them.
std::vector<ReportSection> sections(const ReportContent& c) {
  std::vector<ReportSection> out;
  if (!c.gates.empty()) out.push_back({"gates", "Accuracy gates"});
  if (c.has_run()) {
    out.push_back({"measured", "What was measured, and where"});
    if (c.comparison) out.push_back({"comparison", "Comparison with another run"});
    out.push_back({"correlation", "Predicted against measured"});
    out.push_back({"worst", "The worst predictions"});
    out.push_back({"architecture", "The architecture graph"});
  }
  if (c.simulation) out.push_back({"simulation", "Distributed simulation"});
  if (c.sweep) out.push_back({"sweep", "Sweep"});
  if (!c.notes.empty()) out.push_back({"notes", "Notes"});
  return out;
}

// What the report says, for programs (CI): the figures at full precision.
std::string data_block(const ReportContent& c) {
  nlohmann::json j;
  j["schema_version"] = kCorrelationSchemaVersion;
  j["source"] = c.run.input->source;
  j["architecture_hash"] = c.run.input->arch_hash;
  j["by"] = "class";
  j["overall"] = agreement_stats_json(c.correlation.overall);
  j["groups"] = group_stats_json(c.correlation.groups);
  nlohmann::json worst = nlohmann::json::array();
  for (const WorstEntry& e : c.worst) worst.push_back(worst_prediction_json(e.worst));
  j["worst"] = worst;
  if (c.comparison) {
    nlohmann::json ops = nlohmann::json::array();
    for (const OperatorDelta& d : c.comparison->matched)
      ops.push_back({{"operator", d.op},
                     {"measured_us_before", d.before->measured_s * 1e6},
                     {"measured_us_after", d.after->measured_s * 1e6},
                     {"measured_change", d.measured_change},
                     {"predicted_change", d.predicted_change},
                     {"worse_by", d.worse_by}});
    j["comparison"] = {{"before", c.before->input->source},
                       {"overall_before", agreement_stats_json(c.comparison->before)},
                       {"overall_after", agreement_stats_json(c.comparison->after)},
                       {"operators", ops}};
  }
  nlohmann::json gates = nlohmann::json::array();
  // "crossed" stays a plain yes/no for scripts of schema 1; "result" adds "not_checked", with
  // its reason, for a gate whose figure has no value.
  for (const GateVerdict& g : c.gates) {
    nlohmann::json gate = {{"gate", g.gate.text},
                           {"figure", figure_json(g.figure)},
                           {"crossed", g.result == GateResult::crossed},
                           {"result", gate_result_text(g.result)}};
    if (g.result == GateResult::not_checked) gate["why_not_checked"] = g.why_not_checked;
    gates.push_back(gate);
  }
  j["gates"] = gates;
  std::string text = j.dump(1);
  // "</" would end the script element early.
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return "<script type=\"application/json\" id=\"tilescope-report-data\">\n" + text +
         "\n</script>\n";
}

// A sweep (docs/sweep.md): the figures, the sensitivities of the total and of each subject to
// each varied parameter (the parameters the fit cannot tell apart named below the table), what
// the sweep found acts on nothing, which cost the Pareto front uses, and the front's points.
void sweep_section(const ReportContent& c, Html& html) {
  const SweepDigest& d = *c.sweep;
  std::string& h = html.text;
  h += "<h2 id=\"sweep\">Sweep</h2>\n";
  std::string varied;
  for (const std::string& p : d.paths) varied += (varied.empty() ? "" : ", ") + p;
  h += fmt::format("<p>{} of {} points ({}), varying {}.{}</p>\n",
                   d.strategy_grid ? "A strategy grid" : "An architecture sweep", d.points.size(),
                   esc(c.sweep_file), d.paths.empty() ? std::string("nothing") : esc(varied),
                   d.strategy_grid
                       ? fmt::format(" {} points run out of device memory.", d.out_of_memory)
                       : std::string());
  // What the points say acts on nothing (sweep_axis_plateaus), as `sweep` warns of it.
  if (!d.plateaus.empty()) {
    h += "<ul class=\"note\">\n";
    for (const SweepAxisPlateau& p : d.plateaus)
      h += "<li>" +
           esc(p.path + ": " +
               sweep_plateau_text(p, d.strategy_grid ? "the iteration time" : "the suite total",
                                  d.paths.size() > 1)) +
           "</li>\n";
    h += "</ul>\n";
  }
  html.figure("sweep-pareto");
  if (d.energy_known && d.cost.figure != SweepFigure::energy) html.figure("sweep-energy-pareto");
  if (d.area_known && d.cost.figure != SweepFigure::area) html.figure("sweep-area-pareto");
  html.figure("sweep-sensitivity");
  h += "<p>Sensitivity: d ln time / d ln parameter, least squares over the points (-1: time "
       "halves when the parameter doubles; 0: no effect; -: cannot be told).</p>\n<table "
       "class=\"stats\">\n";
  std::vector<std::string> header{"subject"};
  header.insert(header.end(), d.paths.begin(), d.paths.end());
  h += cells(header, "th");
  std::vector<SweepSensitivity> rows = d.sensitivities;
  for (const SweepSensitivity& row : rows) {
    std::vector<std::string> line{row.subject};
    for (const std::optional<double>& e : row.elasticity) line.push_back(elasticity_text(e));
    h += cells(line);
  }
  // The figures' rows: d ln energy (area) / d ln parameter.
  for (const auto* row : {&d.energy_sensitivity, &d.area_sensitivity}) {
    if (!*row) continue;
    rows.push_back(**row);
    std::vector<std::string> line{(*row)->subject == "energy" ? "suite energy" : "graph area"};
    for (const std::optional<double>& e : (*row)->elasticity) line.push_back(elasticity_text(e));
    h += cells(line);
  }
  h += "</table>\n";
  for (const std::string& note : sweep_collinearity_notes(rows))
    h += "<p class=\"note\">" + esc(note) + ".</p>\n";
  const auto parameters_of = [&](const SweepPointRecord& p) {
    const nlohmann::json values = nlohmann::json::parse(p.parameters_json);
    std::string parameters;
    for (const std::string& path : d.paths) {
      const nlohmann::json& v = values.at(path);
      parameters += fmt::format("{}{}={}", parameters.empty() ? "" : " ", path,
                                v.is_string()   ? v.get<std::string>()
                                : v.is_number() ? format_parameter(path, v.get<double>())
                                                : v.dump());
    }
    return parameters;
  };
  const auto figure_cell = [](const std::optional<double>& v, double unit) {
    return v ? fmt::format("{:.6g}", *v / unit) : std::string("-");
  };
  h += "<p>" + esc(sweep_cost_line(d.cost, true, d.strategy_grid)) + ".</p>\n";
  // The fronts on energy and area, with each point's energy, area and EDP (energy x time): the
  // cost's first.
  std::vector<SweepFigure> fronts{d.cost.figure};
  for (const auto& [known, figure] :
       {std::pair{d.energy_known, SweepFigure::energy}, std::pair{d.area_known, SweepFigure::area}})
    if (known && figure != d.cost.figure) fronts.push_back(figure);
  for (SweepFigure figure : fronts) {
    h += fmt::format("<p>Pareto front, {} against {}.</p>\n<table class=\"stats\">\n",
                     d.strategy_grid ? "iteration time" : "suite time",
                     esc(sweep_cost_title({figure, {}}, d.strategy_grid)));
    if (figure == SweepFigure::cost) {
      h += cells(
          {"time", d.strategy_grid ? "peak memory per GPU (GiB)" : "memory (bytes)", "parameters"},
          "th");
      for (const SweepPointRecord& p : d.front)
        h += cells({format_quantity(p.total_s, "s"),
                    d.strategy_grid ? fmt::format("{:.3f}", p.cost / (1024.0 * 1024 * 1024))
                                    : fmt::format("{:.0f}", p.cost),
                    parameters_of(p)});
    } else {
      h += cells({"time", "energy (uJ)", "area (mm^2)", "EDP (uJ us)", "parameters"}, "th");
      for (const SweepPointRecord& p :
           figure == SweepFigure::energy ? d.energy_front : d.area_front)
        h += cells({format_quantity(p.total_s, "s"), figure_cell(p.energy_j, 1e-6),
                    figure_cell(p.area_m2, 1e-6), figure_cell(sweep_edp(p), 1e-12),
                    parameters_of(p)});
    }
    h += "</table>\n";
  }
}

// The run's sections: where it was measured, the comparison with another run, the agreement,
// the worst predictions with their trees, and the graph.
void run_sections(const ReportContent& c, const ReportFigures& figures, Html& html) {
  std::string& h = html.text;
  h += "<h2 id=\"measured\">What was measured, and where</h2>\n";
  run_section(h, c.run);

  if (c.comparison) comparison_section(h, html, c);

  h += "<h2 id=\"correlation\">Predicted against measured</h2>\n";
  h += "<p>Per operator class and overall, as <code>tilescope correlate --by class</code> "
       "prints them: Pearson on the latencies, Spearman and Kendall tau-b on their ranks, MAPE, "
       "and the RMSE of ln(predicted / measured).</p>\n";
  h += "<table class=\"stats\" id=\"statistics\">\n";
  h += cells({"group", "count", "pearson", "spearman", "kendall", "MAPE", "log-RMSE"}, "th");
  for (const GroupStats& g : c.correlation.groups) h += cells(stats_cells(g.group, g.stats));
  h += cells(stats_cells("overall", c.correlation.overall));
  h += "</table>\n";
  html.figure("correlation");
  for (const GroupStats& g : c.correlation.groups) html.figure(class_figure_name(g.group));
  if (!c.per_shape.empty()) {
    h += "<h3>Per-shape ranking of mappings</h3>\n<p>Tiled matmul operators with 3 or more "
         "measured mappings: how well the predictions rank them.</p>\n<table class=\"stats\">\n";
    h += cells({"operator", "mappings", "spearman"}, "th");
    for (const ShapeRanking& s : c.per_shape)
      h += cells({s.op, std::to_string(s.mappings), figure_text(s.spearman, 4)});
    h += cells({"mean", "", figure_text(mean_spearman(c.per_shape), 4)});
    h += "</table>\n";
  }

  h += "<h2 id=\"worst\">The worst predictions</h2>\n";
  h += "<p>By |ln(predicted / measured)|; error = predicted / measured - 1.</p>\n";
  h += "<table class=\"ops\" id=\"worst-predictions\">\n";
  h += cells({"operator", "shape", "mapping", "predicted us", "measured us", "error", "bound by"},
             "th");
  for (const WorstEntry& e : c.worst) {
    const WorstPrediction& w = e.worst;
    h += cells({w.op_name, w.shape, w.mapping, fmt::format("{:.3f}", w.predicted_s * 1e6),
                fmt::format("{:.3f}", w.measured_s * 1e6), fmt::format("{:+.1f}%", w.error * 100),
                w.bound_by});
  }
  h += "</table>\n";
  if (!c.graph)
    h += "<p class=\"note\">No mapping trees: the graph the predictions were made on is not "
         "known; give it with --arch.</p>\n";
  // In the PDF the trees are printed on landscape pages (views/ReportPdf): a tree's eight
  // columns at A4 portrait are narrower than their words, and long trees squeezed.
  const bool landscape_trees = html.pdf() && c.graph && !c.worst.empty();
  if (landscape_trees) h += kPdfLandscapeBegin;
  for (const WorstEntry& e : c.worst) {
    if (!c.graph) break;
    const WorstPrediction& w = e.worst;
    h += fmt::format("<h3>{} {} ({}): {:+.1f}%, bound by {}</h3>\n", esc(w.op_name), esc(w.shape),
                     esc(w.mapping), w.error * 100, esc(w.bound_by));
    h += mapping_tree(e);
  }
  if (landscape_trees) h += kPdfLandscapeEnd;

  h += "<h2 id=\"architecture\">The architecture graph</h2>\n";
  if (figures.find("architecture"))
    html.figure("architecture");
  else
    h += "<p class=\"note\">No graph is known for this run: give it with --arch.</p>\n";
}

}  // namespace

std::string report_html(const ReportContent& c, const ReportFigures& figures, ReportFormat format) {
  Html html(figures, format);
  std::string& h = html.text;
  h += report_head("tilescope report: " + c.title);
  h += "<body>\n";
  h += "<h1>tilescope report: " + esc(c.title) + "</h1>\n";
  h += fmt::format("<p>Made by {} at {} with <code>{}</code>.</p>\n", esc(c.tool_version),
                   esc(c.generated_at), esc(c.command_line));
  h += summary_box(summary_facts(c));
  h += table_of_contents(sections(c));

  if (!c.gates.empty()) {
    h += "<h2 id=\"gates\">Accuracy gates</h2>\n<table class=\"stats\">\n";
    h += cells({"gate", "figure", "result"}, "th");
    for (const GateVerdict& g : c.gates) {
      const std::string result = g.result == GateResult::not_checked
                                     ? "not checked: " + g.why_not_checked
                                     : gate_result_text(g.result);
      h += fmt::format("<tr><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>\n",
                       esc(g.gate.text), figure_text(g.figure, 4),
                       g.result == GateResult::passed ? "passed" : "crossed", esc(result));
    }
    h += "</table>\n";
  }

  if (c.has_run()) run_sections(c, figures, html);

  if (c.simulation) {
    const SimulationTimeline& s = *c.simulation;
    h += "<h2 id=\"simulation\">Distributed simulation</h2>\n";
    h += fmt::format("<p>{} ({})</p>\n<table class=\"facts\">\n", esc(s.title),
                     esc(c.simulation_file));
    h += cells({"iteration", fmt::format("{:.4f} s", s.iteration_s)});
    for (const auto& [what, value] : s.facts) h += cells({what, value});
    h += "</table>\n";
    if (!s.breakdown.empty()) {
      h += "<table class=\"stats\">\n";
      h += cells({"time spent on", "seconds", "share"}, "th");
      for (const auto& [what, seconds] : s.breakdown)
        h += cells({what, fmt::format("{:.4f}", seconds),
                    s.iteration_s > 0 ? fmt::format("{:.1f}%", seconds / s.iteration_s * 100)
                                      : std::string("-")});
      h += "</table>\n";
    }
    html.figure("timeline");
  }

  if (c.sweep) sweep_section(c, html);

  if (!c.notes.empty()) {
    h += "<h2 id=\"notes\">Notes</h2>\n<ul>\n";
    for (const std::string& n : c.notes) h += "<li>" + esc(n) + "</li>\n";
    h += "</ul>\n";
  }
  if (format == ReportFormat::html && c.has_run()) h += data_block(c);
  h += "</body>\n</html>\n";
  if (format == ReportFormat::pdf)
    prepare_html_for_pdf(h, {"summary", "stats", "ops", "tree", "facts", "side"},
                         {"summary", "tree", "ops"});
  return h;
}

}  // namespace ts::views
