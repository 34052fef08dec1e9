#include "training/ModelState.hpp"

namespace ts {

ModelState model_state_per_gpu(const TransformerModel& m, const ParallelStrategy& s,
                               PipelineStage stage) {
  const double tp = static_cast<double>(s.tp.value), pp = static_cast<double>(s.pp.value);
  const double dp = static_cast<double>(s.dp.value), h = static_cast<double>(m.hidden);
  using B = ModelStateBytesPerParameter;
  if (m.is_graph()) {
    // A graph block: each GEMM's weight as its split says, the extra parameters replicated; no
    // embedding on any stage.
    ModelState st;
    st.parameters = static_cast<double>(m.layers) / pp * m.block.parameters_per_rank(s.tp.value);
    auto shard = [&](int zero_stage, double per_parameter) {
      return st.parameters * per_parameter / (s.zero.value >= zero_stage ? dp : 1.0);
    };
    st.weight_bytes = shard(3, B::weights);
    st.gradient_bytes = shard(2, B::gradients);
    st.optimizer_bytes = shard(1, B::optimizer);
    return st;
  }
  // What is not in the layers: embedding, positions, final norm.
  TransformerModel bare = m;
  bare.layers = 0;
  const double outside = bare.parameters();
  const double per_layer = (m.parameters() - outside) / static_cast<double>(m.layers);
  const double positions_and_norm = outside - static_cast<double>(m.vocab) * h;
  ModelState st;
  // Expert parallelism spreads each layer's experts over ep ranks (each expert still split by
  // tensor parallelism); the rest of the layer is on every rank.
  const double ep = static_cast<double>(s.ep.value);
  const double experts = m.expert_parameters_per_layer();
  st.expert_parameters = static_cast<double>(m.layers) / pp * experts / (tp * ep);
  st.parameters =
      static_cast<double>(m.layers) / pp * (per_layer - experts) / tp + st.expert_parameters;
  if (stage == PipelineStage::first)
    st.parameters +=
        static_cast<double>(m.vocab) * h / static_cast<double>(s.embedding_tensor_parallel()) +
        positions_and_norm;
  // ZeRO shards a parameter's state over the ranks that hold copies of it: all dp ranks for the
  // dense part, the dp / ep ranks of an expert's data-parallel group for the experts.
  const double dense = st.parameters - st.expert_parameters;
  auto shard = [&](int stage, double per_parameter) {
    const bool sharded = s.zero.value >= stage;
    return dense * per_parameter / (sharded ? dp : 1.0) +
           st.expert_parameters * per_parameter / (sharded ? dp / ep : 1.0);
  };
  st.weight_bytes = shard(3, B::weights);
  st.gradient_bytes = shard(2, B::gradients);
  st.optimizer_bytes = shard(1, B::optimizer);
  return st;
}

}  // namespace ts
