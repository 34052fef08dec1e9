#pragma once
// Megatron-LM's overlap of the data-parallel gradient all-reduce with the backward pass
// (`--overlap-grad-reduce`, megatron/core/distributed): a stage's gradients are grouped in
// buckets of `bucket_parameters` (Megatron-LM: max(40 M, 1 M x dp) parameters), and each bucket
// is all-reduced as soon as the last micro-batch's backward has produced it, one after another
// on the communication stream. The backward produces them at an even rate over `backward_s`, so
// bucket i (of k) is ready at backward_s (i + 1) / k and each takes allreduce_s / k; the last
// ends at the later of backward_s / k + allreduce_s (the buckets back to back from the first)
// and backward_s + allreduce_s / k (the last bucket after the backward). What the iteration
// sees after the backward:
//   exposed = max(backward_s / k + allreduce_s - backward_s, allreduce_s / k)
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ts {

inline double megatron_bucket_parameters(int64_t dp) {
  return std::max(40e6, 1e6 * static_cast<double>(dp));
}

inline double exposed_gradient_all_reduce_s(double allreduce_s, double backward_s,
                                            double parameters, double bucket_parameters) {
  if (allreduce_s <= 0) return 0;
  const double buckets = std::max(1.0, std::ceil(parameters / bucket_parameters));
  return std::max(backward_s / buckets + allreduce_s - backward_s, allreduce_s / buckets);
}

}  // namespace ts
