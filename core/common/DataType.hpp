#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace ts {

enum class DataType { fp32, fp16, bf16, fp8, int8, int16, int32 };

int bytes_of(DataType type);
std::string_view to_string(DataType type);
std::optional<DataType> parse_data_type(std::string_view text);
// "fp32, fp16, bf16, fp8, int8, int16, int32": every name parse_data_type takes, for messages.
std::string_view data_type_names();

// What a compute unit is asked to do. Throughput is counted in these operations:
// one multiply-accumulate for matmul, one element operation for the vector classes.
enum class OpClass { matmul, elementwise, reduction };

std::string_view to_string(OpClass cls);
std::optional<OpClass> parse_op_class(std::string_view text);

}  // namespace ts
