#include "workload/Operator.hpp"

#include <algorithm>
#include <iterator>

namespace ts {
namespace {

bool read_after(const Operator& op, int tensor, int stage) {
  for (size_t s = static_cast<size_t>(stage) + 1; s < op.stages.size(); ++s) {
    const auto& in = op.stages[s].inputs;
    if (std::find(in.begin(), in.end(), tensor) != in.end()) return true;
  }
  return false;
}

}  // namespace

void set_operations(Stage& stage, const OperationCounts& per_point) {
  stage.operations = per_point;
  stage.ops_per_point = total_count(per_point);
}

int64_t checked_dimension_size(std::initializer_list<CountAt> factors, std::string_view what) {
  const int64_t size = checked_product(factors, what);
  if (size > kLargestDimensionSize)
    throw InputError(factors.size() > 0 ? std::prev(factors.end())->where : SourceLocation{},
                     std::string(what) + " is " + std::to_string(size) +
                         "; expected a size of at most " + std::to_string(kLargestDimensionSize));
  return size;
}

int Operator::find_dim(std::string_view dim_name) const {
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i].name == dim_name) return static_cast<int>(i);
  return -1;
}

int Operator::find_tensor(std::string_view tensor_name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == tensor_name) return static_cast<int>(i);
  return -1;
}

std::vector<int> gathered_dims(const Operator& op, const Stage& stage) {
  std::vector<int> out;
  if (stage.inputs.empty()) return out;
  auto indexes = [&](int tensor, int d) {
    const auto& dims = op.tensors[static_cast<size_t>(tensor)].dims;
    return std::find(dims.begin(), dims.end(), d) != dims.end();
  };
  for (int d : op.tensors[static_cast<size_t>(stage.inputs.front())].dims) {
    bool other = indexes(stage.output, d);
    for (size_t i = 1; i < stage.inputs.size() && !other; ++i) other = indexes(stage.inputs[i], d);
    if (!other) out.push_back(d);
  }
  return out;
}

OpClass Operator::primary_class() const {
  for (OpClass cls : {OpClass::matmul, OpClass::lookup})
    for (const Stage& s : stages)
      if (s.op_class == cls) return cls;
  return stages.empty() ? OpClass::matmul : stages.front().op_class;
}

// The type the compute unit runs at: what the first stage of the primary class reads.
DataType Operator::primary_dtype() const {
  OpClass cls = primary_class();
  for (const Stage& s : stages)
    if (s.op_class == cls && !s.inputs.empty())
      return tensors.at(static_cast<size_t>(s.inputs.front())).dtype;
  return tensors.empty() ? DataType::fp16 : tensors.front().dtype;
}

double Operator::total_ops() const {
  double ops = 0;
  for (const Stage& s : stages) ops += stage_points(s) * s.ops_per_point;
  return ops;
}

double Operator::total_flops() const {
  double flops = 0;
  for (const Stage& s : stages)
    flops += stage_points(s) * s.ops_per_point * (s.op_class == OpClass::matmul ? 2.0 : 1.0);
  return flops;
}

double Operator::matmul_flops() const {
  double flops = 0;
  for (const Stage& s : stages)
    if (s.op_class == OpClass::matmul) flops += 2.0 * stage_points(s) * s.ops_per_point;
  return flops;
}

double Operator::stage_points(const Stage& stage) const {
  double n = 1;
  for (int d : stage.dims) n *= static_cast<double>(dims.at(static_cast<size_t>(d)).size);
  return n;
}

double Operator::tensor_elements(int tensor) const {
  const TensorSpec& t = tensors.at(static_cast<size_t>(tensor));
  auto size = [&](int d) { return dims.at(static_cast<size_t>(d)).size; };
  double n = 1;
  for (int d : t.dims) n *= static_cast<double>(size(d));
  for (const WindowAxis& w : t.windows)
    n = n / static_cast<double>(size(w.dims[0]) * size(w.dims[1])) *
        static_cast<double>(window_span(w, size(w.dims[0]), size(w.dims[1])));
  return n;
}

double Operator::tensor_bytes(int tensor) const {
  return packed_bytes(tensors.at(static_cast<size_t>(tensor)).dtype, tensor_elements(tensor));
}

int Operator::producer(int tensor) const {
  for (size_t s = 0; s < stages.size(); ++s)
    if (stages[s].output == tensor) return static_cast<int>(s);
  return -1;
}

bool Operator::is_input(int tensor) const { return producer(tensor) < 0; }

bool Operator::is_intermediate(int tensor) const {
  int p = producer(tensor);
  return p >= 0 && read_after(*this, tensor, p);
}

bool Operator::is_output(int tensor) const {
  int p = producer(tensor);
  return p >= 0 && !read_after(*this, tensor, p);
}

std::string window_text(const Operator& op, const WindowAxis& w) {
  std::string text;
  for (int k = 0; k < 2; ++k) {
    if (k > 0) text += "+";
    if (w.strides[k] != 1) text += std::to_string(w.strides[k]) + "*";
    text += op.dims.at(static_cast<size_t>(w.dims[k])).name;
  }
  if (w.pad != 0) text += (w.pad > 0 ? "-" : "+") + std::to_string(w.pad > 0 ? w.pad : -w.pad);
  return text;
}

std::string Operator::shape_text() const {
  std::string text;
  for (const Dimension& d : dims)
    text += (text.empty() ? "" : " ") + d.name + "=" + std::to_string(d.size);
  for (const TensorSpec& t : tensors)
    for (const WindowAxis& w : t.windows) text += " " + window_text(*this, w);
  return text;
}

}  // namespace ts
