#include "correlate/CorrelationFolds.hpp"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace ts {

AgreementStats mean_agreement(const std::vector<AgreementStats>& stats) {
  // Each figure is the mean over the sets where it has a value; a figure no set has stays none.
  auto mean_of = [&](std::optional<double> AgreementStats::*figure) -> std::optional<double> {
    double sum = 0;
    size_t n = 0;
    for (const AgreementStats& s : stats)
      if (s.*figure) {
        sum += *(s.*figure);
        ++n;
      }
    if (n == 0) return std::nullopt;
    return sum / static_cast<double>(n);
  };
  AgreementStats mean;
  double count = 0;
  size_t sets = 0;
  for (const AgreementStats& s : stats) {
    if (s.count == 0) continue;
    ++sets;
    count += static_cast<double>(s.count);
  }
  if (sets == 0) return mean;
  mean.count = static_cast<size_t>(std::llround(count / static_cast<double>(sets)));
  mean.pearson = mean_of(&AgreementStats::pearson);
  mean.spearman = mean_of(&AgreementStats::spearman);
  mean.kendall = mean_of(&AgreementStats::kendall);
  mean.mape = mean_of(&AgreementStats::mape);
  mean.log_rmse = mean_of(&AgreementStats::log_rmse);
  return mean;
}

CrossValidation cross_validate(const ArchitectureGraph& graph,
                               const std::vector<GraphParameter>& params,
                               const std::vector<ComparedPoint>& points,
                               const std::vector<FitSample>& samples, int k,
                               const Grouping& grouping, int max_evaluations,
                               const FoldProgress& progress) {
  if (samples.size() != points.size())
    throw std::invalid_argument("cross_validate: one sample per point is needed");
  if (k < 2 || static_cast<size_t>(k) > points.size())
    throw std::invalid_argument("cross_validate: 2 <= folds <= points");
  CrossValidation cv;
  cv.folds = k;
  cv.points = points;
  std::vector<double> flops;
  for (const ComparedPoint& p : points) flops.push_back(p.flops);
  cv.fold_of = assign_folds(flops, k);

  std::vector<double> thresholds;
  const std::vector<std::string> labels = group_labels(points, grouping, &thresholds);
  const std::vector<std::string> order = group_order(labels, grouping, thresholds);
  std::vector<AgreementStats> training_overall;
  std::map<std::string, std::vector<AgreementStats>> training_by_group;

  for (int fold = 0; fold < k; ++fold) {
    std::vector<FitSample> train;
    std::vector<bool> in_train(points.size()), in_test(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      in_train[i] = cv.fold_of[i] != fold;
      in_test[i] = !in_train[i];
      if (in_train[i]) train.push_back(samples[i]);
    }
    const FitResult fit = fit_parameters(graph, params, train, max_evaluations,
                                         [&](int evaluations, double log_rmse) {
                                           if (progress) progress(fold, evaluations, log_rmse);
                                         });
    // One pass over every sample with the fold's graph: the fold's own points become the
    // cross-validated predictions, the rest give the fit's training error.
    const std::vector<SamplePrediction> predicted = predict_samples_detailed(fit.graph, samples);
    std::vector<ComparedPoint> under_fit = points;
    for (size_t i = 0; i < points.size(); ++i) {
      under_fit[i].predicted_s = predicted[i].compared_s;
      under_fit[i].bound_by = predicted[i].bound_by;
      if (in_test[i]) cv.points[i] = under_fit[i];
    }
    FoldResult r;
    r.fold = fold;
    r.train_count = train.size();
    r.test_count = points.size() - train.size();
    r.values = fit.values;
    r.evaluations = fit.evaluations;
    r.training = overall_agreement(under_fit, in_train);
    r.test = overall_agreement(under_fit, in_test);
    training_overall.push_back(r.training);
    if (grouping.by != GroupBy::none)
      for (const GroupStats& g : group_agreement(under_fit, labels, order, in_train))
        training_by_group[g.group].push_back(g.stats);
    cv.fold_results.push_back(std::move(r));
  }
  cv.training = mean_agreement(training_overall);
  if (grouping.by != GroupBy::none)
    for (const std::string& name : order)
      cv.training_groups.push_back({name, mean_agreement(training_by_group[name])});
  return cv;
}

}  // namespace ts
