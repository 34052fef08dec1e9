#include "trace/TraceKernelResolution.hpp"

#include <fmt/format.h>

#include <limits>
#include <optional>
#include <unordered_map>

#include "trace/KernelOperatorMatch.hpp"
#include "trace/TraceOperatorConversion.hpp"

namespace ts {
namespace {

constexpr size_t kExamples = 5;

void add_example(std::vector<std::string>& examples, const std::string& name) {
  if (examples.size() >= kExamples) return;
  for (const std::string& e : examples)
    if (e == name) return;
  examples.push_back(name);
}

// The operator a kernel is stored under: the innermost operator around its launch that
// recorded shapes (walking out past ranges without shapes: a user annotation, an NVTX range), as
// a tilescope operator when its name is one tilescope knows. The walk stops at the first operator
// with shapes: the one further out (`aten::linear` around an `aten::copy_`) computed something
// else than this kernel.
// Where an operator was read, for an error about it.
SourceLocation where_of(const TraceEvents& events, const TraceOperator& op) {
  const int64_t line = op.line > 0 && op.line <= std::numeric_limits<int>::max() ? op.line : 0;
  return SourceLocation{events.file, static_cast<int>(line), 0};
}

struct OperatorWalk {
  std::optional<Operator> op;
  std::optional<size_t> shaped;  // the innermost operator with shapes, if any
  int stored = -1;               // index of `op` in ResolvedTrace::operators once stored
};

OperatorWalk walk_out(const TraceEvents& events, size_t start) {
  OperatorWalk walk;
  std::optional<size_t> at = start;
  // A parent chain is a tree read from the file: a cycle (a broken trace) must not hang.
  for (size_t steps = 0; at && steps <= events.operators.size(); ++steps) {
    const TraceOperator& op = events.operators[*at];
    if (op.has_shapes) {
      walk.shaped = *at;
      walk.op = tilescope_operator_of(op, std::nullopt, where_of(events, op));
      return walk;
    }
    at = op.parent;
  }
  return walk;
}

}  // namespace

ResolvedTrace resolve_trace(TraceEvents& events, const KernelNameRules& rules) {
  tie_kernels_by_enclosing_span(events);
  ResolvedTrace out;
  out.kernel_operator.assign(events.kernels.size(), -1);
  out.kernel_fate.assign(events.kernels.size(), KernelFate::unmatched);
  out.kernel_instance.assign(events.kernels.size(), -1);

  std::unordered_map<std::string, std::optional<KernelClass>> class_of_name;
  auto kernel_class = [&](const std::string& name) {
    auto it = class_of_name.find(name);
    if (it == class_of_name.end()) it = class_of_name.emplace(name, rules.classify(name)).first;
    return it->second;
  };
  std::vector<std::optional<OperatorWalk>> walks(events.operators.size());
  std::unordered_map<std::string, int> operator_by_name;
  std::vector<char> counted(events.operators.size(), 0);  // framework operator already counted
  auto operator_index = [&](Operator op, size_t source) {
    auto [it, fresh] = operator_by_name.emplace(op.name, static_cast<int>(out.operators.size()));
    if (fresh) {
      out.operators.push_back(std::move(op));
      out.operator_runs.push_back(0);
    }
    if (!counted[source]) {
      counted[source] = 1;
      out.operator_runs[static_cast<size_t>(it->second)] += events.operators[source].occurrences;
    }
    return it->second;
  };

  for (size_t k = 0; k < events.kernels.size(); ++k) {
    const TraceKernel& kernel = events.kernels[k];
    KernelFate fate = KernelFate::unmatched;
    if (kernel.op && *kernel.op < events.operators.size()) {
      std::optional<OperatorWalk>& walk = walks[*kernel.op];
      if (!walk) walk = walk_out(events, *kernel.op);
      if (walk->op) {
        if (walk->stored < 0) walk->stored = operator_index(std::move(*walk->op), *walk->shaped);
        out.kernel_operator[k] = walk->stored;
        out.kernel_instance[k] = static_cast<int64_t>(*walk->shaped);
        fate = KernelFate::measured;
      } else if (!walk->shaped) {
        fate = KernelFate::lacks_shapes;
        add_example(out.examples[fate], kernel_name(events, kernel));
      } else {
        // An operator tilescope does not know by name (a custom op, a fused extension): the
        // kernel's name may still say what it computes over the recorded shapes.
        const TraceOperator& shaped = events.operators[*walk->shaped];
        std::optional<Operator> by_class;
        if (const std::optional<KernelClass> c = kernel_class(kernel_name(events, kernel)))
          by_class = tilescope_operator_of(shaped, c, where_of(events, shaped));
        if (by_class) {
          out.kernel_operator[k] = operator_index(std::move(*by_class), *walk->shaped);
          out.kernel_instance[k] = static_cast<int64_t>(*walk->shaped);
          fate = KernelFate::measured;
        } else {
          fate = KernelFate::operator_unmodelled;
          add_example(out.examples[fate], shaped.name);
        }
      }
    } else if (const std::optional<KernelClass> c = kernel_class(kernel_name(events, kernel))) {
      fate = KernelFate::name_only;
      ++out.name_only_classes[std::string(to_string(*c))];
      add_example(out.examples[fate], kernel_name(events, kernel));
    } else {
      add_example(out.examples[fate], kernel_name(events, kernel));
    }
    out.kernel_fate[k] = fate;
    ++out.fate_counts[fate];
  }
  return out;
}

std::vector<std::string> resolution_notes(const ResolvedTrace& resolved) {
  auto count = [&](KernelFate f) {
    const auto it = resolved.fate_counts.find(f);
    return it == resolved.fate_counts.end() ? size_t{0} : it->second;
  };
  auto examples = [&](KernelFate f) {
    const auto it = resolved.examples.find(f);
    std::string text;
    if (it != resolved.examples.end())
      for (const std::string& e : it->second) text += (text.empty() ? "" : "; ") + e;
    return text;
  };
  std::vector<std::string> notes;
  if (const size_t n = count(KernelFate::lacks_shapes))
    notes.push_back(
        fmt::format("{} kernels lack shapes (their operators recorded none: profile with "
                    "record_shapes=True), not stored; e.g. {}",
                    n, examples(KernelFate::lacks_shapes)));
  if (const size_t n = count(KernelFate::operator_unmodelled))
    notes.push_back(fmt::format("{} kernels of operators tilescope does not model, not stored: {}",
                                n, examples(KernelFate::operator_unmodelled)));
  if (const size_t n = count(KernelFate::name_only)) {
    std::string classes;
    for (const auto& [c, m] : resolved.name_only_classes)
      classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", m, c);
    notes.push_back(fmt::format(
        "{} kernels have no operator in the trace, classified by name only ({}), not stored; "
        "e.g. {}",
        n, classes, examples(KernelFate::name_only)));
  }
  if (const size_t n = count(KernelFate::unmatched))
    notes.push_back(
        fmt::format("{} kernels match no operator and no kernel-name rule, not stored; e.g. {}", n,
                    examples(KernelFate::unmatched)));
  return notes;
}

}  // namespace ts
