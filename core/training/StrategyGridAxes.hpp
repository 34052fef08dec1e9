#pragma once
// A grid of training strategies around a base one: what `simulate --sweep` and
// `sweep --strategy-grid` both vary, read by one parser and expanded by one rule.
//
// Keys, each `KEY=V1,V2,...`: tp, pp, dp, micro-batch (mbs is its short name), schedule (gpipe,
// 1f1b, interleaved) and cluster (files; only where the caller takes several clusters). A key not
// given keeps the base strategy's value; dp not given makes up the base strategy's GPU count.
#include <cstdint>
#include <string>
#include <vector>

#include "training/TrainingSimulation.hpp"

namespace ts {

struct StrategyGridAxes {
  std::vector<int64_t> tp, pp, dp, micro_batch;  // empty: the base's value
  std::vector<PipelineSchedule> schedule;
  std::vector<std::string> cluster;  // files
};

// One key per text. Throws InputError at `where` ("strategy grid", "strategy sweep") naming the
// text and the key or value: an unknown key (cluster is one unless `clusters` is true), a key
// given twice, a degree that is not a whole number from 1 to 65536, an unknown schedule, an
// empty value.
StrategyGridAxes parse_strategy_grid(const std::vector<std::string>& texts,
                                     const std::string& where = "strategy grid",
                                     bool clusters = true);

// The names of the keys a grid varies, sorted (the order of a strategy-grid sweep's parameters).
std::vector<std::string> varied_grid_keys(const StrategyGridAxes& axes);

struct StrategyGrid {
  std::vector<ParallelStrategy> strategies;  // tp outermost, then pp, dp, micro-batch, schedule
  size_t skipped = 0;                        // points of the cross product that do not fit
};

// The cross product of the axes (not the clusters) less the points that do not fit the model:
// tp x pp not dividing the base's GPUs where dp is not given, degrees or batch the model refuses
// (check_strategy_fits), interleaving without whole groups of pp micro-batches. One stage has no
// pipeline to schedule (1f1b, and each schedule the same point, kept once); chunks are for
// interleaving only (at least 2 there, the base's count when it has more). Each strategy is named
// "<base> tpT ppP dpD mbsM <schedule>".
StrategyGrid expand_strategy_grid(const TransformerModel& model, const ParallelStrategy& base,
                                  const StrategyGridAxes& axes);

}  // namespace ts
