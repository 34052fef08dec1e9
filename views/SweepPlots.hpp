#pragma once
// The figures of a sweep (`tilescope sweep`, docs/sweep.md): the Pareto scatter of time against
// the cost proxy, against the suite's energy and against the graph's area (where the points have
// them), and the sensitivities of the total to each varied parameter as ranked bars.
// Functions that fill a QCustomPlot from core's values (sweep/SweepSummary), so that the GUI and
// headless reports draw the same figures.
#include <QPalette>
#include <QString>
#include <string>
#include <vector>

#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepCost.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepSummary.hpp"

class QCustomPlot;
class QCPGraph;
class QCPBars;

namespace ts::views {

struct SweepParetoData {
  QString title;                         // "bert-large on ascend910b3: 27 points"
  QString cost_label;                    // the x axis: "memory (MiB)", "peak memory per GPU (GiB)"
  double cost_unit = 1;                  // cost units per unit of the axis (bytes per MiB: 1048576)
  SweepCost cost;                        // what the x axis is (sweep_cost_value of each point)
  std::vector<SweepPointRecord> points;  // every point of the sweep
  std::vector<SweepPointRecord> front;   // pareto_front of the points that may be on it
};

// A digested sweep's points and front, with the axis a report and the GUI give its cost:
// memory in MiB (an architecture sweep's proxy) or peak memory per GPU in GiB (a strategy grid).
SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title);
// The same against the suite's energy (uJ; digest.energy_front) or the graph's area (mm^2;
// digest.area_front). Meant where the digest knows the figure (energy_known, area_known).
SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title,
                                  SweepFigure figure);
// The same against any cost (sweep/SweepCost): also the EDP (uJ us) and a varied parameter's
// value (in KiB, GB/s, GHz, us or as it is), the front worked out from the digest's points.
SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title,
                                  const SweepCost& cost);

struct SweepParetoContents {
  QCPGraph* points = nullptr;  // every drawable point, grey
  QCPGraph* front = nullptr;   // the front, joined in order of cost
  size_t left_out = 0;  // points with an infinite or non-positive time (no valid mapping), or
                        // without the figure
};

// Clears `plot` and draws time (us, log axis) against the figure.
SweepParetoContents fill_pareto_plot(QCustomPlot& plot, const SweepParetoData& data,
                                     const QPalette& palette);

struct SweepSensitivityContents {
  QCPBars* bars = nullptr;
  std::vector<std::string> order;  // the bars' parameters left to right (ranked)
  size_t unknown = 0;              // parameters whose sensitivity cannot be told (no bar)
};

// Clears `plot` and draws one bar per parameter, the elasticity of `subject`'s time to it,
// largest magnitude first (rank_sensitivities), a line at 0 and the value on each bar (as the
// tables write it: elasticity_text, so never "-0.00"). Parameters the fit left out as collinear
// get no bar and are counted with the unknown.
SweepSensitivityContents fill_sensitivity_plot(QCustomPlot& plot, const QString& title,
                                               const std::vector<std::string>& paths,
                                               const SweepSensitivity& subject,
                                               const QPalette& palette);

}  // namespace ts::views
