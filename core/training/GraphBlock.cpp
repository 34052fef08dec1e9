#include "training/GraphBlock.hpp"

#include <fmt/format.h>

#include <cctype>
#include <map>

#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"
#include "workload/EinsumReader.hpp"
#include "workload/OperatorBuilders.hpp"

namespace ts {

std::string_view to_string(TensorSplit split) {
  switch (split) {
    case TensorSplit::none:
      return "none";
    case TensorSplit::column:
      return "column";
    case TensorSplit::row:
      return "row";
    case TensorSplit::batch:
      return "batch";
  }
  return "none";
}

int64_t BlockSize::at(int64_t samples) const {
  int64_t v = coefficient;
  for (int k = 0; k < samples_power; ++k) v *= samples;
  return v;
}

std::string BlockOperator::split_dimension() const {
  switch (split) {
    case TensorSplit::none:
      return "";
    case TensorSplit::column:
      return is_matmul() ? "N" : "cols";
    case TensorSplit::row:
      return "K";
    case TensorSplit::batch:
      return is_matmul() ? "B" : "rows";
  }
  return "";
}

int64_t BlockOperator::size(std::string_view dimension, int64_t samples) const {
  for (const auto& [name, size] : sizes)
    if (name == dimension) return size.at(samples);
  return 1;
}

double BlockOperator::weight_parameters() const {
  if (type != OperatorType::gemm) return 0;
  return static_cast<double>(size("K", 1)) * static_cast<double>(size("N", 1));
}

Operator BlockOperator::on_rank(int64_t samples, int64_t tp) const {
  const std::string split_dim = split_dimension();
  auto dim = [&](std::string_view d) {
    const int64_t whole = size(d, samples);
    if (d != split_dim || tp == 1) return whole;
    if (whole % tp != 0)
      throw InputError(where, fmt::format("operator '{}' splits {} = {} over {} tensor-parallel "
                                          "ranks, which do not divide it",
                                          name, d, whole, tp));
    return whole / tp;
  };
  Operator op;
  if (type == OperatorType::gemm)
    op = make_gemm(name, dim("M"), dim("N"), dim("K"), dtype);
  else if (type == OperatorType::batched_gemm)
    op = make_batched_gemm(name, dim("B"), dim("M"), dim("N"), dim("K"), dtype);
  else if (type == OperatorType::fused)
    op = make_fused_chain(name, steps, dim("rows"), dim("cols"), dtype);
  else
    op = make_vector_op(name, to_string(type), dim("rows"), dim("cols"), dtype);
  // Its sizes are written at its entry, but the micro-batch (`samples`) and the shards come from
  // the strategy: a message about its size says them.
  op.where = where;
  op.sized_by = fmt::format("of a layer at micro-batch {} on {} tensor-parallel shard{}", samples,
                            tp, tp == 1 ? "" : "s");
  return op;
}

double GraphBlock::parameters() const {
  double total = extra_parameters;
  for (const BlockOperator& op : operators) total += op.weight_parameters();
  return total;
}

double GraphBlock::parameters_per_rank(int64_t tp) const {
  double total = extra_parameters;
  for (const BlockOperator& op : operators) {
    const bool split = op.split == TensorSplit::column || op.split == TensorSplit::row;
    total += op.weight_parameters() / (split ? static_cast<double>(tp) : 1.0);
  }
  return total;
}

std::vector<Operator> GraphBlock::forward_operators(int64_t samples, int64_t tp) const {
  std::vector<Operator> ops;
  ops.reserve(operators.size());
  for (const BlockOperator& op : operators) ops.push_back(op.on_rank(samples, tp));
  return ops;
}

const BlockOperator* GraphBlock::find(std::string_view name) const {
  for (const BlockOperator& op : operators)
    if (op.name == name) return &op;
  return nullptr;
}

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// `768`, `tokens`, `samples*hidden`, `3*hidden`: a product of positive integers and symbols.
BlockSize size_at(const YamlSource& src, const YAML::Node& node, std::string_view key,
                  const std::string& label, int64_t seq_len, int64_t hidden) {
  const std::string text = src.text(node, key);
  if (all_digits(trim(text))) return {src.positive_integer(node, key), 0};
  BlockSize size;
  // The coefficient is a product of what is written: it fits in 64 bits or the size is refused.
  std::string written;
  const SourceLocation where = src.where(node);
  auto multiply = [&](int64_t factor) {
    multiply_checked(size.coefficient, written, {factor, where},
                     fmt::format("`{}` of {}:", key, label));
  };
  size_t at = 0;
  while (at <= text.size()) {
    size_t star = text.find('*', at);
    if (star == std::string::npos) star = text.size();
    const std::string factor = trim(text.substr(at, star - at));
    if (all_digits(factor) && factor.size() < 18 && std::stoll(factor) > 0) {
      multiply(std::stoll(factor));
    } else if (factor == "samples") {
      ++size.samples_power;
    } else if (factor == "tokens") {
      ++size.samples_power;
      multiply(seq_len);
    } else if (factor == "seq_len") {
      multiply(seq_len);
    } else if (factor == "hidden") {
      multiply(hidden);
    } else {
      src.fail(node, fmt::format("unknown symbol '{}' in `{}` of {}; a size is a positive integer "
                                 "or a product such as `samples*768` of integers and tokens "
                                 "(micro-batch x seq_len), samples (micro-batch), seq_len, hidden",
                                 factor, key, label));
    }
    at = star + 1;
  }
  return size;
}

TensorSplit split_at(const YamlSource& src, const YAML::Node& node, OperatorType type,
                     const std::string& label) {
  const std::string text = src.text(node, "split");
  const bool matmul = is_gemm(type);
  if (text == "none") return TensorSplit::none;
  if (text == "column") return TensorSplit::column;
  if (text == "row") {
    if (!matmul)
      src.fail(node, fmt::format("`split: row` divides a GEMM's K, which {} does not have; a "
                                 "vector operator splits by column (its cols) or batch (its rows)",
                                 label));
    return TensorSplit::row;
  }
  if (text == "batch") {
    if (type == OperatorType::gemm)
      src.fail(node, fmt::format("`split: batch` divides a batched GEMM's B, which {} does not "
                                 "have; a gemm splits by column (N) or row (K)",
                                 label));
    return TensorSplit::batch;
  }
  src.fail(node, "unknown split '" + text +
                     "'; expected column (N or cols / tp), row (K / tp, output all-reduced), "
                     "batch (B or rows / tp) or none (replicated)");
}

BlockOperator read_block_operator(const YamlSource& src, const YAML::Node& node, int64_t seq_len,
                                  int64_t hidden) {
  src.expect_map(node, "a block operator");
  BlockOperator op;
  op.where = src.where(node);
  op.name = src.text(src.require(node, "name", "a block operator"), "name");
  const std::string label = "operator '" + op.name + "'";
  const YAML::Node type_node = src.require(node, "type", label);
  const std::string type_name = src.text(type_node, "type");
  op.type = parse_operator_type(type_name).value_or(OperatorType::einsum);  // einsum: refused below
  std::vector<std::string_view> dims;
  if (op.type == OperatorType::gemm) {
    src.check_keys(node, {"name", "type", "dtype", "split", "recompute", "M", "N", "K"}, label);
    dims = {"M", "N", "K"};
  } else if (op.type == OperatorType::batched_gemm) {
    src.check_keys(node, {"name", "type", "dtype", "split", "recompute", "B", "M", "N", "K"},
                   label);
    dims = {"B", "M", "N", "K"};
  } else if (op.type == OperatorType::fused) {
    src.check_keys(node, {"name", "type", "dtype", "split", "recompute", "steps", "rows", "cols"},
                   label);
    dims = {"rows", "cols"};
    const YAML::Node steps = src.require(node, "steps", label);
    src.expect_sequence(steps, "`steps`");
    if (steps.size() == 0) src.fail(steps, "`steps` is empty; expected e.g. `steps: [bias, gelu]`");
    for (const YAML::Node& s : steps) {
      const std::string step = src.text(s, "steps");
      if (!is_vector_step(step))
        src.fail(s, "unknown step '" + step + "' in " + label +
                        " (known: " + join_names(vector_steps()) + ")");
      op.steps.push_back(step);
    }
  } else if (is_vector_step(op.type)) {
    src.check_keys(node, {"name", "type", "dtype", "split", "recompute", "rows", "cols"}, label);
    dims = {"rows", "cols"};
  } else {
    std::vector<std::string> known{"gemm", "batched_gemm", "fused"};
    for (const std::string& s : vector_steps()) known.push_back(s);
    src.fail(type_node, "unknown operator type '" + type_name +
                            "' in a block (known: " + join_names(known) + ")");
  }
  if (node["dtype"].IsDefined()) op.dtype = data_type_at(src, node["dtype"]);
  for (std::string_view d : dims) {
    const YAML::Node n = src.require(node, d, label);
    op.sizes.emplace_back(std::string(d), size_at(src, n, d, label, seq_len, hidden));
    // A gemm's K x N is a weight, the same for every micro-batch.
    if (op.type == OperatorType::gemm && (d == "K" || d == "N") &&
        op.sizes.back().second.samples_power > 0)
      src.fail(n, fmt::format("`{}` of {} scales with the micro-batch, but a gemm's K x N is its "
                              "weight; put samples and tokens in M (or use batched_gemm for a "
                              "product of two activations)",
                              d, label));
  }
  if (node["split"].IsDefined()) op.split = split_at(src, node["split"], op.type, label);
  if (const YAML::Node r = node["recompute"]; r.IsDefined()) {
    const std::string text = src.text(r, "recompute");
    if (text != "selective" && text != "none")
      src.fail(r, "unknown recompute '" + text + "' of " + label +
                      "; expected selective (selective recomputation recomputes it) or none");
    op.recompute_selective = text == "selective";
  }
  return op;
}

}  // namespace

GraphBlock read_graph_block(const YamlSource& src, const YAML::Node& root, int64_t seq_len,
                            int64_t hidden) {
  GraphBlock block;
  const YAML::Node list = src.require(root, "block", "a graph model");
  src.expect_sequence(list, "`block`");
  if (list.size() == 0)
    src.fail(list,
             "`block` is empty; expected the operators of one layer, e.g. "
             "`- {name: up, type: gemm, M: tokens, N: 3072, K: 768, split: column}`");
  std::map<std::string, int> lines;  // operator name -> line of its first use
  for (const YAML::Node& node : list) {
    BlockOperator op = read_block_operator(src, node, seq_len, hidden);
    auto [it, fresh] = lines.emplace(op.name, op.where.line);
    if (!fresh)
      src.fail(node["name"], "duplicate operator name '" + op.name + "' (first at line " +
                                 std::to_string(it->second) + ")");
    block.operators.push_back(std::move(op));
  }
  if (const YAML::Node extra = root["parameters_per_layer"]; extra.IsDefined()) {
    const int64_t n = src.integer(extra, "parameters_per_layer");
    if (n < 0) src.fail(extra, fmt::format("`parameters_per_layer` is a count, got {}", n));
    block.extra_parameters = static_cast<double>(n);
  }
  return block;
}

}  // namespace ts
