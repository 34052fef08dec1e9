#pragma once
// How a model is split over a cluster (`kind: strategy` files, docs/formats.md): data parallelism
// with a ZeRO stage, tensor parallelism with or without sequence parallelism, pipeline
// parallelism with its schedule, expert parallelism, activation recomputation, and the batch.
#include <cstdint>
#include <string>

#include "common/InputError.hpp"
#include "common/WorkLimits.hpp"
#include "training/LayerOperators.hpp"
#include "training/MegatronFusions.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

enum class PipelineSchedule {
  gpipe,        // all forward micro-batches, then all backward
  one_f_one_b,  // 1F1B: warm-up forwards, then one forward and one backward in turn
  interleaved,  // 1F1B over `chunks` model chunks per device (virtual stages)
};
std::string_view to_string(PipelineSchedule s);

// A degree or setting with the place it was written, so that errors can point at it.
template <typename T>
struct Located {
  T value{};
  SourceLocation where;
};

struct ParallelStrategy {
  std::string name;
  std::string file;
  Located<int64_t> dp{1, {}}, tp{1, {}}, pp{1, {}}, ep{1, {}};
  Located<int> zero{0, {}};
  // Megatron-LM's `--overlap-grad-reduce`: the gradient all-reduce runs in buckets during the
  // last micro-batch's backward pass (DataParallelOverlap.hpp). Off, as in Megatron-LM: after it.
  bool overlap_grad_reduce = false;
  bool sequence_parallel = false;
  Located<PipelineSchedule> schedule{PipelineSchedule::one_f_one_b, {}};
  Located<int64_t> chunks{1, {}};  // model chunks per device (interleaved only)
  Located<int64_t> global_batch{1, {}}, micro_batch{1, {}};
  Recompute recompute = Recompute::none;
  // Megatron-LM's kernel fusions (`fusions:` in the file): how many kernels a layer launches
  // (MegatronKernels.hpp).
  MegatronFusions fusions;
  // Megatron-LM v2.x's timers synchronise the device around every forward and backward step
  // (megatron/global_vars.py _Timer.start/stop: torch.cuda.synchronize()); the later log-level
  // timers do not (`framework: {timers_synchronize: false}`). Without them and without stages
  // the host runs ahead of its GPU across steps (HostTimeline.hpp).
  bool timers_synchronize = true;
  // Overrides for a part of the model (`overrides:` in the file). The word embedding and the
  // output layer tied to it may be split over fewer tensor-parallel ranks than the layers (a
  // divisor of tp; the embedding is then replicated over tp / this many groups).
  Located<int64_t> embedding_tp{0, {}};  // 0: as the layers
  // The first `count` layers of every pipeline chunk recompute as `recompute` says, the others
  // as the strategy does (Megatron's `--recompute-method block --recompute-num-layers`): fewer
  // recomputed layers where memory allows.
  struct LayerOverride {
    Located<int64_t> count{0, {}};
    Recompute recompute = Recompute::none;
  } layers_override;

  // The share of a chunk's layers that recompute as `r` (0 to 1), with the override above.
  double recompute_share(Recompute r, int64_t layers_per_chunk) const;

  int64_t embedding_tensor_parallel() const {
    return embedding_tp.value > 0 ? embedding_tp.value : tp.value;
  }

  int64_t gpus() const { return dp.value * tp.value * pp.value; }
  // Micro-batches each pipeline runs per iteration.
  int64_t micro_batches() const { return global_batch.value / (micro_batch.value * dp.value); }
};

ParallelStrategy parse_parallel_strategy(const std::string& text, const std::string& file_name);
ParallelStrategy load_parallel_strategy(const std::string& path);

// Throws InputError at the strategy's field that does not fit the model or the cluster, naming
// the field and both numbers: degrees whose product is not the GPU count, a tensor-parallel
// degree that does not divide the heads, more pipeline stages (times chunks) than layers or a
// layer count they do not divide, a global batch that micro-batches and data parallelism do not
// divide, expert parallelism that does not divide the experts or the data-parallel degree, an
// override of more layers than a pipeline chunk holds. For a graph model, instead of the heads:
// a tensor-parallel degree that does not divide a split dimension of a block operator (at the
// micro-batch), and an embedding override (it has no embedding).
void check_strategy_fits(const ParallelStrategy& s, const TransformerModel& model, int64_t gpus);

}  // namespace ts
