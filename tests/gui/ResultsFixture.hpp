#pragma once
// Results databases for the GUI tests, written here through the core's store: bert-base on the
// Ascend graph, the graph's own predictions stored under its hash, and made-up "measurements" at
// known distortions of them (test values, not measured data).
#include <QString>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "GuiTestSupport.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"
#include "measure/ResultStore.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::guitest {

struct BertOnAscend {
  ArchitectureGraph graph = load_architecture(sample("arch/ascend910b3.yaml").toStdString());
  Workload workload = load_workload(sample("workloads/bert-base.yaml").toStdString());
};

inline RunStart run_start(const BertOnAscend& in, const std::string& device) {
  RunStart start;
  start.collector = "test";
  start.workload = in.workload.name;
  start.tool_version = "test";
  start.settings_json = "{}";
  start.device = {device, "synthetic", hash_text(in.graph.content_hash()), "{}"};
  return start;
}

// The operator's prediction, stored, and a measurement record of it at the predicted latency.
inline Measurement predicted_measurement(ResultStore& store, const BertOnAscend& in,
                                         const Operator& op) {
  const Prediction p = predict_operator(op, in.graph, {});
  const PredictionRecord rec =
      prediction_record(p, operator_key(op, in.workload.name), std::nullopt, in.graph, "");
  store.add_prediction(rec);
  Measurement m;
  m.op = rec.op;
  m.implementation = "synthetic";
  m.scope = TimingScope::device;
  m.repetitions = 10;
  m.checked = true;
  m.median_ns = m.min_ns = p.device_us * 1e3;
  return m;
}

// One run on a device of the given name measuring the first `count` operators: operator i
// measured at its prediction x (1 + 0.04 i - 0.2).
inline void add_run(ResultStore& store, const BertOnAscend& in, const std::string& device,
                    size_t count) {
  const int64_t run = store.begin_run(run_start(in, device));
  for (size_t i = 0; i < std::min(count, in.workload.operators.size()); ++i) {
    Measurement m = predicted_measurement(store, in, in.workload.operators[i]);
    m.median_ns = m.min_ns = m.median_ns * (1 + 0.04 * static_cast<double>(i) - 0.2);
    store.add_measurement(run, m);
  }
  store.finish_run(run, RunStatus::complete);
}

// One run of `count` measurements cycling over the suite, with log-normal noise (sigma 0.15)
// around the predictions: for sizes, not for values.
inline void make_large_database(const QString& path, size_t count) {
  const BertOnAscend in;
  ResultStore store(path.toStdString());
  const int64_t run = store.begin_run(run_start(in, in.graph.name));
  std::vector<Measurement> ops;
  for (const Operator& op : in.workload.operators)
    ops.push_back(predicted_measurement(store, in, op));
  std::mt19937 random(7);
  std::lognormal_distribution<double> noise(0, 0.15);
  for (size_t i = 0; i < count; ++i) {
    Measurement m = ops[i % ops.size()];
    m.implementation = "synthetic" + std::to_string(i / ops.size() % 50);
    m.median_ns = m.min_ns = m.median_ns * noise(random);
    store.add_measurement(run, m);
  }
  store.finish_run(run, RunStatus::complete);
}

}  // namespace ts::guitest
