#include "correlate/CorrelationJson.hpp"

#include <fmt/format.h>

#include <cmath>

#include "calibrate/GraphParameter.hpp"
#include "common/CsvField.hpp"

namespace ts {

nlohmann::json figure_json(const std::optional<double>& figure) {
  return figure ? nlohmann::json(*figure) : nlohmann::json(nullptr);
}

nlohmann::json agreement_stats_json(const AgreementStats& s) {
  return {{"count", s.count},
          {"pearson", figure_json(s.pearson)},
          {"spearman", figure_json(s.spearman)},
          {"kendall", figure_json(s.kendall)},
          {"mape", figure_json(s.mape)},
          {"log_rmse", figure_json(s.log_rmse)}};
}

nlohmann::json group_stats_json(const std::vector<GroupStats>& groups) {
  nlohmann::json out = nlohmann::json::array();
  for (const GroupStats& g : groups) {
    nlohmann::json j = agreement_stats_json(g.stats);
    j["group"] = g.group;
    out.push_back(j);
  }
  return out;
}

nlohmann::json worst_prediction_json(const WorstPrediction& w) {
  return {{"operator", w.op_name},
          {"shape", w.shape},
          {"mapping", w.mapping},
          {"predicted_us", w.predicted_s * 1e6},
          {"measured_us", w.measured_s * 1e6},
          {"error", w.error},
          {"bound_by", w.bound_by}};
}

namespace {

// predicted / measured - 1; none when either is not a positive finite time.
std::optional<double> point_error(const ComparedPoint& p) {
  if (!(p.measured_s > 0) || !std::isfinite(p.predicted_s) || !(p.predicted_s > 0))
    return std::nullopt;
  return p.predicted_s / p.measured_s - 1;
}

}  // namespace

nlohmann::json compared_points_json(const std::vector<ComparedPoint>& points) {
  nlohmann::json out = nlohmann::json::array();
  for (const ComparedPoint& p : points)
    out.push_back(
        {{"operator", p.op_name},
         {"suite", p.suite},
         {"class", p.op_class},
         {"shape", p.shape},
         {"dtypes", p.dtypes},
         {"implementation", p.mapping},
         {"measured_us", p.measured_s * 1e6},
         {"predicted_us", std::isfinite(p.predicted_s) ? nlohmann::json(p.predicted_s * 1e6)
                                                       : nlohmann::json(nullptr)},
         {"error", figure_json(point_error(p))},
         {"bound_by", p.bound_by}});
  return out;
}

std::string compared_points_csv(const std::vector<ComparedPoint>& points) {
  CsvRows csv;
  csv.row({"operator", "suite", "class", "shape", "dtypes", "implementation", "measured_us",
           "predicted_us", "error", "bound_by"});
  for (const ComparedPoint& p : points) {
    const std::optional<double> error = point_error(p);
    csv.row({p.op_name, p.suite, p.op_class, p.shape, p.dtypes, p.mapping,
             fmt::format("{:.3f}", p.measured_s * 1e6),
             std::isfinite(p.predicted_s) ? fmt::format("{:.3f}", p.predicted_s * 1e6) : "",
             error ? fmt::format("{:.4f}", *error) : "", p.bound_by});
  }
  return csv.text();
}

namespace {

nlohmann::json cross_validation_json(const CrossValidation& cv,
                                     const std::vector<GraphParameter>& params) {
  nlohmann::json parameters = nlohmann::json::array();
  for (const GraphParameter& p : params)
    parameters.push_back({{"path", p.path},
                          {"initial", p.initial},
                          {"lower", p.lower},
                          {"upper", p.upper},
                          {"unit", parameter_unit(p.path)}});
  nlohmann::json folds = nlohmann::json::array();
  for (const FoldResult& f : cv.fold_results) {
    nlohmann::json values = nlohmann::json::object();
    for (size_t i = 0; i < params.size(); ++i) values[params[i].path] = f.values[i];
    folds.push_back({{"fold", f.fold},
                     {"train_count", f.train_count},
                     {"test_count", f.test_count},
                     {"values", values},
                     {"evaluations", f.evaluations},
                     {"training", agreement_stats_json(f.training)},
                     {"test", agreement_stats_json(f.test)}});
  }
  return {{"folds", cv.folds},
          {"method", kFoldAssignment},
          {"parameters", parameters},
          {"fold_results", folds}};
}

}  // namespace

std::string correlation_json(const CorrelationSummary& s) {
  const CorrelationReport& report = *s.report;
  nlohmann::json j;
  j["schema_version"] = kCorrelationSchemaVersion;
  j["source"] = s.input->source;
  if (s.architecture) j["architecture"] = *s.architecture;
  j["architecture_hash"] = s.input->arch_hash;
  // Predicted on a graph: the operators whose mapper search ran out of budget (none: []).
  if (s.architecture) j["mapper_unconverged"] = s.input->unconverged.operators;
  j["compared"] = timing_comparison_text(*s.points);
  j["by"] = s.by;
  if (s.grouping.by == GroupBy::size) j["size_thresholds"] = report.size_thresholds;
  j["overall"] = agreement_stats_json(report.overall);
  j["groups"] = group_stats_json(report.groups);
  nlohmann::json worst = nlohmann::json::array();
  for (const WorstPrediction& w : report.worst) worst.push_back(worst_prediction_json(w));
  j["worst"] = worst;
  j["operators"] = compared_points_json(*s.points);
  if (s.input->trace_share) j["coverage_by_time"] = trace_time_share_json(*s.input->trace_share);
  if (s.per_shape) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const ShapeRanking& r : *s.per_shape)
      shapes.push_back(
          {{"operator", r.op}, {"mappings", r.mappings}, {"spearman", figure_json(r.spearman)}});
    j["per_shape"] = shapes;
    j["mean_per_shape_spearman"] = figure_json(mean_spearman(*s.per_shape));
  }
  const CrossValidation* cv = s.cross_validation;
  j["cross_validated"] = cv != nullptr;
  if (cv) {
    nlohmann::json training = agreement_stats_json(cv->training);
    training["kind"] = "mean over the folds' training sets";
    training["groups"] = group_stats_json(cv->training_groups);
    j["training"] = training;
    j["cross_validation"] = cross_validation_json(*cv, *s.parameters);
  }
  j["notes"] = s.notes;
  return j.dump(2);
}

std::string run_comparison_json(const RunComparison& c, const std::string& before,
                                const std::string& after) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OperatorDelta& d : c.matched)
    ops.push_back({{"operator", d.op},
                   {"measured_us_before", d.before->measured_s * 1e6},
                   {"measured_us_after", d.after->measured_s * 1e6},
                   {"predicted_us_before", d.before->predicted_s * 1e6},
                   {"predicted_us_after", d.after->predicted_s * 1e6},
                   {"measured_change", d.measured_change},
                   {"predicted_change", d.predicted_change},
                   {"log_error_before", d.log_error_before},
                   {"log_error_after", d.log_error_after},
                   {"worse_by", d.worse_by}});
  const nlohmann::json j{{"schema_version", kCorrelationSchemaVersion},
                         {"before", before},
                         {"after", after},
                         {"overall_before", agreement_stats_json(c.before)},
                         {"overall_after", agreement_stats_json(c.after)},
                         {"operators", ops},
                         {"only_before", c.only_before},
                         {"only_after", c.only_after}};
  return j.dump(2);
}

}  // namespace ts
