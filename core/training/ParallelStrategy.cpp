#include "training/ParallelStrategy.hpp"

#include <fmt/format.h>

#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"

namespace ts {

std::string_view to_string(PipelineSchedule s) {
  switch (s) {
    case PipelineSchedule::gpipe:
      return "gpipe";
    case PipelineSchedule::one_f_one_b:
      return "1f1b";
    case PipelineSchedule::interleaved:
      return "interleaved";
  }
  return "1f1b";
}

namespace {

Located<int64_t> degree_at(const YamlSource& src, const YAML::Node& map, std::string_view key,
                           int64_t fallback) {
  if (!map.IsDefined() || !map[std::string(key)].IsDefined()) return {fallback, src.where(map)};
  const YAML::Node n = map[std::string(key)];
  return {src.positive_integer(n, key), src.where(n)};
}

YAML::Node section(const YamlSource& src, const YAML::Node& root, std::string_view key,
                   std::initializer_list<std::string_view> allowed) {
  YAML::Node n = root[std::string(key)];
  if (!n.IsDefined()) return n;
  src.expect_map(n, "`" + std::string(key) + "`");
  src.check_keys(n, allowed, "`" + std::string(key) + "`");
  return n;
}

Recompute recompute_at(const YamlSource& src, const YAML::Node& n) {
  const std::string text = src.text(n, "recompute");
  if (text == "none") return Recompute::none;
  if (text == "selective") return Recompute::selective;
  if (text == "full") return Recompute::full;
  src.fail(n, "unknown recompute '" + text + "'; expected none, selective or full");
  return Recompute::none;
}

CountAt count_at(const Located<int64_t>& degree) { return {degree.value, degree.where}; }

// The products the simulator forms from the degrees (gpus(), stages, micro_batches(), the expert
// groups of TrainingSimulation) fit in 64 bits, or the file is refused at the degree that makes
// one overflow: a wrapped product is a negative GPU count that nothing else would catch.
void check_products(const ParallelStrategy& s) {
  checked_product({count_at(s.dp), count_at(s.tp), count_at(s.pp)},
                  "data_parallel.degree x tensor_parallel.degree x pipeline_parallel.degree");
  checked_product({count_at(s.pp), count_at(s.chunks)}, "pipeline_parallel.degree x chunks");
  checked_product({count_at(s.micro_batch), count_at(s.dp)}, "batch.micro x data_parallel.degree");
  checked_product({count_at(s.tp), count_at(s.ep)},
                  "tensor_parallel.degree x expert_parallel.degree");
}

ParallelStrategy read_strategy(const YamlSource& src) {
  src.check_header("strategy");
  const YAML::Node& root = src.root();
  src.check_keys(root,
                 {"version", "kind", "name", "description", "data_parallel", "tensor_parallel",
                  "pipeline_parallel", "expert_parallel", "batch", "recompute", "overrides",
                  "fusions", "framework"},
                 "a strategy");
  ParallelStrategy s;
  s.file = src.file();
  s.name = src.text_or(root, "name", file_stem(src.file()));

  const YAML::Node dp =
      section(src, root, "data_parallel", {"degree", "zero", "overlap_grad_reduce"});
  s.dp = degree_at(src, dp, "degree", 1);
  if (dp.IsDefined()) s.overlap_grad_reduce = src.boolean_or(dp, "overlap_grad_reduce", false);
  if (dp.IsDefined() && dp["zero"].IsDefined()) {
    const int64_t z = src.integer(dp["zero"], "zero");
    if (z < 0 || z > 3)
      src.fail(dp["zero"], fmt::format("`zero` is a ZeRO stage from 0 to 3, got {}", z));
    s.zero = {static_cast<int>(z), src.where(dp["zero"])};
  }
  const YAML::Node tp = section(src, root, "tensor_parallel", {"degree", "sequence_parallel"});
  s.tp = degree_at(src, tp, "degree", 1);
  if (tp.IsDefined()) s.sequence_parallel = src.boolean_or(tp, "sequence_parallel", false);

  const YAML::Node pp = section(src, root, "pipeline_parallel", {"degree", "schedule", "chunks"});
  s.pp = degree_at(src, pp, "degree", 1);
  s.chunks = degree_at(src, pp, "chunks", 1);
  if (pp.IsDefined() && pp["schedule"].IsDefined()) {
    const YAML::Node n = pp["schedule"];
    const std::string text = src.text(n, "schedule");
    if (text == "gpipe")
      s.schedule = {PipelineSchedule::gpipe, src.where(n)};
    else if (text == "1f1b")
      s.schedule = {PipelineSchedule::one_f_one_b, src.where(n)};
    else if (text == "interleaved")
      s.schedule = {PipelineSchedule::interleaved, src.where(n)};
    else
      src.fail(n, "unknown schedule '" + text + "'; expected gpipe, 1f1b or interleaved");
  }
  if (s.chunks.value > 1 && s.schedule.value != PipelineSchedule::interleaved)
    throw InputError(s.chunks.where,
                     fmt::format("`chunks` {} needs `schedule: interleaved`", s.chunks.value));

  const YAML::Node ep = section(src, root, "expert_parallel", {"degree"});
  s.ep = degree_at(src, ep, "degree", 1);

  const YAML::Node batch = src.require(root, "batch", "a strategy");
  src.expect_map(batch, "`batch`");
  src.check_keys(batch, {"global", "micro"}, "`batch`");
  s.global_batch = {src.positive_integer(src.require(batch, "global", "`batch`"), "global"),
                    src.where(batch["global"])};
  s.micro_batch = degree_at(src, batch, "micro", 1);

  check_products(s);
  if (root["recompute"].IsDefined()) s.recompute = recompute_at(src, root["recompute"]);
  if (const YAML::Node f = section(src, root, "fusions",
                                   {"masked_softmax", "bias_gelu", "bias_dropout_add",
                                    "gradient_accumulation", "fused_layernorm"});
      f.IsDefined()) {
    // Each key left out keeps Megatron-LM's default (MegatronFusions.hpp).
    s.fusions.masked_softmax = src.boolean_or(f, "masked_softmax", s.fusions.masked_softmax);
    s.fusions.bias_gelu = src.boolean_or(f, "bias_gelu", s.fusions.bias_gelu);
    s.fusions.bias_dropout_add = src.boolean_or(f, "bias_dropout_add", s.fusions.bias_dropout_add);
    s.fusions.gradient_accumulation =
        src.boolean_or(f, "gradient_accumulation", s.fusions.gradient_accumulation);
    s.fusions.fused_layernorm = src.boolean_or(f, "fused_layernorm", s.fusions.fused_layernorm);
  }
  if (const YAML::Node f = section(src, root, "framework", {"timers_synchronize"}); f.IsDefined())
    s.timers_synchronize = src.boolean_or(f, "timers_synchronize", s.timers_synchronize);
  if (const YAML::Node list = root["overrides"]; list.IsDefined()) {
    src.expect_sequence(list, "`overrides`");
    for (const YAML::Node& o : list) {
      src.expect_map(o, "an override");
      src.check_keys(o, {"part", "tensor_parallel", "count", "recompute"}, "an override");
      const YAML::Node part = src.require(o, "part", "an override");
      const std::string name = src.text(part, "part");
      if (name == "layers") {
        // {part: layers, count: N, recompute: full}: the first N layers of every chunk
        for (const char* key : {"tensor_parallel"})
          if (o[key].IsDefined())
            src.fail(o[key], std::string("an override of layers sets `count` and `recompute`, "
                                         "not `") +
                                 key + "`");
        const YAML::Node count = src.require(o, "count", "an override of layers");
        s.layers_override.count = {src.positive_integer(count, "count"), src.where(count)};
        s.layers_override.recompute =
            recompute_at(src, src.require(o, "recompute", "an override of layers"));
        continue;
      }
      if (name != "embedding")
        src.fail(part, "unknown part '" + name +
                           "' to override; expected embedding (the word embedding and the "
                           "output layer) or layers (the first layers of every pipeline chunk)");
      for (const char* key : {"count", "recompute"})
        if (o[key].IsDefined())
          src.fail(o[key],
                   std::string("an override of the embedding sets `tensor_parallel`, not `") + key +
                       "`");
      const YAML::Node otp = section(src, o, "tensor_parallel", {"degree"});
      if (!otp.IsDefined())
        src.fail(o, "an override of the embedding needs `tensor_parallel: {degree: N}`");
      s.embedding_tp = degree_at(src, otp, "degree", 1);
    }
  }
  return s;
}

// The sizes the model's operators take at the strategy's batch (LayerOperators, GraphBlock) fit
// in 64 bits; a model file alone is checked when it is read (TransformerModel).
void check_model_products(const ParallelStrategy& s, const TransformerModel& m) {
  const CountAt micro = count_at(s.micro_batch);
  if (!m.is_graph()) {
    checked_product({{m.seq_len, m.where}, {m.hidden, m.where}, {2, m.where}, micro},
                    fmt::format("seq_len x hidden x 2 bytes x batch.micro (the activations of a "
                                "micro-batch of model '{}')",
                                m.name));
    checked_dimension_size({{m.seq_len, m.where}, {m.heads, m.heads_where}, micro},
                           fmt::format("seq_len x heads x batch.micro (the attention's rows of a "
                                       "micro-batch of model '{}')",
                                       m.name));
    checked_dimension_size({{m.seq_len, m.where}, {m.top_k, m.where}, micro},
                           fmt::format("seq_len x top_k x batch.micro (the routed tokens of a "
                                       "micro-batch of model '{}')",
                                       m.name));
    return;
  }
  // A block's sizes grow with the samples; the largest count they are taken at is the global
  // batch (iteration_matmul_flops), which is a multiple of the micro-batch.
  const CountAt samples =
      s.global_batch.value >= s.micro_batch.value ? count_at(s.global_batch) : micro;
  for (const BlockOperator& op : m.block.operators)
    for (const auto& [dimension, size] : op.sizes) {
      int64_t value = size.coefficient;
      std::string written = std::to_string(value);
      const std::string what = fmt::format("`{}` of operator '{}' ({}) at {} samples:", dimension,
                                           op.name, format_location(op.where), samples.value);
      for (int k = 0; k < size.samples_power; ++k) multiply_checked(value, written, samples, what);
      if (value > kLargestDimensionSize)
        throw InputError(samples.where, fmt::format("{} {} is {}; expected a size of at most {}",
                                                    what, written, value, kLargestDimensionSize));
    }
}

}  // namespace

ParallelStrategy parse_parallel_strategy(const std::string& text, const std::string& file_name) {
  return read_strategy(YamlSource::parse(text, file_name));
}

ParallelStrategy load_parallel_strategy(const std::string& path) {
  return read_strategy(YamlSource::load(path));
}

void check_strategy_fits(const ParallelStrategy& s, const TransformerModel& m, int64_t gpus) {
  if (s.gpus() != gpus)
    throw InputError(s.dp.where,
                     fmt::format("data_parallel.degree x tensor_parallel.degree x "
                                 "pipeline_parallel.degree = {} x {} x {} = {}, but the cluster "
                                 "has {} GPUs",
                                 s.dp.value, s.tp.value, s.pp.value, s.gpus(), gpus));
  if (m.is_graph() && s.embedding_tp.value > 0)
    throw InputError(s.embedding_tp.where,
                     fmt::format("model '{}' is a graph of operators without an embedding to "
                                 "override",
                                 m.name));
  if (s.embedding_tp.value > 0 && s.tp.value % s.embedding_tp.value != 0)
    throw InputError(s.embedding_tp.where,
                     fmt::format("the embedding's tensor_parallel.degree {} does not divide the "
                                 "layers' tensor_parallel.degree {}",
                                 s.embedding_tp.value, s.tp.value));
  if (s.embedding_tp.value > 0 && m.vocab % s.embedding_tp.value != 0)
    throw InputError(s.embedding_tp.where,
                     fmt::format("the embedding's tensor_parallel.degree {} does not divide the "
                                 "vocabulary of {}",
                                 s.embedding_tp.value, m.vocab));
  check_model_products(s, m);
  if (m.is_graph()) {
    // Every split dimension of the block, at the strategy's micro-batch, is a whole number of
    // tp-ths.
    for (const BlockOperator& op : m.block.operators) {
      if (op.split == TensorSplit::none) continue;
      const std::string dim = op.split_dimension();
      const int64_t size = op.size(dim, s.micro_batch.value);
      if (size % s.tp.value != 0)
        throw InputError(s.tp.where,
                         fmt::format("tensor_parallel.degree {} does not divide {} = {} of "
                                     "operator '{}' (split: {}, {}) of model '{}'",
                                     s.tp.value, dim, size, op.name, to_string(op.split),
                                     format_location(op.where), m.name));
    }
  } else if (m.heads % s.tp.value != 0)
    throw InputError(s.tp.where,
                     fmt::format("tensor_parallel.degree {} does not divide the {} heads of "
                                 "model '{}'",
                                 s.tp.value, m.heads, m.name));
  const int64_t stages = s.pp.value * s.chunks.value;
  const std::string stages_text =
      fmt::format("pipeline_parallel.degree {}{}", s.pp.value,
                  s.chunks.value > 1 ? fmt::format(" x chunks {}", s.chunks.value) : "");
  if (stages > m.layers)
    throw InputError(s.pp.where, fmt::format("{} is more stages than the {} layers of model '{}'",
                                             stages_text, m.layers, m.name));
  if (m.layers % stages != 0)
    throw InputError(s.pp.where, fmt::format("{} does not divide the {} layers of model '{}'",
                                             stages_text, m.layers, m.name));
  if (s.global_batch.value % (s.micro_batch.value * s.dp.value) != 0)
    throw InputError(s.global_batch.where,
                     fmt::format("batch.global {} is not a whole number of micro-batches of {} "
                                 "per data-parallel rank ({} ranks)",
                                 s.global_batch.value, s.micro_batch.value, s.dp.value));
  if (s.micro_batches() > kMaxMicroBatches)
    throw InputError(s.global_batch.where,
                     fmt::format("batch.global {} makes {} micro-batches per data-parallel rank; "
                                 "expected at most {} (docs/formats.md, \"Sizes\")",
                                 s.global_batch.value, s.micro_batches(), kMaxMicroBatches));
  if (s.layers_override.count.value > m.layers / stages)
    throw InputError(
        s.layers_override.count.where,
        fmt::format("an override of {} layers, but a pipeline chunk holds {} ({} "
                    "layers over {})",
                    s.layers_override.count.value, m.layers / stages, m.layers, stages_text));
  if (s.ep.value > 1 && (m.experts % s.ep.value != 0 || s.dp.value % s.ep.value != 0))
    throw InputError(s.ep.where,
                     fmt::format("expert_parallel.degree {} must divide both the {} experts and "
                                 "data_parallel.degree {}",
                                 s.ep.value, m.experts, s.dp.value));
}

double ParallelStrategy::recompute_share(Recompute r, int64_t layers_per_chunk) const {
  if (layers_per_chunk <= 0) return 0;
  const double over = static_cast<double>(std::min(layers_override.count.value, layers_per_chunk)) /
                      static_cast<double>(layers_per_chunk);
  return (layers_override.recompute == r ? over : 0.0) + (recompute == r ? 1 - over : 0.0);
}

}  // namespace ts
