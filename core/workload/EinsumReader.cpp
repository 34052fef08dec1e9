#include "workload/EinsumReader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/OperationMap.hpp"

namespace ts {
namespace {

OpClass class_at(const YamlSource& src, const YAML::Node& node) {
  auto cls = parse_op_class(src.text(node, "class"));
  if (!cls)
    src.fail(node, "unknown class " + describe(node) +
                       "; expected matmul, elementwise, reduction or lookup");
  return *cls;
}

std::vector<std::string> names_of(const auto& items) {
  std::vector<std::string> names;
  for (const auto& i : items) names.push_back(i.name);
  return names;
}

struct WindowTerms {
  std::string names[2];
  int64_t strides[2] = {1, 1};
  int64_t pad = 0;
};

// "2*P + R - 1", "P*2+R*2", "Q + S": two dimensions, each times an optional positive integer
// (written before or after it), then an optional "- pad" (or "+ n", a negative pad).
WindowTerms parse_window_terms(const YamlSource& src, const YAML::Node& node,
                               const std::string& text) {
  auto fail = [&](const std::string& why) {
    src.fail(node, "cannot read the window axis '" + text + "': " + why +
                       "; expected two dimensions and an optional pad, as in `2*P+R-1` (stride "
                       "2, dilation 1, pad 1)");
  };
  // Split into signed terms.
  std::vector<std::pair<int, std::string>> parts;  // sign, text
  std::string current;
  int sign = 1;
  for (char c : text) {
    if (c == ' ') continue;
    if (c == '+' || c == '-') {
      if (current.empty()) fail("a sign without a term before it");
      parts.emplace_back(sign, current);
      current.clear();
      sign = c == '+' ? 1 : -1;
    } else {
      current += c;
    }
  }
  if (current.empty()) fail("it ends with a sign");
  parts.emplace_back(sign, current);
  auto integer = [&](const std::string& digits) -> std::optional<int64_t> {
    if (digits.empty() || digits.size() > 12 ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    return std::stoll(digits);
  };
  WindowTerms terms;
  int named = 0;
  bool padded = false;
  for (const auto& [s, part] : parts) {
    if (auto n = integer(part)) {
      if (padded) fail("two constant terms");
      padded = true;
      terms.pad = -s * *n;
      continue;
    }
    if (s < 0) fail("a dimension with a minus sign");
    if (named == 2) fail("more than two dimensions");
    std::string name = part;
    int64_t factor = 1;
    if (auto star = part.find('*'); star != std::string::npos) {
      std::string left = part.substr(0, star), right = part.substr(star + 1);
      if (right.find('*') != std::string::npos) fail("a term with two products");
      if (auto n = integer(left)) {
        factor = *n;
        name = right;
      } else if (auto m = integer(right)) {
        factor = *m;
        name = left;
      } else {
        fail("a term '" + part + "' that is not a dimension times an integer");
      }
    }
    if (factor < 1) fail("a stride or dilation below 1");
    if (name.empty() || integer(name)) fail("a term '" + part + "' without a dimension");
    terms.names[named] = name;
    terms.strides[named] = factor;
    ++named;
  }
  if (named < 2) fail("one dimension");
  return terms;
}

class EinsumReader {
 public:
  EinsumReader(const YamlSource& src, std::string name, DataType dtype)
      : src_(src), dtype_(dtype), label_("operator '" + name + "'") {
    op_.name = std::move(name);
    op_.type = OperatorType::einsum;
  }
  Operator read(const YAML::Node& node);

 private:
  void read_dims(const YAML::Node& dims);
  void read_tensor(const YAML::Node& t);
  void read_stage(const YAML::Node& s, std::optional<OpClass> default_class);
  int tensor_at(const YAML::Node& name);
  void check_stage_order();
  void check_all_used();

  const YamlSource& src_;
  DataType dtype_;
  std::string label_;
  Operator op_;
  std::vector<YAML::Node> dim_keys_, tensor_nodes_;
  std::vector<std::vector<YAML::Node>> stage_inputs_;  // per stage, for errors about order
};

Operator EinsumReader::read(const YAML::Node& node) {
  src_.check_keys(node, {"name", "type", "dtype", "count", "class", "dims", "tensors", "stages"},
                  label_);
  std::optional<OpClass> default_class;
  if (node["class"].IsDefined()) default_class = class_at(src_, node["class"]);
  read_dims(src_.require(node, "dims", label_));

  YAML::Node tensors = src_.require(node, "tensors", label_);
  src_.expect_sequence(tensors, "`tensors`");
  if (tensors.size() == 0) src_.fail(tensors, "`tensors` is empty; expected at least one tensor");
  for (const auto& t : tensors) read_tensor(t);

  YAML::Node stages = src_.require(node, "stages", label_);
  src_.expect_sequence(stages, "`stages`");
  if (stages.size() == 0) src_.fail(stages, "`stages` is empty; expected at least one stage");
  for (const auto& s : stages) read_stage(s, default_class);

  check_stage_order();
  check_all_used();
  return std::move(op_);
}

void EinsumReader::read_dims(const YAML::Node& dims) {
  src_.expect_map(dims, "`dims`");
  if (dims.size() == 0) src_.fail(dims, "`dims` is empty; expected e.g. `dims: {M: 64, N: 32}`");
  for (const auto& entry : dims) {
    std::string name = src_.text(entry.first, "dims");
    if (op_.find_dim(name) >= 0) src_.fail(entry.first, "duplicate dimension '" + name + "'");
    op_.dims.push_back({name, src_.positive_integer(entry.second, name)});
    dim_keys_.push_back(entry.first);
  }
}

void EinsumReader::read_tensor(const YAML::Node& t) {
  src_.check_keys(t, {"name", "dims", "dtype"}, "a tensor of " + label_);
  TensorSpec tensor;
  YAML::Node name = src_.require(t, "name", "a tensor of " + label_);
  tensor.name = src_.text(name, "name");
  if (op_.find_tensor(tensor.name) >= 0)
    src_.fail(name, "duplicate tensor name '" + tensor.name + "'");
  YAML::Node dims = src_.require(t, "dims", "tensor '" + tensor.name + "'");
  src_.expect_sequence(dims, "`dims` of tensor '" + tensor.name + "'");
  auto add_dim = [&](const YAML::Node& d, const std::string& dim) {
    int id = op_.find_dim(dim);
    if (id < 0)
      src_.fail(d,
                "unknown dimension '" + dim + "' (known: " + join_names(names_of(op_.dims)) + ")");
    if (std::find(tensor.dims.begin(), tensor.dims.end(), id) != tensor.dims.end())
      src_.fail(d, "dimension '" + dim + "' appears twice in tensor '" + tensor.name + "'");
    tensor.dims.push_back(id);
    return id;
  };
  for (const auto& d : dims) {
    std::string text = src_.text(d, "dims");
    if (text.find_first_of("+-*") == std::string::npos) {
      add_dim(d, text);
      continue;
    }
    const WindowTerms terms = parse_window_terms(src_, d, text);
    WindowAxis w;
    for (int k = 0; k < 2; ++k) {
      w.dims[k] = add_dim(d, terms.names[k]);
      w.strides[k] = terms.strides[k];
    }
    w.pad = terms.pad;
    const auto size = [&](int k) { return op_.dims[static_cast<size_t>(w.dims[k])].size; };
    const double span = (static_cast<double>(size(0)) - 1) * static_cast<double>(w.strides[0]) +
                        (static_cast<double>(size(1)) - 1) * static_cast<double>(w.strides[1]) + 1;
    if (span > static_cast<double>(kLargestDimensionSize))
      src_.fail(d, "the window axis '" + text + "' spans " + fmt::format("{:.3g}", span) +
                       " elements; expected at most " + std::to_string(kLargestDimensionSize));
    if (w.pad < 0 || 2 * w.pad >= span)
      src_.fail(d, "the window axis '" + text + "' has a pad of " + std::to_string(w.pad) +
                       "; expected 0 or more and less than half its span of " +
                       fmt::format("{:.0f}", span));
    tensor.windows.push_back(w);
  }
  tensor.dtype = t["dtype"].IsDefined() ? data_type_at(src_, t["dtype"]) : dtype_;
  op_.tensors.push_back(std::move(tensor));
  tensor_nodes_.push_back(t);
}

int EinsumReader::tensor_at(const YAML::Node& name) {
  std::string text = src_.text(name, "tensor");
  int id = op_.find_tensor(text);
  if (id < 0)
    src_.fail(name,
              "unknown tensor '" + text + "' (known: " + join_names(names_of(op_.tensors)) + ")");
  return id;
}

void EinsumReader::read_stage(const YAML::Node& s, std::optional<OpClass> default_class) {
  std::string what = "a stage of " + label_;
  src_.check_keys(s, {"name", "class", "inputs", "output", "ops_per_point", "operations"}, what);
  Stage stage;
  YAML::Node name = src_.require(s, "name", what);
  stage.name = src_.text(name, "name");
  for (const Stage& prior : op_.stages)
    if (prior.name == stage.name) src_.fail(name, "duplicate stage name '" + stage.name + "'");
  if (s["class"].IsDefined())
    stage.op_class = class_at(src_, s["class"]);
  else if (default_class)
    stage.op_class = *default_class;
  else
    src_.fail(s, "stage '" + stage.name +
                     "' has no class; expected `class: matmul`, `elementwise` or `reduction`");

  YAML::Node inputs = src_.require(s, "inputs", "stage '" + stage.name + "'");
  src_.expect_sequence(inputs, "`inputs`");
  stage_inputs_.emplace_back();
  for (const auto& in : inputs) {
    stage.inputs.push_back(tensor_at(in));
    stage_inputs_.back().push_back(in);
  }
  YAML::Node output = src_.require(s, "output", "stage '" + stage.name + "'");
  stage.output = tensor_at(output);
  const std::string& out_name = op_.tensors[static_cast<size_t>(stage.output)].name;
  if (int p = op_.producer(stage.output); p >= 0)
    src_.fail(output, "tensor '" + out_name + "' is already the output of stage '" +
                          op_.stages[static_cast<size_t>(p)].name + "'");
  if (std::find(stage.inputs.begin(), stage.inputs.end(), stage.output) != stage.inputs.end())
    src_.fail(output, "stage '" + stage.name + "' reads its own output '" + out_name + "'");
  if (YAML::Node ops = s["operations"]; ops.IsDefined()) {
    // The split by kind is the count itself: a second, total figure could only disagree.
    if (s["ops_per_point"].IsDefined())
      src_.fail(ops, "stage '" + stage.name +
                         "' gives both `ops_per_point` and `operations`; give one (`operations` "
                         "counts by kind)");
    OperationCounts counts{};
    const auto entries = operation_entries(src_, ops, "`operations`");
    for (size_t k = 0; k < kOperationKinds; ++k) {
      if (!entries[k]) continue;
      counts[k] = src_.number(*entries[k], "operations");
      if (counts[k] < 0)
        src_.fail(*entries[k],
                  "an operation count must be at least 0, got " + describe(*entries[k]));
    }
    if (total_count(counts) <= 0)
      src_.fail(ops, "stage '" + stage.name +
                         "' counts no operations; expected at least one kind "
                         "above 0 (" +
                         std::string(operation_kind_names()) + ")");
    set_operations(stage, counts);
  } else if (s["ops_per_point"].IsDefined()) {
    set_operations(stage, {src_.positive_number(s["ops_per_point"], "ops_per_point"), 0, 0, 0});
  }

  // The iteration space: every dimension of the tensors it touches, in first-seen order.
  std::vector<int> touched = stage.inputs;
  touched.push_back(stage.output);
  for (int t : touched)
    for (int d : op_.tensors[static_cast<size_t>(t)].dims)
      if (std::find(stage.dims.begin(), stage.dims.end(), d) == stage.dims.end())
        stage.dims.push_back(d);
  op_.stages.push_back(std::move(stage));
}

void EinsumReader::check_stage_order() {
  for (size_t s = 0; s < op_.stages.size(); ++s)
    for (size_t i = 0; i < op_.stages[s].inputs.size(); ++i) {
      int p = op_.producer(op_.stages[s].inputs[i]);
      if (p > static_cast<int>(s))
        src_.fail(stage_inputs_[s][i],
                  "stage '" + op_.stages[s].name + "' reads '" +
                      op_.tensors[static_cast<size_t>(op_.stages[s].inputs[i])].name +
                      "' before stage '" + op_.stages[static_cast<size_t>(p)].name +
                      "' produces it; list stages in the order they run");
    }
}

void EinsumReader::check_all_used() {
  for (size_t t = 0; t < op_.tensors.size(); ++t) {
    bool used = op_.producer(static_cast<int>(t)) >= 0;
    for (const Stage& s : op_.stages)
      used = used ||
             std::find(s.inputs.begin(), s.inputs.end(), static_cast<int>(t)) != s.inputs.end();
    if (!used)
      src_.fail(tensor_nodes_[t], "tensor '" + op_.tensors[t].name + "' is used by no stage");
  }
  for (size_t d = 0; d < op_.dims.size(); ++d) {
    bool used = false;
    for (const TensorSpec& t : op_.tensors)
      used = used || std::find(t.dims.begin(), t.dims.end(), static_cast<int>(d)) != t.dims.end();
    if (!used) src_.fail(dim_keys_[d], "dimension '" + op_.dims[d].name + "' is used by no tensor");
  }
}

}  // namespace

DataType data_type_at(const YamlSource& src, const YAML::Node& node) {
  auto type = parse_data_type(src.text(node, "dtype"));
  if (!type)
    src.fail(node, "unknown dtype " + describe(node) +
                       "; expected one of: " + std::string(data_type_names()));
  return *type;
}

Operator read_einsum(const YamlSource& src, const YAML::Node& node, std::string name,
                     DataType dtype) {
  return EinsumReader(src, std::move(name), dtype).read(node);
}

}  // namespace ts
