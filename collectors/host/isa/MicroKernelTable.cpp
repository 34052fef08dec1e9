// The micro-kernel table of one instruction-set level (compiled once per level, see
// IsaTarget.hpp); MicroKernel.cpp forwards to the table of the level chosen at run time.
#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "host/isa/LevelKernels.hpp"
#include "host/isa/MicroKernelIsa.hpp"

namespace ts::host::TS_HOST_ISA {
namespace {

// The few vector operations the kernel needs, per instruction set.
#if TS_HOST_AVX512
struct Simd {
  using V = __m512;
  using Mask = __mmask16;
  static Mask mask(int lanes) { return static_cast<Mask>((1u << lanes) - 1u); }
  static V zero() { return _mm512_setzero_ps(); }
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static V load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void store(float* p, V v, Mask m) { _mm512_mask_storeu_ps(p, m, v); }
  static V broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // Keeps a loaded row of B in a register: otherwise GCC folds the load into every row's FMA
  // and the kernel issues MR x NV loads of B per step of K instead of NV.
  static void pin(V& v) { __asm__("" : "+v"(v)); }
};
#elif TS_HOST_AVX2
struct Simd {
  using V = __m256;
  using Mask = __m256i;
  static Mask mask(int lanes) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static V zero() { return _mm256_setzero_ps(); }
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static V load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void store(float* p, V v, Mask m) { _mm256_maskstore_ps(p, m, v); }
  static V broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static void pin(V& v) { __asm__("" : "+x"(v)); }
};
#else
// Portable: GCC vector extensions; the compiler picks whatever the target has.
struct Simd {
  typedef float V __attribute__((vector_size(kVectorLanes * sizeof(float))));
  struct Mask {
    int lanes;
  };
  static Mask mask(int lanes) { return Mask{lanes}; }
  static V zero() { return V{}; }
  static V load(const float* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static V load(const float* p, Mask m) {
    V v{};
    for (int i = 0; i < m.lanes; ++i) v[i] = p[i];
    return v;
  }
  static void store(float* p, V v) { std::memcpy(p, &v, sizeof v); }
  static void store(float* p, V v, Mask m) {
    for (int i = 0; i < m.lanes; ++i) p[i] = v[i];
  }
  static V broadcast(const float* p) { return V{} + *p; }
  static V fma(V a, V b, V c) { return a * b + c; }
  static V add(V a, V b) { return a + b; }
  static void pin(V&) {}
};
#endif

using V = Simd::V;

template <int NV, bool Masked>
inline V load_column(const float* p, int j, Simd::Mask m) {
  if constexpr (Masked) {
    if (j == NV - 1) return Simd::load(p + j * kVectorLanes, m);
  }
  return Simd::load(p + j * kVectorLanes);
}

template <int NV, bool Masked>
inline void store_column(float* p, int j, V v, Simd::Mask m) {
  if constexpr (Masked) {
    if (j == NV - 1) return Simd::store(p + j * kVectorLanes, v, m);
  }
  Simd::store(p + j * kVectorLanes, v);
}

// One step of K: a row of B (NV vectors) times a column of A (MR broadcasts) into MR x NV
// accumulators.
template <int MR, int NV, bool Masked>
inline __attribute__((always_inline)) void k_step(V (&acc)[MR][NV], const float* a, int64_t lda,
                                                  const float* b, Simd::Mask m) {
  V bv[NV];
#pragma GCC unroll 4
  for (int j = 0; j < NV; ++j) {
    bv[j] = load_column<NV, Masked>(b, j, m);
    Simd::pin(bv[j]);
  }
#pragma GCC unroll 28
  for (int i = 0; i < MR; ++i) {
    const V av = Simd::broadcast(a + i * lda);
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) acc[i][j] = Simd::fma(av, bv[j], acc[i][j]);
  }
}

template <int MR, int NV, bool Masked>
void block_kernel(int64_t kc, const float* __restrict a, int64_t lda, const float* __restrict b,
                  int64_t ldb, float* __restrict c, int64_t ldc, int last_lanes, bool accumulate) {
  constexpr int U = k_unroll(MR * NV);
  const Simd::Mask m = Simd::mask(Masked ? last_lanes : kVectorLanes);
  V acc[U][MR][NV];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u)
#pragma GCC unroll 28
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[u][i][j] = Simd::zero();
  if (accumulate) {
#pragma GCC unroll 28
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[0][i][j] = load_column<NV, Masked>(c + i * ldc, j, m);
  }
  int64_t k = 0;
  for (; k + U <= kc; k += U) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u)
      k_step<MR, NV, Masked>(acc[u], a + k + u, lda, b + (k + u) * ldb, m);
  }
  for (; k < kc; ++k) k_step<MR, NV, Masked>(acc[0], a + k, lda, b + k * ldb, m);
#pragma GCC unroll 4
  for (int u = 1; u < U; ++u)
#pragma GCC unroll 28
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int j = 0; j < NV; ++j) acc[0][i][j] = Simd::add(acc[0][i][j], acc[u][i][j]);
#pragma GCC unroll 28
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int j = 0; j < NV; ++j) store_column<NV, Masked>(c + i * ldc, j, acc[0][i][j], m);
}

// table[rows][vector columns][masked]
using KernelTable =
    std::array<std::array<std::array<MicroKernel, 2>, kMaxVectorColumns + 1>, kMaxBlockRows + 1>;

template <size_t Index>
constexpr void fill_entry(KernelTable& t) {
  constexpr int mr = static_cast<int>(Index) / kMaxVectorColumns + 1;
  constexpr int nv = static_cast<int>(Index) % kMaxVectorColumns + 1;
  if constexpr (block_in_table(mr, nv)) {
    t[mr][nv][0] = &block_kernel<mr, nv, false>;
    t[mr][nv][1] = &block_kernel<mr, nv, true>;
  }
}

template <size_t... Index>
constexpr KernelTable make_table(std::index_sequence<Index...>) {
  KernelTable t{};
  (fill_entry<Index>(t), ...);
  return t;
}

constexpr KernelTable kTable =
    make_table(std::make_index_sequence<kMaxBlockRows * kMaxVectorColumns>{});

}  // namespace

bool register_block_in_table(int rows, int vector_columns) {
  return block_in_table(rows, vector_columns);
}

MicroKernel micro_kernel(int rows, int vector_columns, bool masked) {
  if (!block_in_table(rows, vector_columns)) return nullptr;
  return kTable[static_cast<size_t>(rows)][static_cast<size_t>(vector_columns)][masked ? 1 : 0];
}

RegisterBlock choose_register_block(int64_t rows, int64_t cols, int max_accumulators) {
  const int64_t limit = std::clamp<int64_t>(max_accumulators, 1, kMaxAccumulators);
  rows = std::max<int64_t>(rows, 1);
  const int64_t vcols = std::max<int64_t>((cols + kVectorLanes - 1) / kVectorLanes, 1);
  auto allowed = [&](int64_t r, int64_t v) {
    return r <= kMaxBlockRows && v <= kMaxVectorColumns && r * v <= limit &&
           block_in_table(static_cast<int>(r), static_cast<int>(v));
  };
  if (allowed(rows, vcols)) return {static_cast<int>(rows), static_cast<int>(vcols)};
  // Vector loads per step of K over the sub-blocks that tile the op block: every sub-block
  // broadcasts its rows of A and loads its vector columns of B.
  auto loads = [&](int64_t r, int64_t v) {
    const int64_t row_blocks = (rows + r - 1) / r, col_blocks = (vcols + v - 1) / v;
    return rows * col_blocks + vcols * row_blocks;
  };
  RegisterBlock best{1, 1};
  int64_t best_loads = loads(1, 1);
  for (int64_t r = 1; r <= std::min<int64_t>(rows, kMaxBlockRows); ++r)
    for (int64_t v = 1; v <= std::min<int64_t>(vcols, kMaxVectorColumns); ++v) {
      if (!allowed(r, v)) continue;
      const int64_t l = loads(r, v);
      const int64_t area = r * v, best_area = int64_t{best.rows} * best.vector_columns;
      if (l < best_loads || (l == best_loads && area > best_area)) {
        best = {static_cast<int>(r), static_cast<int>(v)};
        best_loads = l;
      }
    }
  return best;
}

}  // namespace ts::host::TS_HOST_ISA
