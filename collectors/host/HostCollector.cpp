// The measurement loop (docs/host.md, "Host collector"): per group of jobs, operands allocated
// and filled, every job warmed up, then repetitions interleaved across the group with an
// untimed cache flush before each, a steady clock around the call only, and after the group one
// check of every job's last output against its reference.
#include "host/HostCollector.hpp"

#include <cblas.h>
#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "host/CacheFlush.hpp"
#include "host/HostTopology.hpp"
#include "host/MachineLoad.hpp"
#include "host/ReferenceKernels.hpp"
#include "host/TiledGemm.hpp"
#include "host/VectorKernels.hpp"
#include "measure/MedianConfidence.hpp"
#include "measure/OperatorIdentity.hpp"

namespace ts::host {
namespace {

// 64-byte aligned fp32 storage: rows of B and C start on cache lines as a library's would.
struct AlignedFloats {
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float[], Free> data;
  size_t size = 0;

  explicit AlignedFloats(size_t n) : size(n) {
    const size_t bytes = std::max<size_t>((n * sizeof(float) + 63) / 64 * 64, 64);
    data.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
    if (!data) throw std::bad_alloc();
  }
};

// splitmix64: fast, and the same values on every machine for a seed.
struct OperandRng {
  uint64_t state;
  float next() {  // uniform in [-1, 1)
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<float>(static_cast<double>(z >> 40) * 0x1.0p-23 - 1.0);
  }
};

int64_t tensor_elements(const Operator& op, int t) {
  int64_t n = 1;
  for (int d : op.tensors[static_cast<size_t>(t)].dims) n *= op.dims[static_cast<size_t>(d)].size;
  return n;
}

int64_t dim_size(const Operator& op, std::string_view name) {
  const int d = op.find_dim(name);
  return d >= 0 ? op.dims[static_cast<size_t>(d)].size : 1;
}

// A job's kernel, built before anything is timed so that a job the kernels cannot run fails
// the whole call before any time is spent.
struct PreparedJob {
  const HostJob* job = nullptr;
  std::optional<MappingProgram> program;  // the job's program, bound to job->op
  std::unique_ptr<TiledGemm> tiled;
  std::unique_ptr<VectorKernel> vector;
  double tolerance = 0;
};

PreparedJob prepare(const HostJob& job, int threads) {
  PreparedJob p;
  p.job = &job;
  const Operator& op = job.op;
  switch (job.kernel) {
    case HostKernel::tiled: {
      if (!job.program)
        throw InputError(op.where,
                         fmt::format("the tiled kernel needs a mapping for '{}'", op.name));
      // The program may have been resolved against another copy of the operator: bind it to
      // this one (same dims, checked) so that nothing dangles.
      p.program = *job.program;
      bool same = p.program->ndims == static_cast<int>(op.dims.size());
      for (int d = 0; same && d < p.program->ndims; ++d)
        same = p.program->size[d] == op.dims[static_cast<size_t>(d)].size;
      if (!same)
        throw InputError(op.where, fmt::format("the mapping of '{}' was resolved for other "
                                               "dimensions than {}",
                                               op.name, op.shape_text()));
      p.program->op = &op;
      p.tiled = std::make_unique<TiledGemm>(*p.program, threads);
      p.tolerance = kGemmTolerance;
      break;
    }
    case HostKernel::openblas:
      // A linear's bias is a second kernel that the host does not time with the GEMM.
      if (!is_gemm(op) || op.type == OperatorType::linear)
        throw InputError(op.where, fmt::format("OpenBLAS runs gemm and batched_gemm; '{}' is {}",
                                               op.name, to_string(op.type)));
      p.tolerance = kGemmTolerance;
      break;
    case HostKernel::vector:
      p.vector = std::make_unique<VectorKernel>(op, threads);
      p.tolerance = kVectorTolerance;
      break;
  }
  return p;
}

// One job's operands and its timed call.
struct JobRun {
  const PreparedJob* prepared = nullptr;
  std::vector<AlignedFloats> storage;
  std::vector<float*> tensors;  // per operator tensor; null for intermediates of a fused chain
  int output = -1;
  std::vector<double> times_ns;
  bool finished = false;  // counted as done in the progress

  JobRun(const PreparedJob& p, uint64_t seed) : prepared(&p) {
    const Operator& op = p.job->op;
    OperandRng rng{seed};
    tensors.assign(op.tensors.size(), nullptr);
    for (size_t t = 0; t < op.tensors.size(); ++t) {
      const int ti = static_cast<int>(t);
      if (op.is_intermediate(ti) && p.vector) continue;  // the fused kernel keeps them in cache
      storage.emplace_back(static_cast<size_t>(tensor_elements(op, ti)));
      float* data = storage.back().data.get();
      tensors[t] = data;
      const size_t n = storage.back().size;
      if (op.is_input(ti)) {
        for (size_t i = 0; i < n; ++i) data[i] = rng.next();
      } else {
        std::memset(data, 0, n * sizeof(float));
      }
      if (op.is_output(ti)) output = ti;
    }
  }

  void call() const {
    const PreparedJob& p = *prepared;
    if (p.tiled) {
      p.tiled->run(tensors[0], tensors[1], tensors[2]);
    } else if (p.vector) {
      p.vector->run(tensors);
    } else {
      const Operator& op = p.job->op;
      const int64_t batch = dim_size(op, "B"), m = dim_size(op, "M"), n = dim_size(op, "N"),
                    k = dim_size(op, "K");
      for (int64_t b = 0; b < batch; ++b)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                    static_cast<int>(n), static_cast<int>(k), 1.0f, tensors[0] + b * m * k,
                    static_cast<int>(k), tensors[1] + b * k * n, static_cast<int>(n), 0.0f,
                    tensors[2] + b * m * n, static_cast<int>(n));
    }
  }

  double error() const {
    const Operator& op = prepared->job->op;
    const Reference ref =
        prepared->vector
            ? reference_vector(op, std::vector<const float*>(tensors.begin(), tensors.end()))
            : reference_gemm(op, tensors[0], tensors[1]);
    const float* out = tensors[static_cast<size_t>(output)];
    return max_relative_error(
        std::span<const float>(out, static_cast<size_t>(tensor_elements(op, output))), ref);
  }
};

// Half the median's 95 % interval over the median, of timings sorted ascending; none while
// there are too few repetitions.
std::optional<double> median_half_width(std::span<const double> sorted_ns) {
  const std::optional<MedianInterval> interval = median_interval(sorted_ns);
  if (!interval) return std::nullopt;
  return interval->relative_half_width();
}

}  // namespace

bool wants_another_repetition(const std::vector<double>& times_ns,
                              const HostCollectorOptions& options) {
  const int n = static_cast<int>(times_ns.size());
  if (n < std::max(options.repetitions, 5)) return true;
  double timed_ns = 0;
  for (double t : times_ns) timed_ns += t;
  if (n >= options.max_repetitions || timed_ns * 1e-9 >= options.seconds_per_point) return false;
  std::vector<double> sorted = times_ns;
  std::sort(sorted.begin(), sorted.end());
  const std::optional<double> half = median_half_width(sorted);
  return !half || *half > options.tolerance;
}

UnstableVerdict unstable_verdict(std::optional<double> median_ci, int repetitions,
                                 const std::string& disturbed,
                                 const HostCollectorOptions& options) {
  if (!disturbed.empty()) return {Instability::machine_busy, disturbed};
  if (!median_ci)
    return {Instability::median_unpinned,
            fmt::format("{} repetitions are too few to bound the median", repetitions)};
  if (*median_ci > options.tolerance)
    return {Instability::median_unpinned,
            fmt::format("median known to +-{:.1f} % after {} repetitions (tolerance +-{:.1f} %)",
                        100 * *median_ci, repetitions, 100 * options.tolerance)};
  return {};
}

namespace {

Measurement summarise(const JobRun& run, const HostCollectorOptions& options,
                      const std::string& disturbed) {
  const HostJob& job = *run.prepared->job;
  Measurement m;
  m.op = operator_key(job.op, job.suite);
  m.mapping = job.mapping;
  m.implementation = std::string(to_string(job.kernel));
  m.scope = TimingScope::host_call;
  m.repetitions = static_cast<int>(run.times_ns.size());
  std::vector<double> t = run.times_ns;
  std::sort(t.begin(), t.end());
  m.min_ns = t.front();
  m.median_ns = sorted_median(t);
  m.spread = m.median_ns > 0 ? (t.back() - t.front()) / m.median_ns : 0;
  m.median_ci = median_half_width(t);
  UnstableVerdict verdict = unstable_verdict(m.median_ci, m.repetitions, disturbed, options);
  m.unstable = std::move(verdict.reason);
  m.instability = verdict.kind;
  m.max_error = run.error();
  m.checked = m.max_error <= run.prepared->tolerance;
  return m;
}

// Binds the OpenMP workers (the calling thread is worker 0) one per core for as long as it
// lives, so that a kernel's threads keep the cores and caches they warmed; each worker restores
// its own binding at the end, since a binding belongs to the thread that made it.
class WorkerBinding {
 public:
  explicit WorkerBinding(int threads) : threads_(threads), bindings_(static_cast<size_t>(threads)) {
    try {
      topology_.emplace();
    } catch (const std::exception&) {
      return;  // no hwloc topology: run where the OS puts us
    }
#pragma omp parallel num_threads(threads_)
    {
      const int t = omp_get_thread_num();
      bindings_[static_cast<size_t>(t)].emplace(topology_->bind_thread_to_core(t));
    }
  }
  ~WorkerBinding() {
    if (!topology_) return;
#pragma omp parallel num_threads(threads_)
    bindings_[static_cast<size_t>(omp_get_thread_num())].reset();
  }
  WorkerBinding(const WorkerBinding&) = delete;
  WorkerBinding& operator=(const WorkerBinding&) = delete;

 private:
  int threads_;
  std::optional<HostTopology> topology_;
  std::vector<std::optional<HostTopology::Binding>> bindings_;
};

}  // namespace

// Runs the thread pool the next call uses once, so that its workers are awake and spinning.
void wake_workers(HostKernel kernel, int threads) {
  if (kernel == HostKernel::openblas) {
    // OpenBLAS keeps its own pool; a small multi-threaded sgemm wakes it.
    static thread_local std::vector<float> a(256 * 256, 0.f), c(256 * 256, 0.f);
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 256, 256, 256, 1.f, a.data(), 256,
                a.data(), 256, 0.f, c.data(), 256);
    return;
  }
  for (int i = 0; i < 2; ++i) {
#pragma omp parallel num_threads(threads)
    {
      volatile int sink = omp_get_thread_num();
      (void)sink;
    }
  }
}

size_t run_host_jobs(const std::vector<HostJob>& jobs, const HostCollectorOptions& options,
                     const std::function<void(const Measurement&)>& on_result,
                     const std::function<void(const HostProgress&)>& on_progress,
                     const std::atomic<bool>* cancel) {
  const int threads = options.threads > 0 ? options.threads : omp_get_num_procs();
  const size_t group_size = static_cast<size_t>(std::max(options.group_size, 1));
  openblas_set_num_threads(threads);

  std::vector<PreparedJob> prepared;
  prepared.reserve(jobs.size());
  for (const HostJob& job : jobs) prepared.push_back(prepare(job, threads));

  std::optional<CacheFlush> flush;
  if (options.flush_caches && !jobs.empty()) flush.emplace();
  auto cancelled = [&] { return cancel && cancel->load(); };
  const WorkerBinding binding(threads);
  // Cores other processes may use without taking any from the measurement.
  const double free_cores = std::max(0, online_cpus() - threads);

  // Progress counts jobs, a total known before the first one runs: repetitions would not be,
  // since a job whose median is not yet within the tolerance takes more of them.
  HostProgress progress;
  progress.total = jobs.size();
  size_t delivered = 0;
  for (size_t first = 0; first < jobs.size(); first += group_size) {
    const size_t last = std::min(jobs.size(), first + group_size);
    if (cancelled()) return delivered;
    std::vector<JobRun> group;
    group.reserve(last - first);
    for (size_t j = first; j < last; ++j)
      group.emplace_back(prepared[j], options.seed + 0x632be59bd9b4e019ull * (j + 1));
    for (const JobRun& run : group)
      for (int w = 0; w < options.warmup; ++w) run.call();
    const std::optional<CpuSample> before = sample_cpu();
    // Round after round, every job that still wants one (its minimum, or a median not yet
    // within the tolerance) runs once, so that the jobs of a round keep interleaving.
    for (int round = 0;; ++round) {
      bool any = false;
      for (JobRun& run : group) {
        if (!wants_another_repetition(run.times_ns, options)) {
          if (!run.finished) {
            run.finished = true;
            ++progress.done;
            progress.current = run.prepared->job->op.name;
            if (on_progress) on_progress(progress);
          }
          continue;
        }
        any = true;
        if (cancelled()) return delivered;
        if (flush) {
          flush->run();
          // The flush ran on this thread alone; on a VM the other vCPUs halt meanwhile, and
          // waking one costs from microseconds to milliseconds, which is the hypervisor's and
          // not the operator's. Wake the workers (untimed) before the clock starts.
          wake_workers(run.prepared->job->kernel, threads);
        }
        const auto t0 = std::chrono::steady_clock::now();
        run.call();
        const auto t1 = std::chrono::steady_clock::now();
        const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
        run.times_ns.push_back(ns);
        progress.current = fmt::format("{}, repetition {}", run.prepared->job->op.name, round + 1);
        if (on_progress) on_progress(progress);
      }
      if (!any) break;
    }
    std::string disturbed;
    if (const std::optional<double> others = other_cores(before, sample_cpu());
        others && *others - free_cores > options.busy_cores)
      disturbed = fmt::format(
          "machine busy: other processes used {:.2f} of the {} cores while "
          "it ran (the measurement uses {})",
          *others, online_cpus(), threads);
    for (const JobRun& run : group) {
      const Measurement m = summarise(run, options, disturbed);
      if (on_result) on_result(m);
      ++delivered;
    }
  }
  return delivered;
}

}  // namespace ts::host
