#pragma once
// The host calls and kernels of one GPT transformer layer as Megatron-LM v3.0 issues them
// (ParallelTransformerLayer with ParallelAttention, CoreAttention and ParallelMLP, fp16 with
// query-key layer scaling, causal mask, local DDP with contiguous gradient buffers), forward or
// backward, per micro-batch, for tensor parallelism `tp` (collectives only when tp > 1) with or
// without sequence parallelism. Each entry names what it is, so that a reader can check it
// against Megatron-LM's code (MegatronKernels.cpp cites the file and function of each group).
// Assumed, as Megatron-LM v3.0 does for usual GPT shapes: the hidden size is one of apex's
// persistent layer norm sizes (1024, 1536, 2048, ... 65536; otherwise FusedLayerNormAffineFunction,
// three backward kernels and no make_viewless_tensor), and the fused softmax's kernel takes the
// sequence (16 < seq_len <= 2048 or 4096 by version, else FusedScaleMaskSoftmax falls back to
// PyTorch's five ops); no flash attention (not in v3.0).
// Not here: the embedding, the output layer and loss, the optimizer, the gradient all-reduce and
// the layer-norm gradients' all-reduce of sequence parallelism (once per iteration), recompute.
#include <cstdint>
#include <vector>

#include "training/HostDispatch.hpp"
#include "training/MegatronFusions.hpp"
#include "training/PipelineOrder.hpp"

namespace ts {

// Sequence parallelism needs tp > 1 (Megatron-LM turns it off at tp 1, megatron/arguments.py):
// with tp 1 it is ignored.
std::vector<HostCall> megatron_layer_calls(PassKind pass, int64_t tp, bool sequence_parallel,
                                           const MegatronFusions& fusions);

}  // namespace ts
