#include "training/ActivationMemory.hpp"

#include <algorithm>

namespace ts {

namespace {

// A graph block saves the layer's input and the output of every operator but the last (whose
// output is the next layer's input, saved there), each as its split leaves it on one rank;
// sequence parallelism splits the input and the replicated vector operators' outputs as well
// (those it runs on tokens / tp).
// Selective recomputation drops the outputs of the operators it recomputes; full recomputation
// keeps the input alone.
std::vector<SavedActivation> graph_saved_activations(const TransformerModel& m,
                                                     const ParallelStrategy& st) {
  const int64_t tp = st.tp.value;
  const double outside = st.sequence_parallel ? static_cast<double>(tp) : 1.0;
  const double input =
      2 * static_cast<double>(st.micro_batch.value * m.seq_len * m.hidden) / outside;
  std::vector<SavedActivation> saved{{"layer input", input}};
  if (st.recompute == Recompute::full) return saved;
  const std::vector<BlockOperator>& ops = m.block.operators;
  for (size_t k = 0; k + 1 < ops.size(); ++k) {
    const BlockOperator& b = ops[k];
    if (st.recompute == Recompute::selective && b.recompute_selective) continue;
    const Operator op = b.on_rank(st.micro_batch.value, tp);
    const double bytes = op.tensor_bytes(op.stages.back().output);
    const bool sequence_split = b.split == TensorSplit::none && !b.is_matmul();
    saved.push_back({b.name + " output", sequence_split ? bytes / outside : bytes});
  }
  return saved;
}

}  // namespace

std::vector<SavedActivation> layer_saved_activations(const TransformerModel& m,
                                                     const ParallelStrategy& st) {
  if (m.is_graph()) return graph_saved_activations(m, st);
  const double s = static_cast<double>(m.seq_len), b = static_cast<double>(st.micro_batch.value);
  const double h = static_cast<double>(m.hidden), a = static_cast<double>(m.heads);
  const double f = static_cast<double>(m.ffn), t = static_cast<double>(st.tp.value);
  const double sbh = s * b * h;
  // Tensors inside the tensor-parallel regions are split over the ranks; those outside them
  // (layernorms, dropouts, the inputs of the first linear layers) are split only with sequence
  // parallelism.
  const double outside = st.sequence_parallel ? t : 1.0;
  if (st.recompute == Recompute::full) return {{"layer input", 2 * sbh / outside}};
  std::vector<SavedActivation> saved{
      {"attention layernorm input", 2 * sbh / outside},
      {"QKV input", 2 * sbh / outside},
      {"Q and K", 4 * sbh / t},
      {"V", 2 * sbh / t},
      {"attention projection input", 2 * sbh / t},
      {"attention dropout mask", sbh / outside},
      {"MLP layernorm input", 2 * sbh / outside},
      {"MLP input", 2 * sbh / outside},
      {"GeLU input", 2 * s * b * f / t},
      {"MLP down input", 2 * s * b * f / t},
      {"MLP dropout mask", sbh / outside},
  };
  // The attention core's s x s tensors; selective recomputation recomputes them instead.
  if (st.recompute != Recompute::selective) {
    const double scores = a * s * s * b / t;
    saved.push_back({"softmax output", 2 * scores});
    saved.push_back({"softmax dropout mask", scores});
    saved.push_back({"softmax dropout output", 2 * scores});
  }
  return saved;
}

double mean_layer_saved_bytes(const TransformerModel& m, const ParallelStrategy& st) {
  const int64_t per_chunk = m.layers / std::max<int64_t>(1, st.pp.value * st.chunks.value);
  double mean = 0;
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    const double share = st.recompute_share(r, per_chunk);
    if (share <= 0) continue;
    ParallelStrategy as = st;
    as.recompute = r;
    double bytes = 0;
    for (const SavedActivation& a : layer_saved_activations(m, as)) bytes += a.bytes;
    mean += share * bytes;
  }
  return mean;
}

double activation_bytes_per_gpu(const TransformerModel& m, const ParallelStrategy& st) {
  const double layer = mean_layer_saved_bytes(m, st);
  const double L = static_cast<double>(m.layers), p = static_cast<double>(st.pp.value);
  const double v = static_cast<double>(st.chunks.value);
  switch (st.schedule.value) {
    case PipelineSchedule::gpipe:
      return layer * L / p * static_cast<double>(st.micro_batches());
    case PipelineSchedule::one_f_one_b:
      // The first stage holds as many micro-batches as there are stages, at most all of them.
      return layer * L / p * std::min(p, static_cast<double>(st.micro_batches()));
    case PipelineSchedule::interleaved:
      return layer * L * (1 + (p - 1) / (p * v));
  }
  return layer * L;
}

}  // namespace ts
