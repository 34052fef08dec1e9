#pragma once
// How the tiled GEMM moves a tile into L1: rows of a row-major matrix copied into a contiguous
// buffer (TiledGemm's packing). Calibration times this same routine, so that the graph's edge
// into L1 carries what the kernel's transfer achieves, not what a plain read stream does.
#include <cstdint>

namespace ts::host {

// dst[r * ld_dst + c] = src[r * ld_src + c] for r < rows, c < cols.
void copy_tile(float* dst, int64_t ld_dst, const float* src, int64_t ld_src, int64_t rows,
               int64_t cols);

// Bytes per second of copy_tile moving tiles of an L2-resident matrix (`source_bytes`, row
// stride 768 floats) into an L1-sized buffer: 64 rows of 96 floats per tile, a low quantile of
// many tiles over about `seconds`.
double tile_copy_bytes_per_second(double source_bytes, double seconds);

}  // namespace ts::host
