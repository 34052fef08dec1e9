#pragma once
// What `correlate` computes from pairs of predicted and measured latencies, whatever their
// source (a results database or a CSV table): agreement per group and overall, the worst
// predictions, the per-shape ranking of mappings, and the deterministic folds of a
// cross-validated fit. See docs/correlate.md.
#include <optional>
#include <string>
#include <vector>

#include "correlate/Statistics.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts {

// One measurement joined with its prediction; predicted_s is already comparable (device +
// launch for a host_call measurement, device alone for a device one).
struct ComparedPoint {
  std::string op_name;
  std::string suite;
  std::string op_class;        // matmul, elementwise, reduction
  std::string shape;           // Operator::shape_text()
  std::string type, dtypes;    // with the shape, what the operator computes (MeasuredCost.hpp)
  std::string implementation;  // tiled, openblas, vector, ...; the class for a CSV row
  std::string mapping;         // implementation (+ "/" mapping name), what --by mapping groups
  std::string mapping_hash;    // "" for a black box (mapper-chosen prediction)
  double flops = 0;
  TimingScope scope = TimingScope::host_call;
  double predicted_s = 0;  // +inf when the prediction failed
  double measured_s = 0;
  std::string bound_by;
};

// The measured operator's key, as the store keeps it (name, suite, type, dims, dtypes, class),
// and the point's operator fields filled from one.
OperatorKey operator_key(const ComparedPoint& point);
ComparedPoint compared_point(const OperatorKey& op);

enum class GroupBy { none, op_class, suite, mapping, size };

struct Grouping {
  GroupBy by = GroupBy::none;
  // size only: FLOP thresholds t1 < t2 < ...; empty: the terciles of the points' FLOPs.
  std::vector<double> thresholds;
};

// "class", "suite", "mapping", "size" or "size=T1,T2,..." (FLOPs, SI suffixes allowed: 41.6G).
// Throws InputError (file "grouping") naming the text and the valid forms.
Grouping parse_grouping(const std::string& text);

// The terciles of a set of FLOP counts, as the validation README defines them: the values at
// sorted positions floor(n/3) and floor(2n/3), so that small < t1 <= medium < t2 <= large.
std::vector<double> flops_terciles(std::vector<double> flops);
// "small", "medium", "large" for two thresholds; else "<T1", "[T1,T2)", ..., ">=Tn".
std::vector<std::string> size_group_names(const std::vector<double>& thresholds);
size_t size_group_index(double flops, const std::vector<double>& thresholds);

struct GroupStats {
  std::string group;
  AgreementStats stats;
};

struct WorstPrediction {
  std::string op_name, shape, mapping, bound_by;
  double predicted_s = 0, measured_s = 0;
  double error = 0;  // (predicted - measured) / measured
};

// Per operator (suite, name, dims): how well the predictions rank its mappings.
struct ShapeRanking {
  std::string op;  // "suite/name M=.. N=.. K=.."
  size_t mappings = 0;
  std::optional<double> spearman;  // none when predictions or measurements are all equal
};

struct CorrelationReport {
  AgreementStats overall;
  std::vector<GroupStats> groups;       // empty without grouping
  std::vector<double> size_thresholds;  // the thresholds used by --by size
  std::vector<WorstPrediction> worst;
  size_t failed_predictions = 0;  // points whose prediction is infinite (left out of the figures)
};

// The group of each point under a grouping (thresholds: the size thresholds, filled when the
// terciles are computed here).
std::vector<std::string> group_labels(const std::vector<ComparedPoint>& points,
                                      const Grouping& grouping, std::vector<double>* thresholds);
// The group names in report order: size groups from small to large, others alphabetical.
std::vector<std::string> group_order(const std::vector<std::string>& labels,
                                     const Grouping& grouping,
                                     const std::vector<double>& thresholds);

CorrelationReport correlate_points(const std::vector<ComparedPoint>& points,
                                   const Grouping& grouping, size_t worst_count = 10);

// Agreement per group for the points with `include[i]` (all when empty), in `order`.
std::vector<GroupStats> group_agreement(const std::vector<ComparedPoint>& points,
                                        const std::vector<std::string>& labels,
                                        const std::vector<std::string>& order,
                                        const std::vector<bool>& include = {});
AgreementStats overall_agreement(const std::vector<ComparedPoint>& points,
                                 const std::vector<bool>& include = {});

// matmul points of the tiled implementation grouped by operator; operators with at least
// `min_mappings` distinct mappings get the Spearman of predicted vs measured across them.
std::vector<ShapeRanking> per_shape_ranking(const std::vector<ComparedPoint>& points,
                                            size_t min_mappings = 3);
// The mean over the operators whose Spearman has a value; none when no operator has one.
std::optional<double> mean_spearman(const std::vector<ShapeRanking>& rankings);

// The fold (0..k-1) of each point: points ordered by FLOPs (ties by their index) are dealt out
// in turn, so every fold spans the whole size range and the split depends on nothing else.
std::vector<int> assign_folds(const std::vector<double>& flops, int k);
// assign_folds in a phrase, as the outputs state it.
inline constexpr const char* kFoldAssignment =
    "points ordered by FLOPs (ties by input order) are dealt out to the folds in turn";

// What the points' latencies were compared with, per timing scope present ("N host_call
// measurements with device + launch; M device measurements with device time alone").
std::string timing_comparison_text(const std::vector<ComparedPoint>& points);

}  // namespace ts
