#pragma once
// A GEMM whose tiling is a mapping: the loop nest of a concrete MappingProgram for a `gemm` or
// `batched_gemm` operator on a host graph (docs/host.md), run on row-major fp32 operands. Tile
// levels become loop bands (run-time factors and order, tails clipped), the spatial loop is spread
// over threads (more spatial tiles than threads run in waves), the register tile (the op's block
// M x N, the RF tile's K) is a vectorised register-blocked micro-kernel.
#include <memory>

#include "analysis/MappingProgram.hpp"

namespace ts::host {

class TiledGemm {
 public:
  // Throws InputError at the mapping node when the tree is not one the kernel family runs:
  // a chain of tiles (one of them may be spatial) ending in one op, dims M, N, K (and B).
  TiledGemm(const MappingProgram& program, int threads);
  ~TiledGemm();
  TiledGemm(TiledGemm&&) noexcept;

  // C (+)= A x B per batch: A [B][M][K], B [B][K][N], C [B][M][N], all row-major fp32.
  // C is overwritten (the kernel zeroes it where the mapping first touches it).
  void run(const float* a, const float* b, float* c) const;

  // The register block actually used (for tests and logs).
  int register_rows() const;
  int register_cols() const;

 private:
  struct Plan;
  std::unique_ptr<Plan> plan_;
};

}  // namespace ts::host
