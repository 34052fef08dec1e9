#include "trace/KernelNameRules.hpp"

#include <array>

#include "common/YamlSource.hpp"

namespace ts {
namespace {

constexpr std::array<std::pair<KernelClass, std::string_view>, 5> kClassNames{{
    {KernelClass::matmul, "matmul"},
    {KernelClass::elementwise, "elementwise"},
    {KernelClass::softmax, "softmax"},
    {KernelClass::layernorm, "layernorm"},
    {KernelClass::reduction, "reduction"},
}};

KernelNameRule make_rule(std::string pattern, KernelClass kernel_class, SourceLocation where) {
  KernelNameRule rule;
  rule.regex = std::regex(pattern, std::regex::ECMAScript | std::regex::icase |
                                       std::regex::optimize | std::regex::nosubs);
  rule.pattern = std::move(pattern);
  rule.kernel_class = kernel_class;
  rule.where = std::move(where);
  return rule;
}

}  // namespace

std::string_view to_string(KernelClass kernel_class) {
  for (const auto& [c, name] : kClassNames)
    if (c == kernel_class) return name;
  return "?";
}

std::optional<KernelClass> parse_kernel_class(std::string_view text) {
  for (const auto& [c, name] : kClassNames)
    if (name == text) return c;
  return std::nullopt;
}

std::string_view kernel_class_names() {
  return "matmul, elementwise, softmax, layernorm, reduction";
}

KernelNameRules KernelNameRules::builtin() {
  // Ordered from the most specific: PyTorch names its softmax and layer-norm kernels after the
  // operator (`softmax_warp_forward`, `vectorized_layer_norm_kernel`) and some of them are also
  // templated on `elementwise`; a GEMM's epilogue may mention `elementwise` too.
  // Names as they appear in PyTorch 1.13 - 2.4 profiler traces: cuBLAS (`ampere_fp16_s16816gemm_*`,
  // `sm80_xmma_gemm_*`, `sm90_xmma_gemm_*`, `volta_sgemm_*`), CUTLASS (`cutlass::Kernel<...>`,
  // `cutlass_80_tensorop_*`), PyTorch's own (`at::native::elementwise_kernel`,
  // `vectorized_elementwise_kernel`, `reduce_kernel`, `fused_dropout_kernel`).
  static const std::array<std::pair<const char*, KernelClass>, 5> kRules{{
      {"softmax", KernelClass::softmax},
      {"layer_?norm|rms_?norm", KernelClass::layernorm},
      {"gemm|cutlass|cublas|xmma|wgmma|gemv", KernelClass::matmul},
      {"reduce_kernel|reduction", KernelClass::reduction},
      {"elementwise|dropout", KernelClass::elementwise},
  }};
  KernelNameRules out;
  for (const auto& [pattern, c] : kRules)
    out.rules_.push_back(make_rule(pattern, c, SourceLocation{"built-in", 0, 0}));
  return out;
}

KernelNameRules KernelNameRules::parse(const std::string& text, const std::string& file_name) {
  const YamlSource src = YamlSource::parse(text, file_name);
  src.check_header("kernel_rules");
  src.check_keys(src.root(), {"version", "kind", "description", "rules"}, "kernel rules");
  const YAML::Node rules = src.require(src.root(), "rules", "kernel rules");
  src.expect_sequence(rules, "`rules`");
  KernelNameRules out;
  for (const YAML::Node& entry : rules) {
    src.expect_map(entry, "a rule (`{match: REGEX, class: CLASS}`)");
    src.check_keys(entry, {"match", "class"}, "a rule");
    const YAML::Node match = src.require(entry, "match", "a rule");
    const YAML::Node class_node = src.require(entry, "class", "a rule");
    const std::string class_text = src.text(class_node, "class");
    const std::optional<KernelClass> c = parse_kernel_class(class_text);
    if (!c)
      throw InputError(src.where(class_node), "unknown class '" + class_text +
                                                  "'; expected one of " +
                                                  std::string(kernel_class_names()));
    std::string pattern = src.text(match, "match");
    try {
      out.rules_.push_back(make_rule(std::move(pattern), *c, src.where(entry)));
    } catch (const std::regex_error& e) {
      throw InputError(src.where(match),
                       std::string("not a regular expression (") + e.what() +
                           "); expected an ECMAScript pattern such as \"^sm90_xmma_gemm\"");
    }
  }
  return out;
}

KernelNameRules KernelNameRules::load(const std::string& path) {
  return parse(YamlSource::read_file(path), path);
}

void KernelNameRules::append(const KernelNameRules& later) {
  rules_.insert(rules_.end(), later.rules_.begin(), later.rules_.end());
}

std::optional<KernelClass> KernelNameRules::classify(std::string_view kernel_name) const {
  for (const KernelNameRule& rule : rules_)
    if (std::regex_search(kernel_name.begin(), kernel_name.end(), rule.regex))
      return rule.kernel_class;
  return std::nullopt;
}

}  // namespace ts
