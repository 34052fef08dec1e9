#pragma once
// The tensor-parallel communication of one layer as Megatron-LM's linear layers run it
// (megatron/core/tensor_parallel/layers.py: ColumnParallelLinear, RowParallelLinear and
// LinearWithGradAccumulationAndAsyncCommunication), and what of it the GEMMs hide.
//
// A layer has one tensor-parallel region per row-parallel GEMM (a transformer: attention and
// MLP), opened by its column-parallel GEMM(s) (QKV, MLP-up). Per region, of activations S:
// - forward (and a recomputed forward), on the critical path: without sequence parallelism one
//   all-reduce of S after the row-parallel GEMM; with it an all-gather of S before the column
//   GEMM and a reduce-scatter after the row GEMM, each moving (p-1)/p of S once, half an
//   all-reduce's steps.
// - backward: without sequence parallelism the column GEMM's input gradient is all-reduced
//   asynchronously while its weight gradient is computed (the row GEMM's backward needs none).
//   With it the row GEMM's output gradient is all-gathered on the critical path; the column
//   GEMM's input, saved sharded, is all-gathered again while its input gradient is computed,
//   and the input gradient is reduce-scattered while its weight gradient is computed.
// The input and weight gradients of a GEMM each take its forward time (the engine's rule), so a
// collective of C seconds overlapping a GEMM of W seconds ends after max(C, W) + i min(C, W),
// both running 1 / (1 + i) slower while they overlap (the cluster's interference, as the
// executor runs any compute and transfer that overlap on one device).
#include <algorithm>
#include <vector>

#include "training/LayerTimes.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

struct TensorParallelRegion {
  // Each collective alone on its links, of the region's activations (nccl-tests' count).
  double all_reduce_s = 0, all_gather_s = 0, reduce_scatter_s = 0;
  double column_gemm_s = 0;  // forward time of the column-parallel GEMM(s) opening the region
};

struct LayerTensorParallelTime {
  double forward_s = 0;          // on a forward's critical path (also a recomputed forward's)
  double backward_s = 0;         // what a backward adds to its compute: exposed, and slowdown
  double backward_hidden_s = 0;  // collective time the backward's GEMMs hide
  double forward_kernels = 0, backward_kernels = 0;  // collectives the host issues
};

// A collective of comm_s overlapping compute of compute_s on one device: when both have ended.
inline double overlapped_s(double comm_s, double compute_s, double interference) {
  return std::max(comm_s, compute_s) + interference * std::min(comm_s, compute_s);
}

LayerTensorParallelTime layer_tensor_parallel_time(const std::vector<TensorParallelRegion>& regions,
                                                   bool sequence_parallel, double interference);

// Per tensor-parallel region of a layer (the order of tensor_parallel_all_reduce_bytes), the
// forward time of its column-parallel GEMMs: a transformer's QKV and MLP-up (or gate-up); a
// graph block's column-split GEMMs between the previous row-split operator and the region's.
std::vector<double> column_parallel_gemm_s(const TransformerModel& model, const LayerTime& layer);

}  // namespace ts
