#pragma once
// Kernel names to operator classes, for kernels a trace does not tie to an operator (no
// correlation, no enclosing range) and for operators tilescope does not know by name: cuBLAS,
// CUTLASS and `*gemm*` kernels are matrix products, PyTorch's `elementwise_kernel` an
// element-wise step, and so on. A hardware profile adds its own rules (profile.yaml
// `kernel_rules`, a `kind: kernel_rules` file, docs/formats.md "Kernel-name rules"), which are
// tried before the built-in ones; the first rule whose pattern is found in the name wins.
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

// What a kernel computes, as far as its name tells: the classes tilescope can build an operator
// of from the launching operator's shapes (matmul -> gemm, softmax, layernorm, elementwise ->
// an element-wise vector step) and reduction, which it counts but does not model alone.
enum class KernelClass { matmul, elementwise, softmax, layernorm, reduction };
std::string_view to_string(KernelClass kernel_class);
std::optional<KernelClass> parse_kernel_class(std::string_view text);
std::string_view kernel_class_names();  // for messages

struct KernelNameRule {
  std::string pattern;  // ECMAScript regex, searched (not anchored), case-insensitive
  std::regex regex;
  KernelClass kernel_class = KernelClass::elementwise;
  SourceLocation where;  // the rule's entry in its file; `built-in` for the built-in ones
};

class KernelNameRules {
 public:
  // The rules every import knows (KernelNameRules.cpp lists them with where the names come
  // from).
  static KernelNameRules builtin();
  // A `kind: kernel_rules` file; throws InputError at the entry (a bad pattern, an unknown class).
  static KernelNameRules load(const std::string& path);
  static KernelNameRules parse(const std::string& text, const std::string& file_name);

  // Adds `later`'s rules after these (so these win).
  void append(const KernelNameRules& later);
  std::optional<KernelClass> classify(std::string_view kernel_name) const;
  const std::vector<KernelNameRule>& rules() const { return rules_; }

 private:
  std::vector<KernelNameRule> rules_;
};

}  // namespace ts
