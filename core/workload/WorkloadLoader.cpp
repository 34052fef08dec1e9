#include "workload/WorkloadLoader.hpp"

#include <map>

#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"
#include "workload/EinsumReader.hpp"
#include "workload/LlmOperatorReader.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLimits.hpp"

namespace ts {
namespace {

int64_t size_at(const YamlSource& src, const YAML::Node& op, std::string_view key,
                const std::string& label) {
  return src.positive_integer(src.require(op, key, label), key);
}

// {type: conv2d, N, C, M, H, W, R, S, stride, pad, dilation, groups}: N, stride, dilation and
// groups default to 1, pad to 0 (make_conv2d).
Operator read_conv2d(const YamlSource& src, const YAML::Node& node, const std::string& name,
                     DataType dtype, const std::string& label) {
  src.check_keys(node,
                 {"name", "type", "dtype", "count", "N", "C", "M", "H", "W", "R", "S", "stride",
                  "pad", "dilation", "groups"},
                 label);
  Conv2dSizes z;
  z.n = src.positive_integer_or(node, "N", 1);
  z.c = size_at(src, node, "C", label);
  z.m = size_at(src, node, "M", label);
  z.h = size_at(src, node, "H", label);
  z.w = size_at(src, node, "W", label);
  z.r = size_at(src, node, "R", label);
  z.s = size_at(src, node, "S", label);
  z.stride = src.positive_integer_or(node, "stride", 1);
  z.dilation = src.positive_integer_or(node, "dilation", 1);
  z.groups = src.positive_integer_or(node, "groups", 1);
  if (node["pad"].IsDefined()) {
    z.pad = src.integer(node["pad"], "pad");
    if (z.pad < 0) src.fail(node["pad"], "`pad` of " + label + " is below 0; expected 0 or more");
  }
  // Sizes this large only overflow the arithmetic below; no layer comes near them.
  for (const char* key : {"N", "C", "M", "H", "W", "R", "S", "stride", "dilation", "groups", "pad"})
    if (node[key].IsDefined() && src.integer(node[key], key) > 1'000'000'000)
      src.fail(node[key], "`" + std::string(key) + "` of " + label +
                              " is above 1e9; expected the size of a convolution layer");
  try {
    return make_conv2d(name, z, dtype);
  } catch (const std::invalid_argument& e) {
    src.fail(node, label + ": " + e.what());
  }
  return {};
}

Operator read_fused(const YamlSource& src, const YAML::Node& node, const std::string& name,
                    DataType dtype, const std::string& label) {
  src.check_keys(node, {"name", "type", "dtype", "count", "steps", "rows", "cols"}, label);
  YAML::Node steps = src.require(node, "steps", label);
  src.expect_sequence(steps, "`steps`");
  if (steps.size() == 0)
    src.fail(steps, "`steps` is empty; expected e.g. `steps: [add, layernorm]`");
  std::vector<std::string> names;
  for (const auto& s : steps) {
    std::string step = src.text(s, "steps");
    if (!is_vector_step(step))
      src.fail(s, "unknown step '" + step + "' in " + label +
                      " (known: " + join_names(vector_steps()) + ")");
    names.push_back(step);
  }
  return make_fused_chain(name, names, size_at(src, node, "rows", label),
                          size_at(src, node, "cols", label), dtype);
}

// The node that wrote dimension d of `op`: an entry of `dims:` (einsum), `M`, `N`, `K`, `B` (a
// GEMM) or `rows`, `cols` (a vector operator or a fused chain, whose dimensions are R and C).
YAML::Node dim_node(const YAML::Node& node, const Operator& op, size_t d) {
  const std::string& name = op.dims[d].name;
  if (const YAML::Node dims = node["dims"]; dims.IsDefined() && dims.IsMap()) return dims[name];
  if (op.type == OperatorType::conv2d) {
    if (name == "P") return node["H"];
    if (name == "Q") return node["W"];
    if (name == "G") return node["groups"];
    return node[name].IsDefined() ? node[name] : node;
  }
  if (op.type != OperatorType::gemm && op.type != OperatorType::batched_gemm) {
    if (name == "R") return node["rows"];
    if (name == "C") return node["cols"];
  }
  // The LLM operators' dimensions under the keys that size them (LlmOperators.hpp).
  static const std::pair<const char*, const char*> kLlmKeys[] = {
      {"T", "tokens"}, {"H", "heads"},   {"D", "head_dim"},    {"KG", "K"},    {"KI", "group"},
      {"S", "splits"}, {"L", "context"}, {"B", "batch_heads"}, {"H", "group"}, {"M", "queries"},
      {"N", "keys"},   {"B", "tokens"},  {"M", "tokens"}};
  for (const auto& [dim, key] : kLlmKeys)
    if (name == dim && node[key].IsDefined()) return node[key];
  return node[name];
}

// The sizes of workload/WorkloadLimits.hpp (the one rule every writer of workloads checks too),
// each error at the size's node in the file.
void check_sizes(const YamlSource& src, const YAML::Node& node, const Operator& op,
                 const std::string& label) {
  check_operator_sizes(
      op, [&](size_t d) { return src.where(dim_node(node, op, d)); }, src.where(node), label);
}

Operator read_operator(const YamlSource& src, const YAML::Node& node, DataType default_dtype) {
  src.expect_map(node, "an operator");
  YAML::Node name_node = src.require(node, "name", "an operator");
  std::string name = src.text(name_node, "name");
  std::string label = "operator '" + name + "'";
  YAML::Node type_node = src.require(node, "type", label);
  const std::string type_name = src.text(type_node, "type");
  const std::optional<OperatorType> type = parse_operator_type(type_name);
  if (!type)
    src.fail(type_node, "unknown operator type '" + type_name +
                            "' (known: " + join_names(operator_type_names()) + ")");
  DataType dtype = node["dtype"].IsDefined() ? data_type_at(src, node["dtype"]) : default_dtype;

  Operator op;
  // `out_dtype`: the type of C when it differs from the operands' (int8 x int8 -> int32).
  const DataType out_dtype =
      node["out_dtype"].IsDefined() ? data_type_at(src, node["out_dtype"]) : dtype;
  if (*type == OperatorType::gemm) {
    src.check_keys(node, {"name", "type", "dtype", "out_dtype", "count", "M", "N", "K"}, label);
    op = make_gemm(name, size_at(src, node, "M", label), size_at(src, node, "N", label),
                   size_at(src, node, "K", label), dtype, out_dtype);
  } else if (*type == OperatorType::batched_gemm) {
    src.check_keys(node, {"name", "type", "dtype", "out_dtype", "count", "B", "M", "N", "K"},
                   label);
    op = make_batched_gemm(name, size_at(src, node, "B", label), size_at(src, node, "M", label),
                           size_at(src, node, "N", label), size_at(src, node, "K", label), dtype,
                           out_dtype);
  } else if (*type == OperatorType::linear) {
    // torch.nn.Linear on M rows: C = A[M,K] x W[K,N], then + bias[N] (make_linear).
    src.check_keys(node, {"name", "type", "dtype", "count", "M", "N", "K"}, label);
    op = make_linear(name, size_at(src, node, "M", label), size_at(src, node, "N", label),
                     size_at(src, node, "K", label), dtype);
  } else if (is_llm_operator(*type)) {
    op = read_llm_operator(src, node, name, *type, dtype, label);
  } else if (is_vector_step(*type)) {
    src.check_keys(node, {"name", "type", "dtype", "count", "rows", "cols"}, label);
    op = make_vector_op(name, type_name, size_at(src, node, "rows", label),
                        size_at(src, node, "cols", label), dtype);
  } else if (*type == OperatorType::fused) {
    op = read_fused(src, node, name, dtype, label);
  } else if (*type == OperatorType::conv2d) {
    op = read_conv2d(src, node, name, dtype, label);
  } else {
    op = read_einsum(src, node, name, dtype);
  }
  op.where = src.where(node);
  op.count = src.positive_integer_or(node, "count", 1);
  check_sizes(src, node, op, label);
  return op;
}

Workload read_workload(const YamlSource& src) {
  src.check_header("workload");
  const YAML::Node& root = src.root();
  src.check_keys(
      root, {"version", "kind", "name", "description", "batch", "seq_len", "dtype", "operators"},
      "a workload");
  Workload w;
  w.source_file = src.file();
  w.name = src.text_or(root, "name", file_stem(src.file()));
  w.description = src.text_or(root, "description", "");
  w.batch = src.positive_integer_or(root, "batch", 0);
  w.seq_len = src.positive_integer_or(root, "seq_len", 0);
  DataType dtype = root["dtype"].IsDefined() ? data_type_at(src, root["dtype"]) : DataType::fp16;

  YAML::Node ops = src.require(root, "operators", "a workload");
  src.expect_sequence(ops, "`operators`");
  if (ops.size() == 0) src.fail(ops, "`operators` is empty; expected at least one operator");
  if (ops.size() > kWorkloadOperatorLimit)
    src.fail(ops[kWorkloadOperatorLimit],
             "more than " + std::to_string(kWorkloadOperatorLimit) +
                 " operators; expected at most that many in one workload (split it)");
  std::map<std::string, int> lines;  // operator name -> line of its first use
  for (const auto& node : ops) {
    Operator op = read_operator(src, node, dtype);
    auto [it, fresh] = lines.emplace(op.name, op.where.line);
    if (!fresh)
      src.fail(node["name"], "duplicate operator name '" + op.name + "' (first at line " +
                                 std::to_string(it->second) + ")");
    w.operators.push_back(std::move(op));
  }
  return w;
}

}  // namespace

Workload parse_workload(const std::string& text, const std::string& file_name) {
  return read_workload(YamlSource::parse(text, file_name));
}

Workload load_workload(const std::string& path) { return load_workload(path, {}); }

Workload load_workload(const std::string& path, const LlmPassOverride& pass) {
  const YamlSource src = YamlSource::load(path);
  if (src.root().IsMap() && src.root()["kind"].IsScalar() &&
      src.root()["kind"].Scalar() == "llm-model")
    return read_llm_model(src, pass);
  if (pass.any())
    throw InputError(SourceLocation{path, 1, 1},
                     "--batch, --context, --tokens and --phase size a `kind: llm-model` file; "
                     "this is a `kind: workload`, which lists its operators' sizes");
  return read_workload(src);
}

}  // namespace ts
