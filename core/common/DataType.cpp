#include "common/DataType.hpp"

#include <algorithm>
#include <cmath>

namespace ts {
namespace {

constexpr DataType kDataTypes[] = {DataType::fp32,  DataType::fp16, DataType::bf16,
                                   DataType::fp8,   DataType::int8, DataType::int16,
                                   DataType::int32, DataType::int4, DataType::tf32};

}  // namespace

int bits_of(DataType type) {
  switch (type) {
    case DataType::fp32:
    case DataType::int32:
    case DataType::tf32:
      return 32;
    case DataType::fp16:
    case DataType::bf16:
    case DataType::int16:
      return 16;
    case DataType::fp8:
    case DataType::int8:
      return 8;
    case DataType::int4:
      return 4;
  }
  return 32;
}

double bytes_of(DataType type) { return bits_of(type) / 8.0; }

double packed_bytes(DataType type, double elements) {
  return std::ceil(elements * bits_of(type) / 8.0);
}

int64_t whole_bytes_of(DataType type) { return std::max(1, bits_of(type) / 8); }

std::string_view to_string(DataType type) {
  switch (type) {
    case DataType::fp32:
      return "fp32";
    case DataType::fp16:
      return "fp16";
    case DataType::bf16:
      return "bf16";
    case DataType::fp8:
      return "fp8";
    case DataType::int8:
      return "int8";
    case DataType::int16:
      return "int16";
    case DataType::int32:
      return "int32";
    case DataType::int4:
      return "int4";
    case DataType::tf32:
      return "tf32";
  }
  return "fp32";
}

std::optional<DataType> parse_data_type(std::string_view text) {
  for (DataType t : kDataTypes)
    if (to_string(t) == text) return t;
  return std::nullopt;
}

std::string_view data_type_names() {
  return "fp32, fp16, bf16, fp8, int8, int16, int32, int4, tf32";
}

std::string_view to_string(OpClass cls) {
  switch (cls) {
    case OpClass::matmul:
      return "matmul";
    case OpClass::elementwise:
      return "elementwise";
    case OpClass::reduction:
      return "reduction";
    case OpClass::lookup:
      return "lookup";
  }
  return "matmul";
}

std::optional<OpClass> parse_op_class(std::string_view text) {
  for (auto c : {OpClass::matmul, OpClass::elementwise, OpClass::reduction, OpClass::lookup})
    if (to_string(c) == text) return c;
  return std::nullopt;
}

}  // namespace ts
