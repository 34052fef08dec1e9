#include "training/TransformerModel.hpp"

#include <array>

#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"

namespace ts {

std::string_view to_string(ModelFamily family) {
  switch (family) {
    case ModelFamily::gpt:
      return "gpt";
    case ModelFamily::llama:
      return "llama";
    case ModelFamily::bert:
      return "bert";
    case ModelFamily::t5:
      return "t5";
    case ModelFamily::graph:
      return "graph";
  }
  return "gpt";
}

double TransformerModel::expert_parameters_per_layer() const {
  if (experts <= 1) return 0;
  const double h = static_cast<double>(hidden), f = static_cast<double>(ffn);
  const double mlp = family == ModelFamily::llama ? 3 * h * f : 2 * h * f + f + h;
  return mlp * static_cast<double>(experts);
}

double TransformerModel::parameters() const {
  if (is_graph()) return static_cast<double>(layers) * block.parameters();
  const double h = static_cast<double>(hidden), f = static_cast<double>(ffn);
  const bool biases = family != ModelFamily::llama;
  // Attention: Q, K, V and the output projection, h x h each, with biases.
  double attention = 4 * h * h + (biases ? 4 * h : 0);
  // MLP per expert: up and down (h x ffn each, biases ffn and h), or SwiGLU's gate, up, down.
  double mlp = family == ModelFamily::llama ? 3 * h * f : 2 * h * f + f + h;
  mlp *= static_cast<double>(experts);
  if (experts > 1) mlp += h * static_cast<double>(experts);  // the router
  // Two layernorms (scale and shift; RMSNorm has a scale only).
  const double norms = family == ModelFamily::llama ? 2 * h : 4 * h;
  double per_layer = attention + mlp + norms;
  double total = static_cast<double>(layers) * per_layer;
  if (family == ModelFamily::t5) {
    // Half the layers are decoder layers, each with a cross-attention block and its norm.
    total += static_cast<double>(layers / 2) * (attention + 2 * h);
  }
  total += static_cast<double>(vocab) * h;  // embedding, tied with the output layer
  if (family == ModelFamily::llama) total += static_cast<double>(vocab) * h;  // untied output
  if (family == ModelFamily::gpt || family == ModelFamily::bert)
    total += static_cast<double>(seq_len) * h;        // learned positions
  total += family == ModelFamily::llama ? h : 2 * h;  // final norm
  return total;
}

namespace {

ModelFamily family_at(const YamlSource& src, const YAML::Node& node) {
  const std::string text = src.text(node, "family");
  constexpr std::array<ModelFamily, 4> all{ModelFamily::gpt, ModelFamily::llama, ModelFamily::bert,
                                           ModelFamily::t5};
  for (ModelFamily f : all)
    if (text == to_string(f)) return f;
  src.fail(node, "unknown family '" + text + "'; expected gpt, llama, bert, t5 or graph");
}

// What every model file has: its name and where it was written, its layers and hidden size.
TransformerModel read_common(const YamlSource& src, std::string_view what) {
  const YAML::Node& root = src.root();
  TransformerModel m;
  m.file = src.file();
  m.where = src.where(root);
  m.name = src.text_or(root, "name", file_stem(src.file()));
  m.layers = src.positive_integer(src.require(root, "layers", what), "layers");
  m.layers_where = src.where(root["layers"]);
  m.hidden = src.positive_integer(src.require(root, "hidden", what), "hidden");
  m.hidden_where = src.where(root["hidden"]);
  return m;
}

// `family: graph`: the sizes that pass between layers and the block of one layer.
TransformerModel read_graph_model(const YamlSource& src) {
  const YAML::Node& root = src.root();
  src.check_keys(root,
                 {"version", "kind", "name", "description", "family", "layers", "hidden", "seq_len",
                  "block", "parameters_per_layer"},
                 "a graph model");
  TransformerModel m = read_common(src, "a graph model");
  m.family = ModelFamily::graph;
  m.seq_len = src.positive_integer(src.require(root, "seq_len", "a graph model"), "seq_len");
  m.seq_len_where = src.where(root["seq_len"]);
  m.block = read_graph_block(src, root, m.seq_len, m.hidden);
  return m;
}

TransformerModel read_model(const YamlSource& src) {
  src.check_header("model");
  const YAML::Node& root = src.root();
  if (const YAML::Node f = root["family"]; f.IsDefined() && f.IsScalar() && f.Scalar() == "graph")
    return read_graph_model(src);
  src.check_keys(root,
                 {"version", "kind", "name", "description", "family", "layers", "hidden", "heads",
                  "ffn", "vocab", "seq_len", "experts", "top_k"},
                 "a model");
  const ModelFamily family = family_at(src, src.require(root, "family", "a model"));
  TransformerModel m = read_common(src, "a model");
  m.family = family;
  auto size = [&](std::string_view key) {
    return src.positive_integer(src.require(root, key, "a model"), key);
  };
  m.heads = size("heads");
  m.heads_where = src.where(root["heads"]);
  m.ffn = size("ffn");
  m.ffn_where = src.where(root["ffn"]);
  m.vocab = size("vocab");
  m.vocab_where = src.where(root["vocab"]);
  m.seq_len = size("seq_len");
  m.seq_len_where = src.where(root["seq_len"]);
  m.experts = src.positive_integer_or(root, "experts", 1);
  m.top_k = src.positive_integer_or(root, "top_k", 1);
  // LayerOperators forms these products of the sizes (with the micro-batch; check_strategy_fits
  // bounds those): each fits in 64 bits, and those that become an operator's dimension are at
  // most kLargestDimensionSize, or the file is refused at the size that breaks the bound.
  auto at = [&](int64_t value, std::string_view key) {
    return CountAt{value, src.where(root[std::string(key)])};
  };
  checked_dimension_size({{3, m.where}, at(m.hidden, "hidden")},
                         "3 x hidden (the fused QKV projection)");
  checked_dimension_size({{2, m.where}, at(m.ffn, "ffn")}, "2 x ffn (the gate and up projections)");
  checked_dimension_size({at(m.vocab, "vocab")}, "vocab (the logits' N)");
  checked_product({at(m.seq_len, "seq_len"), at(m.hidden, "hidden"), {2, m.where}},
                  "seq_len x hidden x 2 bytes (one sample's activations)");
  if (root["top_k"].IsDefined())
    checked_dimension_size({at(m.seq_len, "seq_len"), at(m.top_k, "top_k")},
                           "seq_len x top_k (one sample's tokens routed to experts)");
  if (m.hidden % m.heads != 0)
    src.fail(root["heads"], "`heads` " + std::to_string(m.heads) + " does not divide `hidden` " +
                                std::to_string(m.hidden));
  if (m.top_k > m.experts)
    src.fail(root["top_k"], "`top_k` " + std::to_string(m.top_k) + " is more than the " +
                                std::to_string(m.experts) + " experts");
  if (m.family == ModelFamily::t5 && m.layers % 2 != 0)
    src.fail(root["layers"], "a t5 model has as many decoder layers as encoder layers: `layers` " +
                                 std::to_string(m.layers) + " is odd");
  return m;
}

}  // namespace

TransformerModel parse_transformer_model(const std::string& text, const std::string& file_name) {
  return read_model(YamlSource::parse(text, file_name));
}

TransformerModel load_transformer_model(const std::string& path) {
  return read_model(YamlSource::load(path));
}

}  // namespace ts
