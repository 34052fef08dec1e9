#include "training/TensorParallelOverlap.hpp"

#include <map>
#include <string>

#include "training/GraphBlock.hpp"

namespace ts {

LayerTensorParallelTime layer_tensor_parallel_time(const std::vector<TensorParallelRegion>& regions,
                                                   bool sequence_parallel, double interference) {
  LayerTensorParallelTime t;
  for (const TensorParallelRegion& r : regions) {
    const double w = r.column_gemm_s;
    if (!sequence_parallel) {
      t.forward_s += r.all_reduce_s;
      t.backward_s += overlapped_s(r.all_reduce_s, w, interference) - w;
      t.backward_hidden_s += std::min(r.all_reduce_s, w);
      t.forward_kernels += 1;
      t.backward_kernels += 1;
      continue;
    }
    t.forward_s += r.all_gather_s + r.reduce_scatter_s;
    t.backward_s += r.all_gather_s  // the row GEMM's output gradient, before its backward
                    + overlapped_s(r.all_gather_s, w, interference) - w       // input, with dgrad
                    + overlapped_s(r.reduce_scatter_s, w, interference) - w;  // dgrad, with wgrad
    t.backward_hidden_s += std::min(r.all_gather_s, w) + std::min(r.reduce_scatter_s, w);
    t.forward_kernels += 2;
    t.backward_kernels += 3;
  }
  return t;
}

std::vector<double> column_parallel_gemm_s(const TransformerModel& m, const LayerTime& layer) {
  std::map<std::string, double> seconds;
  for (const OperatorTime& op : layer.operators) seconds[op.name] += op.seconds;
  auto time_of = [&](const std::string& name) {
    const auto it = seconds.find(name);
    return it == seconds.end() ? 0.0 : it->second;
  };
  if (!m.is_graph()) return {time_of("qkv"), time_of("mlp_up") + time_of("mlp_gate_up")};
  std::vector<double> regions;
  double open = 0;
  for (const BlockOperator& b : m.block.operators) {
    if (b.split == TensorSplit::column && b.is_matmul()) open += time_of(b.name);
    if (b.split == TensorSplit::row) {
      regions.push_back(open);
      open = 0;
    }
  }
  return regions;
}

}  // namespace ts
