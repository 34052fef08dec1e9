#pragma once
// A traced step on another chip: the step's measured wall time, the same step predicted on the
// graph of the chip it ran on ("here") and on another chip's graph ("there"). Each operator the
// import path stores (trace/OperatorRunTimes: its runs' summed kernels) is predicted on both
// graphs; what is not modelled (collectives, operators without shapes or model, and the time no
// kernel of the step ran: idle, overlap) is carried over as measured, and said so. Three figures
// for "there":
// - predicted: measured wall - modelled operators' measured time + their predictions there;
// - by ratio: each modelled operator's measured time x (there / here), which keeps what the
//   model gets wrong on both chips alike out of the answer;
// and the same "here", whose distance from the measured step is the model's error on the chip
// the trace came from, the figure that says how far to trust "there".
// Kernels are assumed to run one after another on the step's critical path (one compute
// stream); a step whose modelled kernels overlapped each other is over-counted, and the carried
// time assumes the host keeps its pace on the other chip.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "mapper/Mapper.hpp"
#include "trace/RankTrace.hpp"
#include "trace/TraceTimeCoverage.hpp"

namespace ts {

struct StepOperatorPrediction {
  std::string name;
  std::string shape;
  std::string op_class;
  std::string kernels;  // what one run launched
  int64_t runs = 0;
  double measured_ns = 0;         // summed over its runs in the step
  std::optional<double> here_ns;  // device time x runs; none: not predicted (error says)
  std::optional<double> there_ns;
  std::string error;  // why it could not be predicted on one of the graphs
  bool modelled() const { return here_ns && there_ns; }
};

struct TraceStepPrediction {
  std::string file;
  std::string device_name;  // the trace's
  std::string here, there;  // the graphs' names
  TimeWindow window;        // the step (or the whole trace) on rank 0 of the file
  double wall_ns = 0;
  TraceTimeCoverage coverage;    // of the step's kernels by the import path
  double modelled_ns = 0;        // measured time of the operators predicted on both graphs
  double here_ns = 0;            // their predictions here
  double there_ns = 0;           // and there
  double there_by_ratio_ns = 0;  // sum of measured x there / here over them
  std::vector<StepOperatorPrediction> operators;  // longest measured first
  std::vector<std::string> notes;

  double carried_ns() const { return wall_ns - modelled_ns; }
  double predicted_here_wall_ns() const { return carried_ns() + here_ns; }
  double predicted_there_wall_ns() const { return carried_ns() + there_ns; }
  double there_by_ratio_wall_ns() const { return carried_ns() + there_by_ratio_ns; }
};

// `path`: one Kineto trace (plain or .gz) or Nsight Systems export; `step`: ProfilerStep#N, or
// -1 for the whole trace. `progress(done, total)` counts operators predicted. Throws InputError
// for bad input (and a missing step), as the readers do.
TraceStepPrediction predict_trace_step(const std::string& path, const ArchitectureGraph& here,
                                       const ArchitectureGraph& there, int64_t step,
                                       const MapperOptions& mapper,
                                       const std::function<void(size_t, size_t)>& progress = {});

// `trace predict --format json`, and the report's data: every figure above, in microseconds.
nlohmann::json trace_step_prediction_json(const TraceStepPrediction& prediction);

}  // namespace ts
