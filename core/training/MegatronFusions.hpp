#pragma once
// Megatron-LM's fusion options (strategy key `fusions:`, docs/formats.md): which of a layer's
// element-wise work runs as one fused kernel and which as PyTorch's eager ops. Defaults are
// Megatron-LM v3.0's (megatron/arguments.py: each is on unless its `--no-...` flag is given);
// MegatronKernels.cpp counts the kernels of each choice.
namespace ts {

struct MegatronFusions {
  // --no-masked-softmax-fusion: FusedScaleMaskSoftmax's CUDA kernel (one) instead of PyTorch's
  // float, scale, masked_fill, softmax, half (five).
  bool masked_softmax = true;
  // --no-bias-gelu-fusion: the TorchScript bias_gelu (one kernel) instead of add + gelu.
  bool bias_gelu = true;
  // --no-bias-dropout-fusion: the TorchScript bias_dropout_add (one kernel) instead of add,
  // dropout, add.
  bool bias_dropout_add = true;
  // --no-gradient-accumulation-fusion: apex's wgrad GEMM accumulates into main_grad, instead of a
  // weight gradient followed by the DDP hook's main_grad.add_ for each linear weight.
  bool gradient_accumulation = true;
  // Apex's persistent layer norm (FastLayerNormFN, what Megatron-LM v3.0's MixedFusedLayerNorm
  // picks for its usual hidden sizes) instead of torch.nn.LayerNorm. Not a v3.0 flag (its layers
  // always use apex); off is a build without apex, as Megatron-core's torch layer norm path.
  bool fused_layernorm = true;

  bool operator==(const MegatronFusions&) const = default;
};

}  // namespace ts
