#include "training/MegatronKernels.hpp"

#include <string>
#include <utility>

// Sources, Megatron-LM v3.0 (github.com/NVIDIA/Megatron-LM, tag v3.0; the same code moved to
// megatron/core/tensor_parallel/ in 2023):
//   megatron/model/transformer.py     ParallelTransformerLayer.forward, ParallelAttention.forward,
//                                     CoreAttention.forward, ParallelMLP.forward,
//                                     bias_dropout_add, bias_dropout_add_fused_train
//   megatron/mpu/layers.py            ColumnParallelLinear.forward, RowParallelLinear.forward,
//                                     LinearWithGradAccumulationAndAsyncCommunication
//   megatron/mpu/mappings.py          _CopyToModelParallelRegion, _ReduceFromModelParallelRegion,
//                                     _ReduceScatterToSequenceParallelRegion
//   megatron/mpu/random.py            CudaRNGStatesTracker.fork
//   megatron/model/fused_softmax.py   FusedScaleMaskSoftmax, ScaledUpperTriangMaskedSoftmax
//   megatron/model/fused_bias_gelu.py bias_gelu, bias_gelu_back, GeLUFunction
//   megatron/model/fused_layer_norm.py MixedFusedLayerNorm.forward (apex FastLayerNormFN)
//   megatron/model/distributed.py     DistributedDataParallel._make_param_hook (main_grad.add_)
//   megatron/model/utils.py / mpu/utils.py make_viewless_tensor, split_tensor_along_last_dim
// PyTorch (1.12-2.x) for what its autograd does with them: tools/autograd/derivatives.yaml
// (baddbmm, bmm, native_dropout, expand), torch/csrc/autograd/engine.cpp (validate_outputs'
// sum_to, InputBuffer::accumulate), aten/src/ATen/native/cuda/layer_norm_kernel.cu.
// apex: contrib/csrc/layer_norm (ln_bwd: a backward kernel and a finalize kernel for the
// weight and bias gradients).

namespace ts {

namespace {

using K = HostCallKind;

class Calls {
 public:
  // Calls that each launch `per_call` kernels.
  void kernel(std::string what, K kind, double count, int per_call = 1) {
    list_.push_back({std::move(what), kind, count, true, per_call});
  }
  // Calls that launch nothing: host time only.
  void host(std::string what, K kind, double count) {
    list_.push_back({std::move(what), kind, count, false, 1});
  }
  std::vector<HostCall> take() { return std::move(list_); }

 private:
  std::vector<HostCall> list_;
};

// The four linear layers of a layer: query_key_value and dense (ParallelAttention),
// dense_h_to_4h and dense_4h_to_h (ParallelMLP). qkv and h->4h are ColumnParallelLinear, the
// other two RowParallelLinear; all but qkv skip their bias (skip_bias_add=True), which the fused
// bias-GeLU and bias-dropout-add take instead.
const char* const kLinears[] = {"qkv", "attention dense", "MLP h->4h", "MLP 4h->h"};

void forward(Calls& c, int64_t tp, bool sp, const MegatronFusions& f) {
  const bool parallel = tp > 1;
  // Module calls (torch.nn.Module.__call__): ParallelTransformerLayer, input_layernorm,
  // self_attention, query_key_value, core_attention, scale_mask_softmax, attention_dropout,
  // dense, post_attention_layernorm, mlp, dense_h_to_4h, dense_4h_to_h.
  c.host(
      "nn.Module calls (layer, 2 layer norms, attention, core attention, softmax, dropout, "
      "MLP, 4 linears)",
      K::python_module, 12);
  if (!f.masked_softmax)  // forward_torch_softmax: torch.nn.Softmax(dim=-1)(mask_output)
    c.host("torch.nn.Softmax built and called (FusedScaleMaskSoftmax.forward_torch_softmax)",
           K::python_module, 1);

  // Layer norms (input_layernorm, post_attention_layernorm): MixedFusedLayerNorm.forward calls
  // apex's FastLayerNormFN and makes its output viewless (MakeViewlessTensor.apply, whose
  // _kernel_make_viewless_tensor is a torch.empty((1,)) and an `.data =`).
  if (f.fused_layernorm) {
    c.kernel("layer norm forward (apex FastLayerNormFN.apply)", K::fused_op, 2);
    c.host("make_viewless_tensor of the layer norm output (MakeViewlessTensor.apply)", K::fused_op,
           2);
    c.host("torch.empty((1,)) and .data = of make_viewless_tensor (layer norms)", K::view, 4);
  } else {
    c.kernel("layer norm forward (torch.nn.LayerNorm: native_layer_norm)", K::aten_op, 2);
  }

  // Linear layers: LinearWithGradAccumulationAndAsyncCommunication.apply, whose forward is
  // torch.matmul(total_input, weight.t()) and, for qkv, `output + bias`.
  c.host("LinearWithGradAccumulationAndAsyncCommunication.apply (4 linears)", K::fused_op, 4);
  c.host("weight.t() (4 linears)", K::view, 4);
  for (const char* linear : kLinears) c.kernel(std::string(linear) + " GEMM", K::gemm, 1);
  c.kernel("qkv bias add (output + bias)", K::aten_op, 1);
  // ColumnParallelLinear.forward's input (qkv, h->4h): copy_to_tensor_model_parallel_region at
  // tp 1 (identity); with tp > 1 the input is used as is (async all-reduce in backward), or, with
  // sequence parallelism, all-gathered inside the linear's forward into the global memory buffer.
  if (!parallel) {
    c.host(
        "copy_to_tensor_model_parallel_region (_CopyToModelParallelRegion.apply, identity at "
        "tp 1; qkv, h->4h)",
        K::fused_op, 2);
  } else if (sp) {
    c.host("get_global_memory_buffer().get_tensor for the all-gather (qkv, h->4h)", K::view, 2);
    c.kernel("all-gather of the sequence-parallel input (_all_gather_base; qkv, h->4h)",
             K::collective, 2);
  }
  // RowParallelLinear.forward's output (dense, 4h->h).
  if (!sp) {
    c.host(
        "reduce_from_tensor_model_parallel_region (_ReduceFromModelParallelRegion.apply; "
        "dense, 4h->h)",
        K::fused_op, 2);
    if (parallel)
      c.kernel("all-reduce of the row-parallel output (dense, 4h->h)", K::collective, 2);
  } else {
    c.host(
        "reduce_scatter_to_sequence_parallel_region "
        "(_ReduceScatterToSequenceParallelRegion.apply; dense, 4h->h)",
        K::fused_op, 2);
    c.host("torch.empty and input_.contiguous() of _reduce_scatter_along_first_dim", K::view, 4);
    c.kernel("reduce-scatter of the row-parallel output (_reduce_scatter_base; dense, 4h->h)",
             K::collective, 2);
  }

  // ParallelAttention.forward: mixed_x_layer.view(...) and split_tensor_along_last_dim
  // (torch.split, no copies).
  c.host("mixed_x_layer.view and split_tensor_along_last_dim (torch.split)", K::view, 2);
  // CoreAttention.forward, scores: query_layer.view, key_layer.view, the global memory buffer's
  // get_tensor, query.transpose(0, 1), key.transpose(0, 1).transpose(1, 2), baddbmm,
  // matmul_result.view.
  c.host("core attention views: query, key .view, buffer get_tensor, 3 transposes, scores .view",
         K::view, 7);
  c.kernel("QK^T baddbmm (scores, alpha = 1 / norm_factor)", K::gemm, 1);
  // FusedScaleMaskSoftmax.forward: causal mask, fp16 in, scale = layer number (query-key layer
  // scaling, the v3.0 default, also sets softmax_in_fp32).
  if (f.masked_softmax) {
    // forward_fused_softmax: input.view(-1, sq, sk), ScaledUpperTriangMaskedSoftmax.apply (whose
    // forward builds torch.tensor([scale]) on the host), probs.view(b, np, sq, sk).
    c.host(
        "softmax views: input.view(-1, sq, sk), probs.view(b, np, sq, sk), "
        "torch.tensor([scale])",
        K::view, 3);
    c.kernel("scaled upper-triangular masked softmax (ScaledUpperTriangMaskedSoftmax.apply)",
             K::fused_op, 1);
  } else {
    // forward_torch_softmax: input.float(), input * scale, attention_mask_func's masked_fill_,
    // softmax, probs.half().
    c.kernel("softmax input.float()", K::aten_op, 1);
    c.kernel("softmax input * scale", K::aten_op, 1);
    c.kernel("softmax masked_fill_(mask, -10000)", K::aten_op, 1);
    c.kernel("softmax (torch.nn.Softmax)", K::aten_op, 1);
    c.kernel("softmax probs.half()", K::aten_op, 1);
  }
  // Attention dropout, inside get_cuda_rng_tracker().fork() without sequence parallelism
  // (get_rng_state, set_rng_state, and both again on the way out: host only).
  if (!sp) c.host("get_cuda_rng_tracker().fork(): get_rng_state, set_rng_state, twice", K::view, 4);
  c.kernel("attention dropout (native_dropout)", K::aten_op, 1);
  // Context: value_layer.view, attention_probs.view, value_layer.transpose(0, 1), bmm,
  // context_layer.view, permute(2, 0, 1, 3).contiguous() (a copy), view to [sq, b, hp].
  c.host("context views: value, probs .view, value transpose, context .view, permute, .view",
         K::view, 6);
  c.kernel("PV bmm (context)", K::gemm, 1);
  c.kernel("context permute(...).contiguous() copy", K::aten_op, 1);

  // ParallelMLP.forward: bias_gelu_impl (GeLUFunction.apply of the TorchScript bias_gelu) or
  // activation_func(intermediate_parallel + bias_parallel).
  if (f.bias_gelu) {
    c.kernel("bias_gelu_impl (GeLUFunction.apply, TorchScript bias_gelu)", K::fused_op, 1);
  } else {
    c.kernel("MLP intermediate + bias", K::aten_op, 1);
    c.kernel("MLP gelu", K::aten_op, 1);
  }

  // ParallelTransformerLayer.forward, after attention and after the MLP:
  // bias_dropout_add_func(output, bias.expand_as(residual), residual, hidden_dropout).
  c.host("bias.expand_as(residual) (attention, MLP)", K::view, 2);
  if (f.bias_dropout_add) {
    c.kernel("bias_dropout_add_fused_train (TorchScript; attention, MLP)", K::fused_op, 2);
    // The TorchScript output is a view: the layer's output is made viewless.
    c.host("make_viewless_tensor of the layer output (MakeViewlessTensor.apply)", K::fused_op, 1);
    c.host("torch.empty((1,)) and .data = of make_viewless_tensor (layer output)", K::view, 2);
  } else {
    // bias_dropout_add: dropout(x + bias), residual + out.
    c.kernel("x + bias (attention, MLP)", K::aten_op, 2);
    c.kernel("hidden dropout (native_dropout; attention, MLP)", K::aten_op, 2);
    c.kernel("residual + out (attention, MLP)", K::aten_op, 2);
  }
}

void backward(Calls& c, int64_t tp, bool sp, const MegatronFusions& f) {
  const bool parallel = tp > 1;
  // The residual stream: hidden_states and layernorm_input are each read by a layer norm and as
  // the residual; the engine adds their two gradients (InputBuffer::accumulate).
  c.kernel("residual gradient accumulation (autograd InputBuffer add; 2 residuals)", K::aten_op, 2);

  // Bias-dropout-add backward (attention, MLP), then ExpandBackward of bias.expand_as, which
  // sums the gradient over the tokens (sum_to) for the bias.
  if (f.bias_dropout_add) {
    c.host("DifferentiableGraphBackward (bias_dropout_add_fused_train; attention, MLP)",
           K::autograd_node, 2);
    c.kernel("bias_dropout_add backward: grad x mask x scale (TorchScript)", K::fused_op, 2);
    c.host("MakeViewlessTensor backward (layer output)", K::autograd_node, 1);
  } else {
    c.host(
        "AddBackward (residual + out), NativeDropoutBackward, AddBackward (x + bias); "
        "attention, MLP",
        K::autograd_node, 6);
    c.kernel("hidden dropout backward (native_dropout_backward; attention, MLP)", K::aten_op, 2);
  }
  c.host("ExpandBackward (bias.expand_as; attention, MLP)", K::autograd_node, 2);
  c.kernel("dense and 4h->h bias gradients (ExpandBackward's sum over tokens)", K::aten_op, 2);

  // RowParallelLinear's output mapping (dense, 4h->h): identity backward, or with sequence
  // parallelism _gather_along_first_dim of the gradient (torch.empty, _all_gather_base).
  if (!sp) {
    c.host("_ReduceFromModelParallelRegion backward (identity; dense, 4h->h)", K::autograd_node, 2);
  } else {
    c.host("_ReduceScatterToSequenceParallelRegion backward (dense, 4h->h)", K::autograd_node, 2);
    c.host("torch.empty of _gather_along_first_dim (dense, 4h->h)", K::view, 2);
    c.kernel("all-gather of the output gradient (_all_gather_base; dense, 4h->h)", K::collective,
             2);
  }

  // LinearWithGradAccumulationAndAsyncCommunication.backward: grad_input =
  // grad_output.matmul(weight); grad_output and total_input viewed 2-D; the weight gradient
  // either accumulated into main_grad by apex (fused_weight_gradient_mlp_cuda.
  // wgrad_gemm_accum_fp32) or grad_output.t().matmul(total_input); qkv's bias gradient
  // grad_output.sum(dim=0).
  c.host("LinearWithGradAccumulationAndAsyncCommunication backward (4 linears)", K::autograd_node,
         4);
  c.host("grad_output.view and total_input.view to 2-D (4 linears)", K::view, 8);
  for (const char* linear : kLinears) {
    c.kernel(std::string(linear) + " dgrad GEMM", K::gemm, 1);
    c.kernel(std::string(linear) + (f.gradient_accumulation
                                        ? " wgrad GEMM into main_grad (wgrad_gemm_accum_fp32)"
                                        : " wgrad GEMM"),
             K::gemm, 1);
  }
  if (!f.gradient_accumulation) c.host("grad_output.t() (4 linears)", K::view, 4);
  c.kernel("qkv bias gradient (grad_output.sum(dim=0))", K::aten_op, 1);
  // ColumnParallelLinear (qkv, h->4h): at tp 1 the identity backward of
  // _CopyToModelParallelRegion; with tp > 1 the asynchronous all-reduce of grad_input; with
  // sequence parallelism the input all-gathered again (global memory buffer) for the weight
  // gradient and grad_input reduce-scattered (into a torch.empty).
  if (!parallel) {
    c.host("_CopyToModelParallelRegion backward (identity at tp 1; qkv, h->4h)", K::autograd_node,
           2);
  } else if (!sp) {
    c.kernel("async all-reduce of the input gradient (qkv, h->4h)", K::collective, 2);
  } else {
    c.host("global buffer get_tensor and torch.empty (qkv, h->4h)", K::view, 4);
    c.kernel("all-gather of the input for the weight gradient (qkv, h->4h)", K::collective, 2);
    c.kernel("reduce-scatter of the input gradient (_reduce_scatter_base; qkv, h->4h)",
             K::collective, 2);
  }

  // Bias-GeLU backward. GeLUFunction.backward returns the full-size gradient for the bias too;
  // the engine's validate_outputs sums it to the bias's shape. Unfused: GeluBackward's
  // gelu_backward, and AddBackward's broadcast bias summed likewise.
  if (f.bias_gelu) {
    c.host("GeLUFunction backward", K::autograd_node, 1);
    c.kernel("bias_gelu_back (TorchScript)", K::fused_op, 1);
  } else {
    c.host("GeluBackward, AddBackward (MLP)", K::autograd_node, 2);
    c.kernel("gelu_backward", K::aten_op, 1);
  }
  c.kernel("h->4h bias gradient (sum_to of the broadcast bias)", K::aten_op, 1);

  // Attention core backward. Views: context .view (2), value, probs, scores, query, key and
  // mixed_x_layer .view (6), 4 transposes, the permute, the contiguous (CloneBackward): 14 nodes
  // without kernels.
  c.host("View/Transpose/Permute/CloneBackward of the attention's views", K::autograd_node, 14);
  c.host("BmmBackward (context)", K::autograd_node, 1);
  c.kernel("PV bmm backward: grad x V^T and P^T x grad", K::gemm, 2);
  c.host("NativeDropoutBackward (attention probabilities)", K::autograd_node, 1);
  c.kernel("attention dropout backward (native_dropout_backward)", K::aten_op, 1);
  if (f.masked_softmax) {
    c.host("ScaledUpperTriangMaskedSoftmax backward and the ViewBackward of its 2 views",
           K::autograd_node, 3);
    c.kernel("scaled upper-triangular masked softmax backward", K::fused_op, 1);
  } else {
    c.host("ToCopyBackward, SoftmaxBackward, MaskedFillBackward, MulBackward, ToCopyBackward",
           K::autograd_node, 5);
    c.kernel(
        "softmax backward: .to(float), _softmax_backward_data, masked_fill, x scale, "
        ".to(half)",
        K::aten_op, 5);
  }
  // baddbmm's derivatives (derivatives.yaml): maybe_multiply(grad.bmm(batch2^T), alpha) and
  // maybe_multiply(batch1^T.bmm(grad), alpha); alpha != 1, so each is a bmm and a multiply. The
  // input buffer needs no gradient.
  c.host("BaddbmmBackward (scores)", K::autograd_node, 1);
  c.kernel("QK^T baddbmm backward: two bmm", K::gemm, 2);
  c.kernel("baddbmm backward: x alpha (2 gradients)", K::aten_op, 2);
  // split_tensor_along_last_dim's SplitBackward concatenates the q, k and v gradients.
  c.host("SplitBackward (q, k, v)", K::autograd_node, 1);
  c.kernel("cat of the q, k, v gradients (split_backward)", K::aten_op, 1);

  // Layer norms: apex's FastLayerNormFN backward (ln_bwd: two kernels) and the
  // MakeViewlessTensor backward before it; or PyTorch's native_layer_norm_backward (an input
  // gradient kernel and a gamma/beta kernel).
  if (f.fused_layernorm) {
    c.host("FastLayerNormFN backward and MakeViewlessTensor backward (2 layer norms)",
           K::autograd_node, 4);
    c.kernel("layer norm backward (apex ln_bwd: gradient kernel and gamma/beta finalize)",
             K::fused_op, 2, 2);
  } else {
    c.host("NativeLayerNormBackward (2 layer norms)", K::autograd_node, 2);
    c.kernel("native_layer_norm_backward (input gradient and gamma/beta kernels)", K::aten_op, 2,
             2);
  }

  // Local DDP (megatron/model/distributed.py, contiguous buffers, the v3.0 default): each
  // parameter whose gradient the engine delivers runs AccumulateGrad and the hook
  // `param.main_grad.add_(param.grad.data); param.grad = None`. A layer's 12 parameters: 2 layer
  // norms' weight and bias, 4 linears' weight and bias. With gradient accumulation fusion the 4
  // linear weights' gradients go into main_grad inside the wgrad GEMM and never reach the engine.
  const double params = f.gradient_accumulation ? 8 : 12;
  c.host("AccumulateGrad and its main_grad hook (per parameter)", K::autograd_node, params);
  c.kernel("main_grad.add_(param.grad) (per parameter)", K::aten_op, params);
  c.host("param.grad = None (per parameter)", K::view, params);
}

}  // namespace

std::vector<HostCall> megatron_layer_calls(PassKind pass, int64_t tp, bool sequence_parallel,
                                           const MegatronFusions& fusions) {
  Calls c;
  const bool sp = sequence_parallel && tp > 1;
  if (pass == PassKind::forward)
    forward(c, tp, sp, fusions);
  else
    backward(c, tp, sp, fusions);
  return c.take();
}

}  // namespace ts
