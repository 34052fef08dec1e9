// GEMM jobs: cuBLAS, cuBLASLt and tilescope's own tiled tensor-core kernel, all on row-major
// A [B][M][K], B [B][K][N], C [B][M][N], checked against a naive fp32-accumulating kernel.
#include <mma.h>

#include <algorithm>
#include <cstdio>

#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceTypes.cuh"

namespace ts::cupti {
namespace {

using namespace nvcuda;

struct GemmShape {
  int batch = 1, m = 0, n = 0, k = 0;
  __host__ __device__ long long a_stride() const { return 1ll * m * k; }
  __host__ __device__ long long b_stride() const { return 1ll * k * n; }
  __host__ __device__ long long c_stride() const { return 1ll * m * n; }
};

template <typename T>
__global__ void reference_gemm(const T* a, const T* b, float* c, GemmShape s) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= s.m || col >= s.n) return;
  a += blockIdx.z * s.a_stride();
  b += blockIdx.z * s.b_stride();
  float sum = 0;
  for (int k = 0; k < s.k; ++k)
    sum += to_float(a[1ll * row * s.k + k]) * to_float(b[1ll * k * s.n + col]);
  c[blockIdx.z * s.c_stride() + 1ll * row * s.n + col] = sum;
}

// cp.async (sm_80+): 16 bytes global -> shared without passing through registers; with a source
// size of 0 it writes zeros (tails). Groups let the next K step load while this one computes.
__device__ __forceinline__ void copy_async_16(void* shared_dst, const void* global_src,
                                              bool valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared_dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(global_src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void copy_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

// The thread-block tile BM x BN x BK comes from the mapping (the tile below the spatial loop over
// the SMs), and so does `stages`: 2 where the mapping double-buffers that tile in shared memory
// (the next K step loads while this one computes), else 1. Each warp owns FM x FN fragments of
// 16x16 and accumulates in fp32 through WMMA. Operand tiles are staged in shared memory with 8
// elements of padding per row against bank conflicts; M, N and K tails are zero-filled on load
// and masked on store.
template <typename T, int FM, int FN>
__global__ void tiled_gemm(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                           GemmShape s, int bm, int bn, int bk, int stages) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int lda = bk + 8, ldb = bn + 8;
  // Buffer 0 then buffer 1 (A tile, B tile each), then the epilogue's staging area.
  const int buffer_elems = bm * lda + bk * ldb;
  T* const tiles = reinterpret_cast<T*>(smem);
  float* stage = reinterpret_cast<float*>(tiles + stages * buffer_elems);

  a += blockIdx.z * s.a_stride();
  b += blockIdx.z * s.b_stride();
  c += blockIdx.z * s.c_stride();
  const int m0 = blockIdx.y * bm, n0 = blockIdx.x * bn;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warps_n = bn / (16 * FN);
  const int wm = warp / warps_n, wn = warp % warps_n;
  const int threads = blockDim.x;
  // With K (N) a multiple of 8, a chunk of 8 elements is wholly inside or outside the matrix and
  // 16-byte aligned: cp.async; otherwise element by element.
  const bool vec_a = s.k % 8 == 0, vec_b = s.n % 8 == 0;

  auto load_tile = [&](int buffer, int k0) {
    for (int idx = threadIdx.x * 8; idx < bm * bk; idx += threads * 8) {
      const int r = idx / bk, col = idx % bk, gm = m0 + r, gk = k0 + col;
      T* dst = tiles + buffer * buffer_elems + r * lda + col;
      if (vec_a) {
        const bool inside = gm < s.m && gk < s.k;
        copy_async_16(dst, inside ? a + 1ll * gm * s.k + gk : a, inside);
      } else {
        for (int e = 0; e < 8; ++e)
          dst[e] = (gm < s.m && gk + e < s.k) ? a[1ll * gm * s.k + gk + e] : from_float<T>(0.f);
      }
    }
    for (int idx = threadIdx.x * 8; idx < bk * bn; idx += threads * 8) {
      const int r = idx / bn, col = idx % bn, gk = k0 + r, gn = n0 + col;
      T* dst = tiles + buffer * buffer_elems + bm * lda + r * ldb + col;
      if (vec_b) {
        const bool inside = gk < s.k && gn < s.n;
        copy_async_16(dst, inside ? b + 1ll * gk * s.n + gn : b, inside);
      } else {
        for (int e = 0; e < 8; ++e)
          dst[e] = (gk < s.k && gn + e < s.n) ? b[1ll * gk * s.n + gn + e] : from_float<T>(0.f);
      }
    }
    copy_async_commit();
  };

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  const int k_steps = (s.k + bk - 1) / bk;
  load_tile(0, 0);
  for (int step = 0; step < k_steps; ++step) {
    const int current = stages == 2 ? step & 1 : 0;
    if (stages == 2) {
      // The other buffer was last read in the previous step, before its closing barrier.
      if (step + 1 < k_steps)
        load_tile(current ^ 1, (step + 1) * bk);
      else
        copy_async_commit();  // an empty group keeps the count of pending groups at 1
      copy_async_wait<1>();   // this step's group has landed
    } else {
      copy_async_wait<0>();
    }
    __syncthreads();
    const T* at = tiles + current * buffer_elems;
    const T* bt = at + bm * lda;
    for (int kk = 0; kk < bk; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[FM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i)
        wmma::load_matrix_sync(fa[i], at + (wm * 16 * FM + i * 16) * lda + kk, lda);
#pragma unroll
      for (int j = 0; j < FN; ++j)
        wmma::load_matrix_sync(fb[j], bt + kk * ldb + wn * 16 * FN + j * 16, ldb);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
    if (stages == 1 && step + 1 < k_steps) load_tile(0, (step + 1) * bk);
  }
  float* mine = stage + warp * 256;
#pragma unroll
  for (int i = 0; i < FM; ++i) {
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      wmma::store_matrix_sync(mine, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int gm = m0 + wm * 16 * FM + i * 16 + e / 16;
        const int gn = n0 + wn * 16 * FN + j * 16 + e % 16;
        if (gm < s.m && gn < s.n) c[1ll * gm * s.n + gn] = from_float<T>(mine[e]);
      }
      __syncwarp();
    }
  }
}

cudaDataType_t cuda_type(const std::string& dtype) {
  if (dtype == "fp16") return CUDA_R_16F;
  if (dtype == "bf16") return CUDA_R_16BF;
  return CUDA_R_32F;
}

class GemmJob : public DeviceJob {
 public:
  GemmJob(const PlanJob& job, const LibraryHandles& handles) : job_(job), handles_(handles) {
    shape_.batch = static_cast<int>(job.dim("B", 1));
    shape_.m = static_cast<int>(job.dim("M"));
    shape_.n = static_cast<int>(job.dim("N"));
    shape_.k = static_cast<int>(job.dim("K"));
    const size_t e = dtype_bytes(job.dtype);
    a_ = std::make_unique<DeviceBuffer>(shape_.batch * shape_.a_stride() * e);
    b_ = std::make_unique<DeviceBuffer>(shape_.batch * shape_.b_stride() * e);
    c_ = std::make_unique<DeviceBuffer>(shape_.batch * shape_.c_stride() * e);
    fill_uniform(a_->get(), shape_.batch * shape_.a_stride(), job.dtype, 1, nullptr);
    fill_uniform(b_->get(), shape_.batch * shape_.b_stride(), job.dtype, 2, nullptr);
    if (job.impl == Implementation::cublaslt) prepare_lt();
    if (job.impl == Implementation::tilescope) prepare_tiled();
    TS_CUDA(cudaDeviceSynchronize());
  }
  ~GemmJob() override {
    if (lt_desc_) cublasLtMatmulDescDestroy(lt_desc_);
    for (auto* l : {lt_a_, lt_b_, lt_c_})
      if (l) cublasLtMatrixLayoutDestroy(l);
  }

  void launch(cudaStream_t stream) override {
    switch (job_.impl) {
      case Implementation::cublas:
        return launch_cublas(stream);
      case Implementation::cublaslt:
        return launch_lt(stream);
      case Implementation::tilescope:
        return launch_tiled(stream);
      case Implementation::vector:
        break;
    }
  }

  CheckOutcome check(cudaStream_t stream) override {
    const size_t count = shape_.batch * shape_.c_stride();
    DeviceBuffer ref(count * sizeof(float));
    const dim3 block(16, 16), grid((shape_.n + 15) / 16, (shape_.m + 15) / 16, shape_.batch);
    if (job_.dtype == "fp16")
      reference_gemm<<<grid, block, 0, stream>>>(a_->as<__half>(), b_->as<__half>(),
                                                 ref.as<float>(), shape_);
    else if (job_.dtype == "bf16")
      reference_gemm<<<grid, block, 0, stream>>>(a_->as<__nv_bfloat16>(), b_->as<__nv_bfloat16>(),
                                                 ref.as<float>(), shape_);
    else
      reference_gemm<<<grid, block, 0, stream>>>(a_->as<float>(), b_->as<float>(), ref.as<float>(),
                                                 shape_);
    TS_CUDA(cudaGetLastError());
    CheckOutcome out;
    out.reference = "naive fp32-accumulating GEMM kernel";
    out.max_error = normalized_max_error(c_->get(), ref.as<float>(), count, job_.dtype, stream);
    out.tolerance = tolerance_for(job_.dtype);
    return out;
  }

  std::string algorithm() const override { return algorithm_; }

 private:
  // Row-major C = A B is column-major C^T = B^T A^T: the libraries get (B, A) and (n, m).
  void launch_cublas(cudaStream_t stream) {
    const float alpha = 1, beta = 0;
    const cudaDataType_t t = cuda_type(job_.dtype);
    TS_CUBLAS(cublasSetStream(handles_.blas, stream));
    TS_CUBLAS(cublasGemmStridedBatchedEx(
        handles_.blas, CUBLAS_OP_N, CUBLAS_OP_N, shape_.n, shape_.m, shape_.k, &alpha, b_->get(), t,
        shape_.n, shape_.b_stride(), a_->get(), t, shape_.k, shape_.a_stride(), &beta, c_->get(), t,
        shape_.n, shape_.c_stride(), shape_.batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    algorithm_ = "cublasGemmStridedBatchedEx CUBLAS_GEMM_DEFAULT, CUBLAS_COMPUTE_32F";
  }

  void prepare_lt() {
    const cudaDataType_t t = cuda_type(job_.dtype);
    TS_CUBLAS(cublasLtMatmulDescCreate(&lt_desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    TS_CUBLAS(cublasLtMatrixLayoutCreate(&lt_a_, t, shape_.n, shape_.k, shape_.n));  // B^T
    TS_CUBLAS(cublasLtMatrixLayoutCreate(&lt_b_, t, shape_.k, shape_.m, shape_.k));  // A^T
    TS_CUBLAS(cublasLtMatrixLayoutCreate(&lt_c_, t, shape_.n, shape_.m, shape_.n));
    const int32_t batch = shape_.batch;
    const int64_t strides[3] = {shape_.b_stride(), shape_.a_stride(), shape_.c_stride()};
    cublasLtMatrixLayout_t layouts[3] = {lt_a_, lt_b_, lt_c_};
    for (int i = 0; i < 3; ++i) {
      TS_CUBLAS(cublasLtMatrixLayoutSetAttribute(layouts[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                 &batch, sizeof batch));
      TS_CUBLAS(cublasLtMatrixLayoutSetAttribute(
          layouts[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i], sizeof strides[i]));
    }
    cublasLtMatmulPreference_t pref = nullptr;
    TS_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const uint64_t ws = handles_.workspace_bytes;
    TS_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &ws, sizeof ws));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(
        handles_.blas_lt, lt_desc_, lt_a_, lt_b_, lt_c_, lt_c_, pref, 1, &result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    TS_CUBLAS(st);
    if (found == 0) throw DeviceError("cuBLASLt found no algorithm for this GEMM");
    lt_algo_ = result.algo;
    int id = -1, tile = -1, stages = -1;
    size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&lt_algo_, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id,
                                         &written);
    cublasLtMatmulAlgoConfigGetAttribute(&lt_algo_, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile,
                                         sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&lt_algo_, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages,
                                         sizeof stages, &written);
    char text[160];
    std::snprintf(
        text, sizeof text,
        "cublasLtMatmul heuristic #1: algo_id %d tile_id %d stages_id %d, workspace %zu B", id,
        tile, stages, result.workspaceSize);
    algorithm_ = text;
  }

  void launch_lt(cudaStream_t stream) {
    const float alpha = 1, beta = 0;
    TS_CUBLAS(cublasLtMatmul(handles_.blas_lt, lt_desc_, &alpha, b_->get(), lt_a_, a_->get(), lt_b_,
                             &beta, c_->get(), lt_c_, c_->get(), lt_c_, &lt_algo_,
                             handles_.workspace, handles_.workspace_bytes, stream));
  }

  template <typename T, int FM, int FN>
  void tiled_instance(bool configure, cudaStream_t stream) {
    const int bm = job_.block_m, bn = job_.block_n, bk = job_.block_k;
    if (configure) {
      TS_CUDA(cudaFuncSetAttribute(tiled_gemm<T, FM, FN>,
                                   cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(smem_bytes_)));
      // The compiled kernel's registers bound the threads a block may have.
      cudaFuncAttributes attr{};
      TS_CUDA(cudaFuncGetAttributes(&attr, tiled_gemm<T, FM, FN>));
      if (attr.maxThreadsPerBlock < threads_)
        throw DeviceError("warp tile " + std::to_string(FM * 16) + "x" + std::to_string(FN * 16) +
                          ": the kernel uses " + std::to_string(attr.numRegs) +
                          " registers per thread, so at most " +
                          std::to_string(attr.maxThreadsPerBlock) + " threads per block; " +
                          std::to_string(threads_) + " needed");
      return;
    }
    const dim3 grid((shape_.n + bn - 1) / bn, (shape_.m + bm - 1) / bm, shape_.batch);
    tiled_gemm<T, FM, FN><<<grid, threads_, smem_bytes_, stream>>>(
        a_->as<T>(), b_->as<T>(), c_->as<T>(), shape_, bm, bn, bk, job_.stages);
  }

  template <typename T, int FM>
  void tiled_fn(int fn, bool configure, cudaStream_t stream) {
    switch (fn) {
      case 1:
        return tiled_instance<T, FM, 1>(configure, stream);
      case 2:
        return tiled_instance<T, FM, 2>(configure, stream);
      case 3:
        return tiled_instance<T, FM, 3>(configure, stream);
      default:
        return tiled_instance<T, FM, 4>(configure, stream);
    }
  }

  template <typename T>
  void tiled_dispatch(bool configure, cudaStream_t stream) {
    const int fm = job_.warp_m / 16, fn = job_.warp_n / 16;
    switch (fm) {
      case 1:
        return tiled_fn<T, 1>(fn, configure, stream);
      case 2:
        return tiled_fn<T, 2>(fn, configure, stream);
      case 3:
        return tiled_fn<T, 3>(fn, configure, stream);
      default:
        return tiled_fn<T, 4>(fn, configure, stream);
    }
  }

  void prepare_tiled() {
    const int bm = job_.block_m, bn = job_.block_n, bk = job_.block_k;
    const int warps = (bm / job_.warp_m) * (bn / job_.warp_n);
    threads_ = warps * 32;
    smem_bytes_ =
        job_.stages * (size_t(bm) * (bk + 8) + size_t(bk) * (bn + 8)) * 2 + size_t(warps) * 256 * 4;
    int device = 0, max_smem = 0, sm_smem = 0;
    TS_CUDA(cudaGetDevice(&device));
    TS_CUDA(cudaDeviceGetAttribute(&max_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    TS_CUDA(cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
    if (smem_bytes_ > size_t(max_smem))
      throw DeviceError("block " + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
                        std::to_string(bk) + " needs " + std::to_string(smem_bytes_) +
                        " B of shared memory; the device allows " + std::to_string(max_smem));
    // One block per SM, as the mapping has one shared-memory tile per SM: a block asks for more
    // than half of an SM's shared memory, so that no second block fits beside it (a second one
    // would hide the first one's load latency, which the mapping does not say).
    smem_bytes_ = std::max(smem_bytes_, std::min(size_t(max_smem), size_t(sm_smem) / 2 + 1024));
    if (job_.dtype == "fp16")
      tiled_dispatch<__half>(true, nullptr);
    else
      tiled_dispatch<__nv_bfloat16>(true, nullptr);
    char text[160];
    std::snprintf(text, sizeof text,
                  "tilescope WMMA GEMM: block %dx%dx%d, warp %dx%d, %d stage(s), %d threads, %zu B "
                  "shared (one block per SM)",
                  bm, bn, bk, job_.warp_m, job_.warp_n, job_.stages, threads_, smem_bytes_);
    algorithm_ = text;
  }

  void launch_tiled(cudaStream_t stream) {
    if (job_.dtype == "fp16")
      tiled_dispatch<__half>(false, stream);
    else
      tiled_dispatch<__nv_bfloat16>(false, stream);
  }

  PlanJob job_;
  LibraryHandles handles_;
  GemmShape shape_;
  std::unique_ptr<DeviceBuffer> a_, b_, c_;
  std::string algorithm_;
  cublasLtMatmulDesc_t lt_desc_ = nullptr;
  cublasLtMatrixLayout_t lt_a_ = nullptr, lt_b_ = nullptr, lt_c_ = nullptr;
  cublasLtMatmulAlgo_t lt_algo_{};
  int threads_ = 0;
  size_t smem_bytes_ = 0;
};

}  // namespace

std::unique_ptr<DeviceJob> make_gemm_job(const PlanJob& job, const LibraryHandles& handles) {
  return std::make_unique<GemmJob>(job, handles);
}

}  // namespace ts::cupti
