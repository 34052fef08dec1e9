#include "common/CheckedArithmetic.hpp"

#include <limits>
#include <string>

namespace ts {

void multiply_checked(int64_t& product, std::string& written, const CountAt& factor,
                      std::string_view what) {
  written += (written.empty() ? "" : " x ") + std::to_string(factor.value);
  const std::optional<int64_t> next = checked_mul(product, factor.value);
  if (!next)
    throw InputError(factor.where, std::string(what) + " " + written +
                                       " overflows 64 bits; expected a product of at most " +
                                       std::to_string(std::numeric_limits<int64_t>::max()));
  product = *next;
}

int64_t checked_product(std::initializer_list<CountAt> factors, std::string_view what) {
  int64_t product = 1;
  std::string written;
  for (const CountAt& factor : factors) multiply_checked(product, written, factor, what);
  return product;
}

}  // namespace ts
