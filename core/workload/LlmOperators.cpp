#include "workload/LlmOperators.hpp"

#include <algorithm>
#include <stdexcept>

namespace ts {
namespace {

struct OperatorDraft {
  Operator op;

  int tensor(std::string name, std::vector<int> dims, DataType dtype) {
    op.tensors.push_back(TensorSpec{std::move(name), std::move(dims), dtype, {}});
    return static_cast<int>(op.tensors.size()) - 1;
  }
  void stage(std::string name, OpClass cls, std::vector<int> inputs, int output,
             std::vector<int> dims, const OperationCounts& per_point) {
    Stage s;
    s.name = std::move(name);
    s.op_class = cls;
    s.inputs = std::move(inputs);
    s.output = output;
    s.dims = std::move(dims);
    set_operations(s, per_point);
    op.stages.push_back(std::move(s));
  }
};

OperatorDraft draft(std::string name, OperatorType type, std::vector<Dimension> dims) {
  OperatorDraft d;
  d.op.name = std::move(name);
  d.op.type = type;
  d.op.dims = std::move(dims);
  return d;
}

// Flash attention and flash-decoding keep scores, probabilities and partial outputs in fp32.
constexpr DataType kAttentionAccumulator = DataType::fp32;

}  // namespace

Operator make_rmsnorm(std::string name, int64_t rows, int64_t cols, DataType dtype) {
  // dims R=0 C=1. Two stages, as every kernel of it runs: the sum of squares of a row (square and
  // accumulate, 2 an element) into S (fp32), then the row scaled by rsqrt(S / C) and by gamma (2
  // an element; the division and the square root come once per row). A kernel that keeps the row
  // on chip fuses them; one that streams it reads X twice (the GPU templates' two passes).
  OperatorDraft d = draft(std::move(name), OperatorType::rmsnorm, {{"R", rows}, {"C", cols}});
  const int x = d.tensor("X", {0, 1}, dtype), gamma = d.tensor("gamma", {1}, dtype);
  const int s = d.tensor("S", {0}, DataType::fp32);
  d.stage("sum_squares", OpClass::reduction, {x}, s, {0, 1}, {2, 0, 0, 0});
  d.stage("normalize", OpClass::elementwise, {x, s, gamma}, d.tensor("Y", {0, 1}, dtype), {0, 1},
          {2, 0, 0, 0});
  return std::move(d.op);
}

Operator make_rope(std::string name, int64_t tokens, int64_t heads, int64_t head_dim,
                   DataType dtype) {
  // dims T=0 H=1 D=2. y[2i] = x[2i] cos - x[2i+1] sin (and its pair): two multiplies and an add
  // per element; the tables hold one angle per token and position in the head.
  OperatorDraft d =
      draft(std::move(name), OperatorType::rope, {{"T", tokens}, {"H", heads}, {"D", head_dim}});
  const int x = d.tensor("X", {0, 1, 2}, dtype), cos = d.tensor("Cos", {0, 2}, dtype),
            sin = d.tensor("Sin", {0, 2}, dtype);
  d.stage("rope", OpClass::elementwise, {x, cos, sin}, d.tensor("Y", {0, 1, 2}, dtype), {0, 1, 2},
          {3, 0, 0, 0});
  return std::move(d.op);
}

Operator make_silu_mul(std::string name, int64_t rows, int64_t cols, DataType dtype) {
  // dims R=0 C=1. SiLU(x) y = x / (1 + e^-x) * y: one exp, one add, one division, one multiply.
  OperatorDraft d = draft(std::move(name), OperatorType::silu_mul, {{"R", rows}, {"C", cols}});
  const int x = d.tensor("X", {0, 1}, dtype), z = d.tensor("Z", {0, 1}, dtype);
  d.stage("silu_mul", OpClass::elementwise, {x, z}, d.tensor("Y", {0, 1}, dtype), {0, 1},
          {2, 1, 1, 0});
  return std::move(d.op);
}

Operator make_quant_gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t group,
                         DataType dtype) {
  if (group <= 0 || k % group != 0)
    throw std::invalid_argument("quant_gemm: K must be a multiple of the group size");
  // dims M=0 N=1 KG=2 KI=3: K split into K/G groups of G, so that a scale is indexed by its
  // group. The weights are dequantised in registers on the way to the tensor cores (AWQ,
  // Marlin): the unit runs at the activations' type, and only the packed weights and their
  // scales travel. The stage lists KI before KG so that the unit's k granule falls on KI.
  OperatorDraft d = draft(std::move(name), OperatorType::quant_gemm,
                          {{"M", m}, {"N", n}, {"KG", k / group}, {"KI", group}});
  const int a = d.tensor("A", {0, 2, 3}, dtype), w = d.tensor("W", {2, 3, 1}, DataType::int4),
            s = d.tensor("S", {2, 1}, DataType::fp16);
  d.stage("quant_gemm", OpClass::matmul, {a, w, s}, d.tensor("C", {0, 1}, dtype), {0, 1, 3, 2},
          {1, 0, 0, 0});
  return std::move(d.op);
}

Operator make_lut_gemm(std::string name, int64_t m, int64_t n, int64_t k, int64_t bits,
                       int64_t group, int64_t key_bits, DataType dtype) {
  if (key_bits != 4 && key_bits != 8)
    throw std::invalid_argument("lut_gemm: a key covers 4 or 8 activations");
  if (group <= 0 || group % key_bits != 0 || k % group != 0)
    throw std::invalid_argument(
        "lut_gemm: the scale group must be a multiple of the key width and divide K");
  if (bits <= 0 || bits > 8) throw std::invalid_argument("lut_gemm: 1 to 8 weight bits");
  // dims M=0 N=1 Q=2 KS=3 KB=4 KI=5 E=6. The weights are binary-coded, W = sum over the bit
  // planes q of S_q B_q with B_q in {-1, +1}: each key_bits weights of a plane form a key, which
  // picks one of the 2^key_bits signed sums of the activations they multiply. The tables are
  // built once per row and key position; every column and every plane reads them.
  const int64_t entries = int64_t(1) << key_bits;
  OperatorDraft d = draft(std::move(name), OperatorType::lut_gemm,
                          {{"M", m},
                           {"N", n},
                           {"Q", bits},
                           {"KS", k / group},
                           {"KB", group / key_bits},
                           {"KI", key_bits},
                           {"E", entries}});
  const DataType keys = key_bits == 8 ? DataType::int8 : DataType::int4;
  const int a = d.tensor("A", {0, 3, 4, 5}, dtype), t = d.tensor("T", {0, 3, 4, 6}, dtype);
  // A table in Gray-code order adds or subtracts one activation (twice) per entry: one
  // operation an entry, over an iteration space that also spans the key's KI activations.
  d.stage("table", OpClass::elementwise, {a}, t, {0, 3, 4, 6, 5},
          {1.0 / static_cast<double>(key_bits), 0, 0, 0});
  const int w = d.tensor("W", {2, 3, 4, 1}, keys), s = d.tensor("S", {2, 3, 1}, DataType::fp16);
  // One read and accumulate per key over a space that spans the table's E entries, and one
  // scaling per scale group of a plane (every KB keys).
  const double per_key = 1.0 + 1.0 / static_cast<double>(group / key_bits);
  d.stage("lookup", OpClass::lookup, {t, w, s}, d.tensor("C", {0, 1}, dtype), {0, 1, 2, 3, 4, 6},
          {per_key / static_cast<double>(entries), 0, 0, 0});
  return std::move(d.op);
}

Operator make_grouped_gemm(std::string name, const std::vector<int64_t>& rows_per_group, int64_t n,
                           int64_t k, DataType dtype) {
  // An expert that receives no token is skipped by the kernel: its weights are never read.
  const int64_t active =
      std::count_if(rows_per_group.begin(), rows_per_group.end(), [](int64_t m) { return m > 0; });
  const int64_t largest =
      rows_per_group.empty() ? 0 : *std::max_element(rows_per_group.begin(), rows_per_group.end());
  if (active == 0) throw std::invalid_argument("grouped_gemm: no group receives a token");
  // dims B=0 M=1 N=2 K=3, as batched_gemm.
  OperatorDraft d = draft(std::move(name), OperatorType::grouped_gemm,
                          {{"B", active}, {"M", largest}, {"N", n}, {"K", k}});
  const int a = d.tensor("A", {0, 1, 3}, dtype), w = d.tensor("W", {0, 3, 2}, dtype);
  d.stage("grouped_gemm", OpClass::matmul, {a, w}, d.tensor("C", {0, 1, 2}, dtype), {0, 1, 2, 3},
          {1, 0, 0, 0});
  d.op.group_rows = rows_per_group;
  return std::move(d.op);
}

Operator make_decode_attention(std::string name, int64_t batch_heads, int64_t group,
                               int64_t context, int64_t splits, int64_t head_dim, DataType dtype) {
  if (splits <= 0 || context % splits != 0)
    throw std::invalid_argument("decode_attention: the context must be a multiple of splits");
  // dims B=0 H=1 S=2 L=3 D=4. Each split scores its L = context / S keys, takes their softmax
  // (max, subtract, exp, sum) and its partial output; the reduction rescales each split's
  // partial by its share of the total and sums over S (a multiply and an add per element; the
  // exponentials of the rescaling come once per split, not per element).
  OperatorDraft d = draft(
      std::move(name), OperatorType::decode_attention,
      {{"B", batch_heads}, {"H", group}, {"S", splits}, {"L", context / splits}, {"D", head_dim}});
  const int q = d.tensor("Q", {0, 1, 4}, dtype), key = d.tensor("K", {0, 2, 3, 4}, dtype),
            v = d.tensor("V", {0, 2, 3, 4}, dtype);
  const int score = d.tensor("Sc", {0, 1, 2, 3}, kAttentionAccumulator);
  // L before S: the keys of a split are the score's N (what a GEMM template tiles), the splits
  // a batch of them.
  d.stage("score", OpClass::matmul, {q, key}, score, {0, 1, 3, 2, 4}, {1, 0, 0, 0});
  const int prob = d.tensor("P", {0, 1, 2, 3}, dtype);
  d.stage("softmax", OpClass::reduction, {score}, prob, {0, 1, 2, 3}, {4, 1, 0, 0});
  const int partial = d.tensor("Op", {0, 1, 2, 4}, kAttentionAccumulator);
  d.stage("context", OpClass::matmul, {prob, v}, partial, {0, 1, 2, 4, 3}, {1, 0, 0, 0});
  d.stage("combine", OpClass::reduction, {partial}, d.tensor("O", {0, 1, 4}, dtype), {0, 1, 4, 2},
          {2, 0, 0, 0});
  return std::move(d.op);
}

Operator make_prefill_attention(std::string name, int64_t batch_heads, int64_t group,
                                int64_t queries, int64_t keys, int64_t head_dim, DataType dtype) {
  // dims B=0 H=1 M=2 N=3 D=4. The online softmax keeps a running max and sum per query row and
  // rescales them with each block of keys: max, subtract, exp, sum and the rescale per score.
  OperatorDraft d =
      draft(std::move(name), OperatorType::prefill_attention,
            {{"B", batch_heads}, {"H", group}, {"M", queries}, {"N", keys}, {"D", head_dim}});
  const int q = d.tensor("Q", {0, 1, 2, 4}, dtype), key = d.tensor("K", {0, 3, 4}, dtype),
            v = d.tensor("V", {0, 3, 4}, dtype);
  const int score = d.tensor("Sc", {0, 1, 2, 3}, kAttentionAccumulator);
  d.stage("score", OpClass::matmul, {q, key}, score, {0, 1, 2, 3, 4}, {1, 0, 0, 0});
  const int prob = d.tensor("P", {0, 1, 2, 3}, dtype);
  d.stage("softmax", OpClass::reduction, {score}, prob, {0, 1, 2, 3}, {5, 1, 0, 0});
  d.stage("context", OpClass::matmul, {prob, v}, d.tensor("O", {0, 1, 2, 4}, dtype),
          {0, 1, 2, 4, 3}, {1, 0, 0, 0});
  return std::move(d.op);
}

}  // namespace ts
