#include "host/OperationCost.hpp"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "host/IsaKernels.hpp"
#include "host/RepetitionTiming.hpp"

namespace ts::host {
namespace {

// 4 KiB per operand: three rows together are well inside any L1 data cache (32-48 KiB).
constexpr int64_t kElements = 1024;

}  // namespace

double operation_seconds_per_element(OperationKind kind, double seconds) {
  // Inputs in the ranges the operators see: exp of softmax's x - max (<= 0), divisors of GELU
  // (1 + e > 1), square roots of variances (> 0).
  std::vector<float> x(kElements), z(kElements), y(kElements, 0.0f);
  for (int64_t i = 0; i < kElements; ++i) {
    x[static_cast<size_t>(i)] = -8.0f * static_cast<float>(i) / kElements;
    z[static_cast<size_t>(i)] = 1.0f + static_cast<float>(i) / kElements;
  }
  if (kind == OperationKind::div || kind == OperationKind::sqrt) x = z;
  using Clock = std::chrono::steady_clock;
  // The loops of the level the vector kernels use, so that the cost is theirs.
  const IsaKernels& isa = isa_kernels();
  auto run = [&](int64_t passes) {
    const auto t0 = Clock::now();
    switch (kind) {
      case OperationKind::exp:
        isa.exp_passes(x.data(), y.data(), kElements, passes);
        break;
      case OperationKind::div:
        isa.div_passes(x.data(), z.data(), y.data(), kElements, passes);
        break;
      case OperationKind::sqrt:
        isa.sqrt_passes(x.data(), y.data(), kElements, passes);
        break;
      case OperationKind::basic:
        throw std::logic_error("the basic operation is the unit, not measured here");
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  return bench::seconds_per_repetition(run, seconds) / kElements;
}

}  // namespace ts::host
