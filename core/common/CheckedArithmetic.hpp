#pragma once
// Sums and products of counts read from files. A count a person writes can be anything up to
// 2^63-1; a product of two such counts wraps around silently in int64_t and turns into a wrong
// answer (a negative GPU count, a granule that pads nothing). Every loader forms its products
// through these functions, so that an overflow is an input error at the value that causes it.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "common/InputError.hpp"

namespace ts {

// a + b and a x b, or nothing when the result does not fit in 64 bits.
constexpr std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

constexpr std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// A count with the place it was written: the factors of a product that may fail.
struct CountAt {
  int64_t value = 0;
  SourceLocation where;
};

// The product of `factors`, outermost first. When it does not fit in 64 bits, throws an
// InputError at the factor that makes it overflow, naming the product up to that factor:
// "granule 9223372036854775807 x 16 overflows 64 bits; expected a product of at most
// 9223372036854775807". `what` names the product ("granule", "data_parallel.degree x
// tensor_parallel.degree").
int64_t checked_product(std::initializer_list<CountAt> factors, std::string_view what);

// Adds `factor` to a product built up one factor at a time (`product` holds the factors so far,
// `written` their text "2 x 3" for the message); throws as checked_product does.
void multiply_checked(int64_t& product, std::string& written, const CountAt& factor,
                      std::string_view what);

}  // namespace ts
