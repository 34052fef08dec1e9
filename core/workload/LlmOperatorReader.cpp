#include "workload/LlmOperatorReader.hpp"

#include "workload/LlmOperators.hpp"

namespace ts {

bool is_llm_operator(OperatorType type) {
  return type >= OperatorType::rmsnorm && type <= OperatorType::prefill_attention;
}

Operator read_llm_operator(const YamlSource& src, const YAML::Node& node, const std::string& name,
                           OperatorType type, DataType dtype, const std::string& label) {
  auto size = [&](std::string_view key) {
    return src.positive_integer(src.require(node, key, label), key);
  };
  switch (type) {
    case OperatorType::rmsnorm:
    case OperatorType::silu_mul:
      src.check_keys(node, {"name", "type", "dtype", "count", "rows", "cols"}, label);
      return type == OperatorType::rmsnorm ? make_rmsnorm(name, size("rows"), size("cols"), dtype)
                                           : make_silu_mul(name, size("rows"), size("cols"), dtype);
    case OperatorType::rope:
      src.check_keys(node, {"name", "type", "dtype", "count", "tokens", "heads", "head_dim"},
                     label);
      return make_rope(name, size("tokens"), size("heads"), size("head_dim"), dtype);
    case OperatorType::quant_gemm: {
      src.check_keys(node, {"name", "type", "dtype", "count", "M", "N", "K", "group"}, label);
      const int64_t k = size("K"), group = size("group");
      if (k % group != 0)
        src.fail(node["group"], "`group` " + std::to_string(group) + " does not divide `K` " +
                                    std::to_string(k) +
                                    "; expected a group size that divides K (one scale per group)");
      return make_quant_gemm(name, size("M"), size("N"), k, group, dtype);
    }
    case OperatorType::lut_gemm: {
      src.check_keys(node,
                     {"name", "type", "dtype", "count", "M", "N", "K", "bits", "group", "key_bits"},
                     label);
      const int64_t k = size("K"), bits = src.positive_integer_or(node, "bits", 4),
                    group = src.positive_integer_or(node, "group", 128),
                    key_bits = src.positive_integer_or(node, "key_bits", 8);
      if (key_bits != 4 && key_bits != 8)
        src.fail(node["key_bits"], "`key_bits` " + std::to_string(key_bits) +
                                       "; expected 4 or 8 (keys packed as int4 or int8)");
      if (bits > 8) src.fail(node["bits"], "`bits` " + std::to_string(bits) + "; expected 1 to 8");
      if (group % key_bits != 0 || k % group != 0)
        src.fail(node["group"].IsDefined() ? node["group"] : node["K"],
                 "`group` " + std::to_string(group) + " with `K` " + std::to_string(k) +
                     " and `key_bits` " + std::to_string(key_bits) +
                     "; expected a group that is a multiple of key_bits and divides K");
      return make_lut_gemm(name, size("M"), size("N"), k, bits, group, key_bits, dtype);
    }
    case OperatorType::grouped_gemm: {
      src.check_keys(node, {"name", "type", "dtype", "count", "tokens", "N", "K"}, label);
      const YAML::Node tokens = src.require(node, "tokens", label);
      src.expect_sequence(tokens, "`tokens`");
      std::vector<int64_t> rows;
      int64_t routed = 0;
      for (const YAML::Node& t : tokens) {
        const int64_t m = src.integer(t, "tokens");
        if (m < 0 || m > kLargestDimensionSize)
          src.fail(t, "a token count of " + std::to_string(m) + "; expected 0 to " +
                          std::to_string(kLargestDimensionSize));
        rows.push_back(m);
        routed += m > 0 ? 1 : 0;
      }
      if (routed == 0)
        src.fail(tokens,
                 "`tokens` gives no group a token; expected a list of tokens per expert, e.g. "
                 "`tokens: [3, 0, 5]`");
      return make_grouped_gemm(name, rows, size("N"), size("K"), dtype);
    }
    case OperatorType::decode_attention: {
      src.check_keys(node,
                     {"name", "type", "dtype", "count", "batch_heads", "group", "context", "splits",
                      "head_dim"},
                     label);
      const int64_t context = size("context"), splits = size("splits");
      if (context % splits != 0)
        src.fail(node["splits"], "`splits` " + std::to_string(splits) +
                                     " does not divide `context` " + std::to_string(context) +
                                     "; expected chunks of equal length");
      return make_decode_attention(name, size("batch_heads"), size("group"), context, splits,
                                   size("head_dim"), dtype);
    }
    case OperatorType::prefill_attention:
      src.check_keys(
          node,
          {"name", "type", "dtype", "count", "batch_heads", "group", "queries", "keys", "head_dim"},
          label);
      return make_prefill_attention(name, size("batch_heads"), size("group"), size("queries"),
                                    size("keys"), size("head_dim"), dtype);
    default:
      src.fail(node["type"], "not an LLM operator type");
  }
}

}  // namespace ts
