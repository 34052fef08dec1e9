#include "dist/ModelState.hpp"

namespace ts {

ModelState model_state_per_gpu(const TransformerModel& m, const ParallelStrategy& s,
                               PipelineStage stage) {
  const double tp = static_cast<double>(s.tp.value), pp = static_cast<double>(s.pp.value);
  const double dp = static_cast<double>(s.dp.value), h = static_cast<double>(m.hidden);
  // What is not in the layers: embedding, positions, final norm.
  TransformerModel bare = m;
  bare.layers = 0;
  const double outside = bare.parameters();
  const double per_layer = (m.parameters() - outside) / static_cast<double>(m.layers);
  const double positions_and_norm = outside - static_cast<double>(m.vocab) * h;
  ModelState st;
  st.parameters = static_cast<double>(m.layers) / pp * per_layer / tp;
  if (stage == PipelineStage::first)
    st.parameters += static_cast<double>(m.vocab) * h / tp + positions_and_norm;
  using B = ModelStateBytesPerParameter;
  st.weight_bytes = st.parameters * B::weights / (s.zero.value >= 3 ? dp : 1.0);
  st.gradient_bytes = st.parameters * B::gradients / (s.zero.value >= 2 ? dp : 1.0);
  st.optimizer_bytes = st.parameters * B::optimizer / (s.zero.value >= 1 ? dp : 1.0);
  return st;
}

}  // namespace ts
