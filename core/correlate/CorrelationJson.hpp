#pragma once
// The JSON documents of `tilescope correlate --format json` and of its diff (`--diff`,
// `--diff-run`), and the pieces of them that the report's data block repeats. Owned by the core
// so that the CLI, the reports and scripts read one format.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "correlate/CorrelationData.hpp"
#include "correlate/CorrelationFolds.hpp"
#include "correlate/RunComparison.hpp"

namespace ts {

// 2: a figure without a value (no points, an undefined correlation) is null, no longer 0.
inline constexpr int kCorrelationSchemaVersion = 2;

// Everything one `correlate` answer says.
struct CorrelationSummary {
  const CorrelationInput* input = nullptr;
  std::optional<std::string> architecture;  // the graph predicted on; none: stored predictions
  std::string by;  // the grouping as asked for: none, class, suite, mapping, size
  Grouping grouping;
  const std::vector<ComparedPoint>* points = nullptr;  // cross-validated ones after a fit
  const CorrelationReport* report = nullptr;
  const std::vector<ShapeRanking>* per_shape = nullptr;     // null when not asked for (CSV input)
  const CrossValidation* cross_validation = nullptr;        // null without a fit
  const std::vector<GraphParameter>* parameters = nullptr;  // the fitted ones, with a fit
  std::vector<std::string> notes;
};

// A figure, or null when it has none.
nlohmann::json figure_json(const std::optional<double>& figure);
nlohmann::json agreement_stats_json(const AgreementStats& stats);
nlohmann::json group_stats_json(const std::vector<GroupStats>& groups);
nlohmann::json worst_prediction_json(const WorstPrediction& worst);

// Every compared operator: name, suite, class, shape, dtypes, implementation, measured and
// predicted microseconds, error (predicted / measured - 1), bound_by; as JSON objects (the
// document's "operators") and as `correlate --format csv`.
nlohmann::json compared_points_json(const std::vector<ComparedPoint>& points);
std::string compared_points_csv(const std::vector<ComparedPoint>& points);

// `correlate --format json`: the document, indented by two spaces.
std::string correlation_json(const CorrelationSummary& summary);

// The diff of two runs, `before` and `after` naming their sources: the document, indented by two
// spaces.
std::string run_comparison_json(const RunComparison& comparison, const std::string& before,
                                const std::string& after);

}  // namespace ts
