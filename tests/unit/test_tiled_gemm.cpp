// The tiled GEMM against the double-precision reference: mappings the mapper resolves or draws
// from the host GEMM template, hand-written ones with tails and K outermost, odd shapes, batches,
// one and two threads; the register block it picks; the micro-kernel table entry by entry.
#include <catch2/catch.hpp>
#include <random>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "host/HostCollector.hpp"
#include "host/HostIsa.hpp"
#include "host/MicroKernel.hpp"
#include "host/OpenBlasCore.hpp"
#include "host/ReferenceKernels.hpp"
#include "host/TiledGemm.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::host;

namespace {

const std::string kGemmFixtures = std::string(TILESCOPE_FIXTURES) + "/host-kernels/";

const ArchitectureGraph& host_graph() {
  static const ArchitectureGraph g = load_architecture(kGemmFixtures + "host-like.yaml");
  return g;
}

const Mapping& gemm_template() {
  static const Mapping m = load_mapping(kGemmFixtures + "host-gemm-template.yaml");
  return m;
}

// Runs `body` once per instruction-set level this CPU runs, with that level's kernels chosen,
// and chooses the level in use before again afterwards.
template <class Body>
void on_every_level(Body body) {
  struct Restore {
    HostIsa before = host_isa();
    ~Restore() { select_host_isa(before); }
  } restore;
  for (HostIsa isa : host_isas()) {
    if (!host_isa_supported(isa)) continue;
    select_host_isa(isa);
    INFO("instruction-set level " << host_isa_name(isa));
    body();
  }
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

int64_t size_of(const Operator& op, const char* dim) {
  const int d = op.find_dim(dim);
  return d >= 0 ? op.dims[static_cast<size_t>(d)].size : 1;
}

// Runs the mapping on random operands (C starts as garbage: the kernel must overwrite it) and
// returns the error against the reference relative to sum |a||b|.
double tiled_error(const MappingProgram& program, int threads, int* rows = nullptr,
                   int* cols = nullptr) {
  const Operator& op = *program.op;
  const int64_t b = size_of(op, "B"), m = size_of(op, "M"), n = size_of(op, "N"),
                k = size_of(op, "K");
  const auto a = random_floats(static_cast<size_t>(b * m * k), 1);
  const auto w = random_floats(static_cast<size_t>(b * k * n), 2);
  std::vector<float> c(static_cast<size_t>(b * m * n), 12345.0f);
  TiledGemm gemm(program, threads);
  if (rows) *rows = gemm.register_rows();
  if (cols) *cols = gemm.register_cols();
  gemm.run(a.data(), w.data(), c.data());
  double first = max_relative_error(c, reference_gemm(op, a.data(), w.data()));
  gemm.run(a.data(), w.data(), c.data());  // a second run over its own output: same result
  return std::max(first, max_relative_error(c, reference_gemm(op, a.data(), w.data())));
}

MappingProgram template_program(const Operator& op) {
  return compile_mapping(instantiate_template(gemm_template(), op), op, host_graph(), true);
}

MappingProgram resolved(const Operator& op, uint64_t budget = 3000) {
  OperatorPredictionOptions options;
  options.mapping = &gemm_template();
  options.mapper.budget = budget;
  return resolve_mapping(op, host_graph(), options);
}

MappingProgram concrete(const std::string& text, const Operator& op) {
  static std::vector<std::unique_ptr<Mapping>> keep;  // programs point into their mapping
  keep.push_back(std::make_unique<Mapping>(parse_mapping(text, "inline.yaml")));
  return compile_mapping(*keep.back(), op, host_graph());
}

// fp32 with FMA over K <= a few hundred stays far below this; a missing or doubled K block,
// a wrong edge or a race is off by 1e-2 or more.
constexpr double kTight = 2e-6;

}  // namespace

TEST_CASE("tiled GEMM on the mapper's mappings matches the reference", "[host][tiled_gemm]") {
  const std::vector<Operator> ops = {
      make_gemm("g64", 64, 64, 64, DataType::fp32),
      make_gemm("odd", 77, 130, 61, DataType::fp32),
      make_gemm("tall", 200, 48, 96, DataType::fp32),
      make_gemm("thin", 1, 17, 5, DataType::fp32),
      make_batched_gemm("bg", 3, 33, 40, 29, DataType::fp32),
      make_batched_gemm("bg_odd", 5, 9, 70, 13, DataType::fp32),
  };
  for (const Operator& op : ops) {
    const MappingProgram program = resolved(op);
    for (int threads : {1, 2}) {
      INFO(op.name << " (" << op.shape_text() << "), " << threads << " threads, mapping:\n"
                   << mapping_yaml(program, "resolved", ""));
      CHECK(tiled_error(program, threads) <= kTight);
    }
  }
}

TEST_CASE("tiled GEMM on many drawn mappings matches the reference", "[host][tiled_gemm]") {
  // Uniform draws from the template's space: every loop order, factors with tails, K split at
  // any level, spatial tiles more or fewer than threads.
  const std::vector<Operator> ops = {
      make_gemm("odd", 77, 130, 61, DataType::fp32),
      make_gemm("small", 16, 33, 20, DataType::fp32),
      make_batched_gemm("bg", 3, 21, 50, 19, DataType::fp32),
  };
  for (const Operator& op : ops) {
    const MappingProgram tmpl = template_program(op);
    const auto draws = sample_valid_mappings(tmpl, 12, 2024);
    REQUIRE(draws.size() >= 8);
    for (size_t i = 0; i < draws.size(); ++i) {
      const int threads = 1 + static_cast<int>(i % 2);
      INFO(op.name << " draw " << i << ", " << threads << " threads, mapping:\n"
                   << mapping_yaml(draws[i], "drawn", ""));
      CHECK(tiled_error(draws[i], threads) <= kTight);
    }
  }
}

TEST_CASE("tiled GEMM on hand-written mappings with tails and K outermost", "[host][tiled_gemm]") {
  SECTION("gemm, spatial at L3, K split at five levels and outermost") {
    const Operator op = make_gemm("odd", 77, 130, 61, DataType::fp32);
    const Mapping m = load_mapping(kGemmFixtures + "gemm-tails-k-outermost.yaml");
    const MappingProgram program = compile_mapping(m, op, host_graph());
    for (int threads : {1, 2, 3}) {
      INFO(threads << " threads");
      int rows = 0, cols = 0;
      CHECK(tiled_error(program, threads, &rows, &cols) <= kTight);
      if (register_block_in_table(7, (20 + vector_lanes() - 1) / vector_lanes())) {
        CHECK(rows == 7);  // AVX-512: 7 x 2 vectors
        CHECK(cols == 20);
      } else {
        CHECK(register_block_in_table(rows, (cols + vector_lanes() - 1) / vector_lanes()));
      }
    }
  }
  SECTION("the innermost tile loops M and N around the op block, the op takes K in fours") {
    const Operator op = make_gemm("g", 50, 70, 36, DataType::fp32);
    const MappingProgram program = concrete(R"(version: 1
kind: mapping
name: inner-loops
tree:
  tile: DRAM
  spatial: {M: 2}
  children:
    - tile: L1
      temporal: {N: 2, K: 3}
      children:
        - tile: RF
          temporal: {M: 5/4, K: 3, N: 2/1}
          children:
            - op: Core
              factors: {M: 6/2, N: 24/22, K: 4}
)",
                                            op);
    for (int threads : {1, 2}) {
      INFO(threads << " threads");
      CHECK(tiled_error(program, threads) <= kTight);
    }
  }
  SECTION("batched, spatial over the batch at DRAM (no L3 level), waves") {
    const Operator op = make_batched_gemm("bg", 3, 33, 40, 29, DataType::fp32);
    const Mapping m = load_mapping(kGemmFixtures + "batched-spatial-dram.yaml");
    const MappingProgram program = compile_mapping(m, op, host_graph());
    for (int threads : {1, 2}) {
      INFO(threads << " threads");
      CHECK(tiled_error(program, threads) <= kTight);
    }
  }
}

TEST_CASE("tiled GEMM uses the op block as its register block", "[host][tiled_gemm]") {
  const Operator op = make_gemm("g", 48, 96, 32, DataType::fp32);
  auto with_block = [&](int mr, int nr) {
    return concrete(R"(version: 1
kind: mapping
name: block
tree:
  tile: DRAM
  temporal: {M: )" + std::to_string(48 / mr) +
                        ", N: " + std::to_string(96 / nr) +
                        R"(}
  children:
    - tile: RF
      buffers: {A: bypass, B: bypass}
      temporal: {K: 32}
      children:
        - op: Core
          factors: {M: )" +
                        std::to_string(mr) + ", N: " + std::to_string(nr) + R"(, K: 1}
)",
                    op);
  };
  for (auto [mr, nr] : std::vector<std::pair<int, int>>{
           {6, 32}, {4, 16}, {1, 48}, {12, 16}, {8, 32}, {16, 96}, {48, 16}}) {
    INFO("op block " << mr << " x " << nr);
    const MappingProgram program = with_block(mr, nr);
    int rows = 0, cols = 0;
    CHECK(tiled_error(program, 1, &rows, &cols) <= kTight);
    const int vcols = (nr + vector_lanes() - 1) / vector_lanes();
    if (register_block_in_table(mr, vcols)) {
      CHECK(rows == mr);  // the table has the op block: it is the register block
      CHECK(cols == nr);
    } else {
      // Split into table blocks that tile the op block.
      CHECK(rows <= mr);
      CHECK(cols <= nr);
      CHECK(register_block_in_table(rows, (cols + vector_lanes() - 1) / vector_lanes()));
    }
  }
}

TEST_CASE("register blocks split oversized op blocks with the fewest loads", "[host][tiled_gemm]") {
  // Fits: unchanged.
  auto b = choose_register_block(4, 2 * vector_lanes(), max_accumulators());
  CHECK(b.rows == 4);
  CHECK(b.vector_columns == 2);
  // 32 rows of one vector column: at most max_accumulators() rows per block.
  b = choose_register_block(32, vector_lanes(), max_accumulators());
  CHECK(b.vector_columns == 1);
  CHECK(b.rows <= max_accumulators());
  CHECK(b.rows >= max_accumulators() / 2);
  // More vector columns than the table spans.
  b = choose_register_block(2, 8 * vector_lanes(), max_accumulators());
  CHECK(b.vector_columns <= max_vector_columns());
  // A register file with fewer registers than the ISA (the graph's RF) limits the block.
  b = choose_register_block(8, 4 * vector_lanes(), 8);
  CHECK(b.rows * b.vector_columns <= 8);
  for (int r = 1; r <= max_block_rows(); ++r)
    for (int v = 1; v <= max_vector_columns(); ++v)
      CHECK((micro_kernel(r, v, false) != nullptr) ==
            (r * v <= max_accumulators() && r * v + v + 1 <= vector_registers()));
}

TEST_CASE("every micro-kernel in the table computes its block", "[host][tiled_gemm]") {
  on_every_level([] {
    const int64_t lda = 37, ldb = 5 * vector_lanes() + 3, ldc = 5 * vector_lanes() + 1;
    const auto a = random_floats(static_cast<size_t>(max_block_rows() * lda), 3);
    const auto bm = random_floats(static_cast<size_t>(lda * ldb), 4);
    for (int r = 1; r <= max_block_rows(); ++r)
      for (int v = 1; v <= max_vector_columns(); ++v) {
        if (!register_block_in_table(r, v)) continue;
        for (int last : {vector_lanes(), 1, vector_lanes() / 2 + 1})
          for (bool accumulate : {false, true})
            for (int64_t kc : {int64_t{1}, int64_t{3}, int64_t{lda}}) {
              const int cols = (v - 1) * vector_lanes() + last;
              // Guard columns around the block: nothing outside it may be written.
              std::vector<float> c(static_cast<size_t>(max_block_rows() * ldc), 0.5f);
              micro_kernel(r, v, last != vector_lanes())(kc, a.data(), lda, bm.data(), ldb,
                                                         c.data(), ldc, last, accumulate);
              double worst = 0;
              for (int i = 0; i < max_block_rows(); ++i)
                for (int64_t j = 0; j < ldc; ++j) {
                  double want = 0.5;
                  if (i < r && j < cols) {
                    want = accumulate ? 0.5 : 0.0;
                    for (int64_t p = 0; p < kc; ++p)
                      want += double(a[size_t(i * lda + p)]) * bm[size_t(p * ldb + j)];
                  }
                  worst = std::max(worst, std::abs(c[size_t(i * ldc + j)] - want));
                }
              INFO(r << " x " << v << " vectors, last " << last << ", kc " << kc
                     << (accumulate ? ", accumulating" : ""));
              CHECK(worst <= 1e-4);
            }
      }
  });
}

TEST_CASE("the tiled GEMM runs every mapping on every instruction-set level",
          "[host][tiled_gemm]") {
  // Odd shapes (tails in every dim, a masked last vector column) and two threads, at each level
  // the CPU runs: the per-level tables are separate code, each must compute the same product.
  const std::vector<Operator> ops = {make_gemm("odd", 37, 53, 29, DataType::fp32),
                                     make_batched_gemm("bg", 2, 19, 70, 33, DataType::fp32)};
  std::vector<MappingProgram> programs;
  for (const Operator& op : ops) programs.push_back(resolved(op, 500));
  int levels = 0;
  on_every_level([&] {
    ++levels;
    for (const MappingProgram& program : programs) {
      INFO(program.op->name);
      int rows = 0, cols = 0;
      CHECK(tiled_error(program, 2, &rows, &cols) <= kTight);
      CHECK(register_block_in_table(rows, (cols + vector_lanes() - 1) / vector_lanes()));
    }
  });
  CHECK(levels >= 1);
}

TEST_CASE("the tiled GEMM refuses mappings outside its kernel family", "[host][tiled_gemm]") {
  const Operator op = make_gemm("g", 32, 32, 32, DataType::fp32);
  SECTION("spatial K") {
    const MappingProgram p = concrete(R"(version: 1
kind: mapping
name: spatial-k
tree:
  tile: DRAM
  spatial: {K: 2}
  children:
    - tile: RF
      buffers: {A: bypass, B: bypass}
      temporal: {M: 16, N: 2, K: 16}
      children:
        - op: Core
          factors: {M: 2, N: 16, K: 1}
)",
                                      op);
    CHECK_THROWS_AS(TiledGemm(p, 2), InputError);
  }
  SECTION("a vector operator") {
    const Operator v = make_vector_op("relu", "relu", 8, 16, DataType::fp32);
    const Mapping m = parse_mapping(R"(version: 1
kind: mapping
name: v
tree:
  tile: DRAM
  children:
    - op: Core
      factors: {R: 8, C: 16}
)",
                                    "v.yaml");
    const MappingProgram p = compile_mapping(m, v, host_graph());
    CHECK_THROWS_AS(TiledGemm(p, 1), InputError);
  }
}

TEST_CASE("the error measure sees a wrong element", "[host][tiled_gemm]") {
  const Operator op = make_gemm("g", 4, 5, 6, DataType::fp32);
  const auto a = random_floats(24, 5), b = random_floats(30, 6);
  const Reference ref = reference_gemm(op, a.data(), b.data());
  std::vector<float> c(ref.value.begin(), ref.value.end());
  CHECK(max_relative_error(c, ref) <= 1e-7);
  c[7] += 0.01f;
  CHECK(max_relative_error(c, ref) > 1e-3);
  c[7] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isinf(max_relative_error(c, ref)));
}

// Run on purpose: tilescope_tests "[!benchmark]" (or the name). Prints GFLOP/s of the tiled GEMM
// with the mapper's mapping on host-like.yaml and with a hand-written one, and of OpenBLAS, at 1
// and 2 threads, through the collector's loop (best of 15 repetitions, no flush).
TEST_CASE("tiled GEMM against OpenBLAS on 512x768x768", "[host][!benchmark]") {
  const Operator op = make_gemm("bench", 512, 768, 768, DataType::fp32);
  const MappingProgram mapper = resolved(op, 50000);
  const Mapping hand_mapping = load_mapping(kGemmFixtures + "gemm-512x768x768-14x32.yaml");
  const MappingProgram hand = compile_mapping(hand_mapping, op, host_graph());
  std::vector<HostJob> jobs;
  jobs.push_back({op, HostKernel::tiled, mapper, mapping_record(mapper, "mapper"), "bench"});
  jobs.push_back({op, HostKernel::tiled, hand, mapping_record(hand, hand_mapping.name), "bench"});
  jobs.push_back({op, HostKernel::openblas, std::nullopt, std::nullopt, "bench"});
  const OpenBlasCore core = openblas_core();
  WARN("mapper's mapping:\n"
       << mapping_yaml(mapper, "mapper", "") << "OpenBLAS kernels: " << core.name
       << (core.below_cpu ? " (" + core.advice + ")" : ""));
  for (int threads : {1, 2}) {
    HostCollectorOptions options;
    options.threads = threads;
    options.repetitions = 15;
    options.warmup = 2;
    options.flush_caches = false;
    std::vector<Measurement> got;
    run_host_jobs(
        jobs, options, [&](const Measurement& m) { got.push_back(m); }, nullptr, nullptr);
    REQUIRE(got.size() == 3);
    const double flops = op.total_flops();
    auto gflops = [&](const Measurement& m) { return flops / m.min_ns; };
    WARN(threads << " threads, GFLOP/s (best; median): tiled/mapper " << gflops(got[0]) << "; "
                 << flops / got[0].median_ns << ", tiled/hand " << gflops(got[1]) << "; "
                 << flops / got[1].median_ns << ", openblas " << gflops(got[2]) << "; "
                 << flops / got[2].median_ns << "; tiled/hand is "
                 << 100 * gflops(got[1]) / gflops(got[2]) << " % of openblas");
    for (const auto& m : got) CHECK(m.checked);
  }
}
