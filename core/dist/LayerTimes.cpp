#include "dist/LayerTimes.hpp"

#include "dist/LayerOperators.hpp"
#include "mapper/OperatorPrediction.hpp"

namespace ts {

LayerTime layer_forward_time(const TransformerModel& model, int64_t micro_batch, int64_t tp,
                             const ArchitectureGraph& device, bool decoder) {
  LayerTime layer;
  for (const Operator& op : layer_forward_operators(model, micro_batch, tp, decoder)) {
    const Prediction p = predict_operator(op, device, OperatorPredictionOptions{});
    OperatorTime t{op.name, p.latency_us * 1e-6, op.matmul_flops(), p.bound_by};
    layer.forward_s += t.seconds;
    layer.matmul_flops += t.matmul_flops;
    layer.operators.push_back(std::move(t));
  }
  return layer;
}

}  // namespace ts
