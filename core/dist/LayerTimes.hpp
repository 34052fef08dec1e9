#pragma once
// How long a layer's operators take on one device, from the tile model: each operator of
// `layer_forward_operators` mapped and predicted on the device's architecture graph. Device time
// only: in training, kernels are queued ahead of the GPU, so their launch cost overlaps the
// kernel before.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "dist/TransformerModel.hpp"

namespace ts {

struct OperatorTime {
  std::string name;
  double seconds = 0;
  double matmul_flops = 0;
  std::string bound_by;
};

struct LayerTime {
  std::vector<OperatorTime> operators;
  double forward_s = 0;
  double matmul_flops = 0;
};

LayerTime layer_forward_time(const TransformerModel& model, int64_t micro_batch, int64_t tp,
                             const ArchitectureGraph& device, bool decoder = false);

}  // namespace ts
