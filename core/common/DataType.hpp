#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ts {

// int4 is packed two elements per byte (the low nibble first), as weight-only quantized GEMMs
// store their weights (AWQ, GPTQ, Marlin).
// tf32 is an fp32 tensor (4 bytes an element) whose products a tensor core rounds to TF32's 10-bit
// mantissa: what an fp32 GEMM runs as where TF32 is allowed (cuBLAS's CUBLAS_TF32_TENSOR_OP_MATH,
// PyTorch's allow_tf32), where plain fp32 runs on the CUDA cores (docs/gpus.md).
enum class DataType { fp32, fp16, bf16, fp8, int8, int16, int32, int4, tf32 };

int bits_of(DataType type);
// Bytes per element: 0.5 for int4. A whole tensor or tile of n elements takes packed_bytes.
double bytes_of(DataType type);
// The bytes n elements take in memory: ceil(n x bits / 8), so that n int4 elements take
// ceil(n / 2) bytes (an odd count leaves half a byte unused, not shared with the next row).
double packed_bytes(DataType type, double elements);
// Whole bytes per element, at least 1: the bound that overflow checks multiply by.
int64_t whole_bytes_of(DataType type);
std::string_view to_string(DataType type);
std::optional<DataType> parse_data_type(std::string_view text);
// "fp32, fp16, bf16, fp8, int8, int16, int32, int4, tf32": every name parse_data_type takes, for
// messages.
std::string_view data_type_names();

// What a compute unit is asked to do. Throughput is counted in these operations:
// one multiply-accumulate for matmul, one element operation for the vector classes, one table
// read and its accumulate for lookup (a lookup-table GEMM: LUT-GEMM, T-MAC).
enum class OpClass { matmul, elementwise, reduction, lookup };

std::string_view to_string(OpClass cls);
std::optional<OpClass> parse_op_class(std::string_view text);

}  // namespace ts
