#include "workload/LlmModelReader.hpp"

#include <cmath>

#include "workload/EinsumReader.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts {
namespace {

// The hyper-parameter keys; the pass keys; the two together are every key a file may have.
#define TS_LLM_MODEL_KEYS                                                                   \
  "family", "hidden", "heads", "kv_heads", "head_dim", "ffn", "layers", "vocab", "experts", \
      "top_k", "expert_load", "dtype", "weights", "group"

// Reads the hyper-parameters present in `root` over `m` (a file's own keys override those of
// the model it names).
void read_hyper_parameters(const YamlSource& src, const YAML::Node& root, LlmModel& m) {
  auto size = [&](std::string_view key, int64_t& out) {
    if (const YAML::Node v = root[std::string(key)]; v.IsDefined())
      out = src.positive_integer(v, key);
  };
  if (const YAML::Node f = root["family"]; f.IsDefined()) {
    const std::string family = src.text(f, "family");
    if (family != "decoder" && family != "dit")
      src.fail(f, "unknown family '" + family + "'; expected decoder or dit");
    m.family = family == "dit" ? LlmFamily::dit : LlmFamily::decoder;
  }
  size("hidden", m.hidden);
  size("heads", m.heads);
  size("kv_heads", m.kv_heads);
  size("head_dim", m.head_dim);
  size("ffn", m.ffn);
  size("layers", m.layers);
  size("experts", m.experts);
  size("top_k", m.top_k);
  size("group", m.group);
  if (root["vocab"].IsDefined()) m.vocab = src.integer(root["vocab"], "vocab");
  if (root["dtype"].IsDefined()) m.weights = m.dtype = data_type_at(src, root["dtype"]);
  if (root["weights"].IsDefined()) m.weights = data_type_at(src, root["weights"]);
  if (const YAML::Node load = root["expert_load"]; load.IsDefined()) {
    src.expect_sequence(load, "`expert_load`");
    m.expert_load.clear();
    double sum = 0;
    for (const YAML::Node& f : load) {
      const double share = src.number(f, "expert_load");
      if (share < 0) src.fail(f, "a share of " + describe(f) + "; expected a fraction >= 0");
      m.expert_load.push_back(share);
      sum += share;
    }
    if (std::abs(sum - 1.0) > 1e-6)
      src.fail(load, "`expert_load` sums to " + std::to_string(sum) +
                         "; expected fractions of the routed tokens that sum to 1");
  }
}

void check_model(const YamlSource& src, const YAML::Node& root, const LlmModel& m) {
  const std::pair<const char*, int64_t> required[] = {
      {"hidden", m.hidden}, {"heads", m.heads}, {"ffn", m.ffn}, {"layers", m.layers}};
  for (const auto& [key, value] : required)
    if (value == 0)
      src.fail(root, std::string("an llm-model without `") + key +
                         "`; expected it here or in the file named by `model`");
  auto at = [&](const char* key) { return root[key].IsDefined() ? root[key] : root; };
  if (m.heads % m.kv_heads != 0)
    src.fail(at("kv_heads"), "`kv_heads` " + std::to_string(m.kv_heads) +
                                 " does not divide `heads` " + std::to_string(m.heads) +
                                 "; expected query heads in equal groups per KV head");
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    src.fail(at("heads"), "`heads` does not divide `hidden`; give `head_dim`");
  if (m.top_k > m.experts)
    src.fail(at("top_k"), "`top_k` " + std::to_string(m.top_k) + " is more than the " +
                              std::to_string(m.experts) + " experts");
  if (!m.expert_load.empty() && static_cast<int64_t>(m.expert_load.size()) != m.experts)
    src.fail(at("expert_load"), "`expert_load` lists " + std::to_string(m.expert_load.size()) +
                                    " shares; expected one per expert (" +
                                    std::to_string(m.experts) + ")");
  if (m.weights == DataType::int4 && (m.hidden % m.group != 0 || m.ffn % m.group != 0))
    src.fail(at("group"), "`group` " + std::to_string(m.group) +
                              " does not divide hidden and ffn; expected a group size that "
                              "divides every K of the quantized GEMMs");
  if (m.vocab < 0) src.fail(at("vocab"), "`vocab` is negative; expected 0 (no LM head) or more");
}

}  // namespace

LlmModel read_llm_hyper_parameters(const YamlSource& src) {
  src.check_header("llm-model");
  src.check_keys(src.root(), {"version", "kind", "name", "description", TS_LLM_MODEL_KEYS},
                 "a model file (hyper-parameters only; a pass names it with `model:`)");
  LlmModel m;
  read_hyper_parameters(src, src.root(), m);
  m.name = src.text_or(src.root(), "name", file_stem(src.file()));
  if (m.kv_heads == 0) m.kv_heads = m.heads;
  check_model(src, src.root(), m);
  return m;
}

Workload read_llm_model(const YamlSource& src, const LlmPassOverride& o) {
  src.check_header("llm-model");
  const YAML::Node& root = src.root();
  src.check_keys(root,
                 {"version", "kind", "name", "description", "model", TS_LLM_MODEL_KEYS, "phase",
                  "batch", "context", "tokens", "kv_splits"},
                 "an llm-model");
  LlmModel m;
  if (const YAML::Node base = root["model"]; base.IsDefined()) {
    const YamlSource model = YamlSource::load(src.existing_path(base, "model"));
    model.check_header("llm-model");
    model.check_keys(model.root(), {"version", "kind", "name", "description", TS_LLM_MODEL_KEYS},
                     "a model named by `model` (hyper-parameters only)");
    read_hyper_parameters(model, model.root(), m);
    m.name = model.text_or(model.root(), "name", file_stem(model.file()));
    m.description = model.text_or(model.root(), "description", "");
  }
  read_hyper_parameters(src, root, m);
  m.name = src.text_or(root, "name", m.name.empty() ? file_stem(src.file()) : m.name);
  m.description = src.text_or(root, "description", m.description);
  if (m.kv_heads == 0) m.kv_heads = m.heads;  // multi-head attention: a KV head per query head
  check_model(src, root, m);

  LlmPass pass;
  const YAML::Node phase = src.require(root, "phase", "an llm-model");
  const std::string phase_name = src.text(phase, "phase");
  if (phase_name != "decode" && phase_name != "prefill")
    src.fail(phase, "unknown phase '" + phase_name + "'; expected decode or prefill");
  pass.phase = o.phase.value_or(phase_name == "decode" ? LlmPhase::decode : LlmPhase::prefill);
  pass.batch = o.batch.value_or(src.positive_integer_or(root, "batch", 1));
  pass.context = o.context.value_or(src.positive_integer_or(root, "context", 0));
  pass.tokens = o.tokens.value_or(src.positive_integer_or(root, "tokens", 0));
  pass.kv_splits = src.positive_integer_or(root, "kv_splits", 0);
  if (pass.phase == LlmPhase::decode && pass.context == 0)
    src.fail(phase,
             "a decode pass without `context`; expected the cached tokens per sequence "
             "(`context: 4096`, or --context)");
  if (pass.phase == LlmPhase::prefill && pass.tokens == 0)
    src.fail(phase,
             "a prefill pass without `tokens`; expected the tokens per sequence "
             "(`tokens: 2048`, or --tokens)");
  if (m.family == LlmFamily::dit && pass.phase != LlmPhase::prefill)
    src.fail(phase, "a dit model runs `phase: prefill` (a denoising step over every token)");
  if (pass.kv_splits > 0 && pass.context % pass.kv_splits != 0)
    src.fail(root["kv_splits"], "`kv_splits` does not divide the context " +
                                    std::to_string(pass.context) +
                                    "; expected chunks of equal length");
  Workload w = build_llm_workload(m, pass);
  w.source_file = src.file();
  // Errors about a built operator point at the file's pass and say what sized it.
  for (Operator& op : w.operators) {
    op.where = src.where(phase);
    op.sized_by =
        "of model '" + m.name + "', " + w.phase + " at batch " + std::to_string(pass.batch);
  }
  return w;
}

}  // namespace ts
