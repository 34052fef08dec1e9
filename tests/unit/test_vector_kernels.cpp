// Vector operators and fused chains against the double-precision reference, fused against the
// unfused composition, and the builders' tensor roles as the kernels read them.
#include <catch2/catch.hpp>
#include <random>

#include "host/ReferenceKernels.hpp"
#include "host/VectorKernels.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::host;

namespace {

// Operands for every tensor of an operator; inputs random in [-lo, hi], the rest zero.
struct Operands {
  std::vector<std::vector<float>> data;
  std::vector<float*> ptr;
  std::vector<const float*> cptr;

  Operands(const Operator& op, uint32_t seed, float range = 2.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-range, range);
    for (size_t t = 0; t < op.tensors.size(); ++t) {
      size_t n = 1;
      for (int d : op.tensors[t].dims)
        n *= static_cast<size_t>(op.dims[static_cast<size_t>(d)].size);
      data.emplace_back(n, 0.0f);
      if (op.is_input(static_cast<int>(t)))
        for (auto& x : data.back()) x = u(rng);
    }
    for (auto& d : data) {
      ptr.push_back(d.data());
      cptr.push_back(d.data());
    }
  }
  const std::vector<float>& output(const Operator& op) const {
    return data[static_cast<size_t>(op.find_tensor("Y"))];
  }
};

}  // namespace

TEST_CASE("every vector step matches the reference", "[host][vector]") {
  for (const std::string& step : vector_steps())
    for (auto [rows, cols] :
         std::vector<std::pair<int, int>>{{37, 77}, {5, 1}, {3, 1024}, {64, 16}})
      for (int threads : {1, 2}) {
        const Operator op = make_vector_op(step, step, rows, cols, DataType::fp32);
        Operands x(op, 11);
        VectorKernel kernel(op, threads);
        kernel.run(x.ptr);
        INFO(step << " " << rows << " x " << cols << ", " << threads << " threads");
        CHECK(max_relative_error(x.output(op), reference_vector(op, x.cptr)) <= 2e-6);
      }
}

TEST_CASE("fused chains match the reference and the unfused composition", "[host][vector]") {
  const std::vector<std::vector<std::string>> chains = {
      {"add", "layernorm"},
      {"bias", "gelu"},
      {"scale", "mask", "softmax"},
      {"bias", "relu"},
      {"add", "add", "relu"},  // a repeated step reads Z and Z2
      {"mul", "bias", "relu", "layernorm", "gelu", "scale", "softmax"},
  };
  for (const auto& steps : chains)
    for (auto [rows, cols] : std::vector<std::pair<int, int>>{{45, 300}, {7, 3000}, {130, 64}})
      for (int threads : {1, 2}) {
        const Operator op = make_fused_chain("chain", steps, rows, cols, DataType::fp32);
        std::string name;
        for (const auto& s : steps) name += s + " ";
        INFO(name << rows << " x " << cols << ", " << threads << " threads");
        Operands fused(op, 5), unfused(op, 5);
        VectorKernel kernel(op, threads);
        // Intermediates never reach memory in the fused run: it must not need their arrays.
        std::vector<float*> no_intermediates = fused.ptr;
        for (size_t t = 0; t < op.tensors.size(); ++t)
          if (op.is_intermediate(static_cast<int>(t))) no_intermediates[t] = nullptr;
        kernel.run(no_intermediates);
        kernel.run_unfused(unfused.ptr);
        const Reference ref = reference_vector(op, fused.cptr);
        // fp32 against a double reference through up to 7 steps and rows of 3000: a few ulp per
        // step, and the order of a row's sums depends on how the compiler vectorised it (an
        // ASan build at -O2 measured 6.0e-6); the collector itself accepts 1e-5.
        CHECK(max_relative_error(fused.output(op), ref) <= 1e-5);
        CHECK(max_relative_error(unfused.output(op), ref) <= 1e-5);
        // Same steps, same arithmetic per element: only the order inside a row's reductions may
        // differ with the buffers' alignment.
        Reference unfused_as_ref;
        unfused_as_ref.value.assign(unfused.output(op).begin(), unfused.output(op).end());
        unfused_as_ref.scale = ref.scale;
        CHECK(max_relative_error(fused.output(op), unfused_as_ref) <= 1e-6);
        // The unfused run leaves every intermediate: the first is the first step alone.
        if (steps.size() > 1) {
          const Operator first = make_vector_op("first", steps[0], rows, cols, DataType::fp32);
          std::vector<const float*> t(first.tensors.size());
          t[0] = unfused.cptr[0];  // X
          for (size_t i = 1; i + 1 < first.tensors.size(); ++i) t[i] = unfused.cptr[i];
          const int t1 = op.find_tensor("T1");
          const auto& got = unfused.data[static_cast<size_t>(t1)];
          CHECK(max_relative_error(got, reference_vector(first, t)) <= 2e-6);
        }
      }
}

TEST_CASE("vector steps follow the builders' semantics", "[host][vector]") {
  const int rows = 2, cols = 4;
  auto run = [&](const std::string& step, std::vector<std::vector<float>> inputs) {
    const Operator op = make_vector_op(step, step, rows, cols, DataType::fp32);
    std::vector<std::vector<float>> data;
    size_t next = 0;
    for (size_t t = 0; t < op.tensors.size(); ++t)
      data.push_back(op.is_input(static_cast<int>(t)) ? inputs[next++]
                                                      : std::vector<float>(rows * cols));
    std::vector<float*> p;
    for (auto& d : data) p.push_back(d.data());
    VectorKernel(op, 1).run(p);
    return data.back();
  };
  const std::vector<float> x{1, -2, 3, -4, 0.5f, 0, -1, 2};
  const std::vector<float> z{10, 20, 30, 40, 50, 60, 70, 80};
  CHECK(run("add", {x, z})[1] == Approx(18));
  CHECK(run("mul", {x, z})[3] == Approx(-160));
  CHECK(run("bias", {x, {1, 2, 3, 4}})[6] == Approx(2));  // bias over C: column 2
  CHECK(run("scale", {x})[2] == Approx(3 * kScaleFactor));
  CHECK(run("mask", {x, {0, -1e4f, 0, 0, 0, 0, 0, 0}})[1] == Approx(-2 - 1e4));  // additive
  CHECK(run("relu", {x})[3] == 0);
  CHECK(run("gelu", {x})[0] == Approx(0.8411920).epsilon(1e-6));
  const auto s = run("softmax", {x});
  CHECK(s[0] + s[1] + s[2] + s[3] == Approx(1));
  CHECK(s[2] > s[0]);
  const auto ln = run("layernorm", {x, {1, 1, 2, 1}, {0, 0, 0, 5}});
  CHECK(ln[0] + ln[1] + ln[2] / 2 + (ln[3] - 5) == Approx(0).margin(1e-5));  // mean 0 per row
  CHECK(ln[7] > 5);
}

TEST_CASE("vector kernels stay finite at the edges of exp", "[host][vector]") {
  const Operator op = make_fused_chain("edge", {"gelu", "softmax"}, 4, 40, DataType::fp32);
  Operands x(op, 3, 1.0f);
  for (size_t i = 0; i < x.data[0].size(); ++i)
    x.data[0][i] = (i % 2 ? 1.0f : -1.0f) * float(i * 3);
  VectorKernel(op, 2).run(x.ptr);
  for (float y : x.output(op)) CHECK(std::isfinite(y));
  CHECK(max_relative_error(x.output(op), reference_vector(op, x.cptr)) <= 1e-5);
}

TEST_CASE("vector kernels refuse operators that are not vector steps", "[host][vector]") {
  CHECK_THROWS_AS(VectorKernel(make_gemm("g", 4, 4, 4, DataType::fp32), 1), InputError);
  const auto stages = vector_stages(make_fused_chain("c", {"add", "bias", "add"}, 2, 3));
  REQUIRE(stages.size() == 3);
  CHECK(stages[0].step == VectorStep::add);
  CHECK(stages[1].step == VectorStep::bias);
  CHECK(stages[2].step == VectorStep::add);
  CHECK(stages[2].input == stages[1].output);
}
