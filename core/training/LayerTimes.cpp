#include "training/LayerTimes.hpp"

#include <algorithm>
#include <stdexcept>

#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "training/LayerOperators.hpp"

namespace ts {

namespace {

std::shared_ptr<const MeasuredTimes> load_measured_times(const std::string& path) {
  auto times = std::make_shared<MeasuredTimes>();
  times->database = path;
  times->fastest = fastest_measurements(ResultStore(path, ResultStore::Mode::read_only));
  return times;
}

}  // namespace

OperatorTimeSource parse_operator_time_source(const std::string& text) {
  OperatorTimeSource src;
  if (text == "tile") return src;
  if (text.rfind("db:", 0) == 0 && text.size() > 3) {
    src.kind = OperatorTimeSource::Kind::measured;
    src.measured = load_measured_times(text.substr(3));
    return src;
  }
  const std::string prefix = "roofline:";
  if (text.rfind(prefix, 0) == 0) {
    try {
      size_t used = 0;
      const double eff = std::stod(text.substr(prefix.size()), &used);
      if (used == text.size() - prefix.size() && eff > 0 && eff <= 1) {
        src.kind = OperatorTimeSource::Kind::roofline;
        src.efficiency = eff;
        return src;
      }
    } catch (const std::exception&) {
    }
  }
  throw InputError(SourceLocation{"operator times", 0, 0},
                   "'" + text +
                       "': expected `tile`, `roofline:EFF` with EFF in (0, 1], or "
                       "`db:FILE`");
}

double peak_ops_per_s(const ArchitectureGraph& g, OpClass cls, DataType dtype) {
  double best = 0;
  for (const ArchNode& n : g.nodes)
    if (const ComputeCapability* c = n.capability(cls, dtype))
      best = std::max(best, c->ops_per_cycle * static_cast<double>(n.instances) * n.clock_hz);
  return best;
}

double datasheet_peak_ops_per_s(const ArchitectureGraph& g, OpClass cls, DataType dtype) {
  double best = 0;
  for (const ArchNode& n : g.nodes)
    if (const ComputeCapability* c = n.capability(cls, dtype))
      best = std::max(
          best, c->datasheet_rate_per_cycle() * static_cast<double>(n.instances) * n.clock_hz);
  return best;
}

double hbm_bytes_per_s(const ArchitectureGraph& g) {
  double best = 0;
  for (const ArchNode& n : g.nodes)
    if (n.kind == NodeKind::memory) best = std::max(best, n.port_bytes_per_s);
  return best;
}

OperatorTime operator_time(const Operator& op, const ArchitectureGraph& device,
                           const OperatorTimeSource& source) {
  OperatorTime t{op.name, 0, op.matmul_flops(), ""};
  if (source.kind == OperatorTimeSource::Kind::measured && source.measured) {
    if (const auto cost = source.measured->fastest.of(operator_key(op, ""))) {
      t.seconds = cost->seconds;
      t.bound_by = "measured";
      return t;
    }
  }
  if (source.kind != OperatorTimeSource::Kind::roofline) {
    const Prediction p = predict_operator(op, device, OperatorPredictionOptions{});
    t.seconds = p.device_us * 1e-6;
    t.bound_by = p.bound_by;
    t.search_converged = !p.searched || p.search_converged;
    return t;
  }
  double compute = 0;
  for (const Stage& s : op.stages) {
    const double rate =
        peak_ops_per_s(device, s.op_class, op.tensors[static_cast<size_t>(s.output)].dtype);
    if (rate <= 0)
      throw InputError(op.where, "graph '" + device.name + "' has no unit for the " +
                                     std::string(to_string(s.op_class)) + " stage of '" + op.name +
                                     "'");
    compute += op.stage_points(s) * s.ops_per_point / (rate * source.efficiency);
  }
  // What crosses HBM: inputs and outputs, not the intermediates a fused chain keeps.
  double bytes = 0;
  for (int k = 0; k < static_cast<int>(op.tensors.size()); ++k)
    if (!op.is_intermediate(k)) bytes += op.tensor_bytes(k);
  const double hbm = hbm_bytes_per_s(device);
  const double memory = hbm > 0 ? bytes / hbm : 0;
  t.seconds = std::max(compute, memory);
  t.bound_by = compute >= memory ? "roofline:compute" : "roofline:memory";
  return t;
}

LayerTime layer_forward_time(const TransformerModel& model, int64_t micro_batch, int64_t tp,
                             const ArchitectureGraph& device, bool decoder,
                             const OperatorTimeSource& source) {
  LayerTime layer;
  for (const Operator& op : layer_forward_operators(model, micro_batch, tp, decoder)) {
    OperatorTime t = operator_time(op, device, source);
    t.recomputed_selectively = recomputed_selectively(model, op.name);
    t.split_by_sequence_parallelism = split_by_sequence_parallelism(model, op);
    layer.forward_s += t.seconds;
    layer.matmul_flops += t.matmul_flops;
    layer.operators.push_back(std::move(t));
  }
  return layer;
}

}  // namespace ts
