#include "trace/TraceKernelResolution.hpp"

#include <fmt/format.h>

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

// The result of walking out from one framework operator: the tilescope operator (and which
// framework operator made it), or why none.
struct OperatorWalk {
  std::optional<Operator> op;
  size_t source = 0;        // the framework operator that converted
  bool any_shapes = false;  // some operator on the way recorded shapes
  std::optional<size_t> innermost_shaped;
};

OperatorWalk walk_out(const TraceEvents& events, size_t start) {
  OperatorWalk walk;
  std::optional<size_t> at = start;
  // A parent chain is a tree read from the file: a cycle (a broken trace) must not hang.
  for (size_t steps = 0; at && steps < events.operators.size(); ++steps) {
    const TraceOperator& op = events.operators[*at];
    if (op.has_shapes) {
      walk.any_shapes = true;
      if (!walk.innermost_shaped) walk.innermost_shaped = *at;
      if (std::optional<Operator> converted = tilescope_operator_of(op)) {
        walk.op = std::move(converted);
        walk.source = *at;
        return walk;
      }
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
      ++out.operator_runs[static_cast<size_t>(it->second)];
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
        out.kernel_operator[k] = operator_index(*walk->op, walk->source);
        fate = KernelFate::measured;
      } else if (!walk->any_shapes) {
        fate = KernelFate::lacks_shapes;
        add_example(out.examples[fate], kernel.name);
      } else {
        // An operator tilescope does not know by name (a custom op, a fused extension): the
        // kernel's name may still say what it computes over the recorded shapes.
        const TraceOperator& shaped = events.operators[*walk->innermost_shaped];
        std::optional<Operator> by_class;
        if (const std::optional<KernelClass> c = kernel_class(kernel.name))
          by_class = tilescope_operator_of(shaped, c);
        if (by_class) {
          out.kernel_operator[k] = operator_index(std::move(*by_class), *walk->innermost_shaped);
          fate = KernelFate::measured;
        } else {
          fate = KernelFate::operator_unmodelled;
          add_example(out.examples[fate], shaped.name);
        }
      }
    } else if (const std::optional<KernelClass> c = kernel_class(kernel.name)) {
      fate = KernelFate::name_only;
      ++out.name_only_classes[std::string(to_string(*c))];
      add_example(out.examples[fate], kernel.name);
    } else {
      add_example(out.examples[fate], kernel.name);
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
