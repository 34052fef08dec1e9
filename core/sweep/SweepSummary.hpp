#pragma once
// What `sweep --summary` (and the views) say about a sweep's points: how sensitive the suite
// total and each operator are to each varied parameter, and which points are Pareto-optimal in
// latency against the cost proxy.
//
// Sensitivity is an elasticity: the relative change of time per relative change of the
// parameter, d ln T / d ln p (-1: time halves when the parameter doubles; 0: no effect). It is
// the coefficient of ln p in the least-squares fit ln T = c + sum_k s_k ln p_k over the points
// (docs/analysis.md): on a cross product this is the mean slope of each parameter's main effect
// in log space, and it works alike on drawn (lhs, random) points, where no two points differ in
// one parameter alone.
#include <optional>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"

namespace ts {

// A path the fit left out because, over the points it was fitted on, its logarithm is a linear
// combination of other fitted paths' (a strategy grid on one cluster: dp = GPUs / (tp x pp)):
// its effect cannot be told apart from theirs, whose elasticities then hold it.
struct SweepCollinearity {
  std::string path;
  std::vector<std::string> with;  // the fitted paths it is a combination of
};

struct SweepSensitivity {
  std::string subject;  // "total" (the suite: sum of device + launch time) or an operator's name
  // One per path, in the order given; nullopt where it cannot be told: the parameter took one
  // value only or a value <= 0 or no number (no logarithm) over the subject's points, or it is
  // collinear with others (below), or the points do not determine the fit. Exactly 0 where the
  // subject does not move along the path at all (sweep_path_without_effect), or not at all.
  std::vector<std::optional<double>> elasticity;
  std::vector<SweepCollinearity> collinear = {};
};

// A point's values of `paths`, read back from its parameters_json; NaN for a value that is not a
// number (a strategy grid's schedule or cluster file), whose sensitivity cannot be told.
std::vector<double> sweep_parameter_values(const SweepPointRecord& point,
                                           const std::vector<std::string>& paths);

// Rows: the total first, then each operator in the order of the first point. Points in which the
// subject has no valid mapping (an infinite time) are left out of its fit. Paths whose effect
// the points cannot tell apart are fitted in the order given: the first ones stay in the fit
// and a later one collinear with them is left out and named in `collinear` (order a derived
// parameter last: a strategy grid's dp).
std::vector<SweepSensitivity> sweep_sensitivities(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points);

// An elasticity as the tables write it: "-" where it cannot be told, "0" where it rounds to 0 at
// three decimals (never "-0.000"), else signed with three decimals ("+0.836").
std::string elasticity_text(const std::optional<double>& elasticity);

// One line per path the fits left out as collinear (the first row's wording wins), e.g. "dp is
// not fitted: over these points it is determined by pp and tp (its logarithm is a linear
// combination of theirs), so its effect cannot be told apart from theirs; their elasticities
// hold it".
std::vector<std::string> sweep_collinearity_notes(const std::vector<SweepSensitivity>& rows);

struct RankedSensitivity {
  std::string path;
  std::optional<double> elasticity;
};

// The paths ordered by how far the subject's time moves with each (|elasticity|, largest first;
// ties in the given order), those whose sensitivity cannot be told last: what to vary first.
std::vector<RankedSensitivity> rank_sensitivities(const std::vector<std::string>& paths,
                                                  const SweepSensitivity& row);

// The points no other point beats in both total time and cost (lower is better in both; a tie in
// both keeps the lower energy where known, then the first by parameters_json), ordered by rising
// cost and so falling time.
std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points);

// What a front sets time against (docs/sweep.md, "Summary"): the cost proxy (SweepPointRecord::
// cost: memory bytes, or a strategy grid's peak memory per GPU), the suite's energy (J), the
// graph's area (m^2), the energy-delay product (J s) or a varied parameter's value (sweep/
// SweepCost, which names the parameter).
enum class SweepFigure { cost, energy, area, edp, parameter };

// The point's figure; nullopt where it is not known (energy, area and EDP only; a parameter's
// value needs its path: sweep_cost_value).
std::optional<double> sweep_figure(const SweepPointRecord& point, SweepFigure figure);
// The energy-delay product of the suite, energy x total time (J s), where the energy is known and
// the time finite.
std::optional<double> sweep_edp(const SweepPointRecord& point);
// Whether a front on `figure` can be drawn: some point has a finite time, and every point with a
// finite time has the figure (a point without a valid mapping is on no front whatever its energy).
bool sweep_figure_known(const std::vector<SweepPointRecord>& points, SweepFigure figure);
// The points no other point beats in both total time and the figure (lower is better in both),
// as pareto_front does for the cost: ordered by rising figure and so falling time; a tie in the
// figure keeps the faster, a tie in time the lower figure, a tie in both the lower energy (on the
// energy front: the lower area; unknown last), then the first by parameters_json. Points without
// the figure are on no front.
std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points,
                                           SweepFigure figure);
// The elasticity of the figure (energy or area) to each path, fitted as the time's is
// (sweep_sensitivities) over the points that have the figure, positive; subject "energy" or
// "area".
SweepSensitivity sweep_figure_sensitivity(const std::vector<std::string>& paths,
                                          const std::vector<SweepPointRecord>& points,
                                          SweepFigure figure);

}  // namespace ts
