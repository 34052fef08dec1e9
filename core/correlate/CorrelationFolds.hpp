#pragma once
// Cross-validated fitting for `correlate --fit PARAM... --folds K`: the points are split into K
// folds (assign_folds: ordered by FLOPs, dealt out in turn); for each fold the parameters are
// fitted on the other K - 1 folds and the fold is predicted with them. Every point's prediction
// then comes from a fit that never saw it, and the figures computed from them are
// cross-validated. The training error beside them is the mean, over the K fits, of the error on
// each fit's own training set.
#include <functional>
#include <vector>

#include "calibrate/ParameterFit.hpp"
#include "correlate/Correlation.hpp"

namespace ts {

struct FoldResult {
  int fold = 0;
  size_t train_count = 0, test_count = 0;
  std::vector<double> values;  // fitted, per parameter
  int evaluations = 0;
  AgreementStats training;  // of the fit on its own training set
  AgreementStats test;      // of the fold predicted with that fit
};

struct CrossValidation {
  int folds = 0;
  std::vector<int> fold_of;           // per point
  std::vector<ComparedPoint> points;  // the input, with cross-validated predictions
  std::vector<FoldResult> fold_results;
  AgreementStats training;                  // mean over the folds' training sets
  std::vector<GroupStats> training_groups;  // the same per group (when grouped)
};

// Called during each fold's fit: the fold (0-based), the evaluations so far, the best log-RMSE.
using FoldProgress = std::function<void(int fold, int evaluations, double log_rmse)>;

// `samples[i]` re-predicts `points[i]`. Throws std::invalid_argument unless 2 <= k <= points.
CrossValidation cross_validate(const ArchitectureGraph& graph,
                               const std::vector<GraphParameter>& params,
                               const std::vector<ComparedPoint>& points,
                               const std::vector<FitSample>& samples, int k,
                               const Grouping& grouping, int max_evaluations = 400,
                               const FoldProgress& progress = {});

// The field-by-field mean of several agreements (count included), skipping empty ones.
AgreementStats mean_agreement(const std::vector<AgreementStats>& stats);

}  // namespace ts
