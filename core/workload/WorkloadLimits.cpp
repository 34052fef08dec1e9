#include "workload/WorkloadLimits.hpp"

#include "common/CheckedArithmetic.hpp"

namespace ts {

void check_operator_sizes(const Operator& op,
                          const std::function<SourceLocation(size_t dim)>& dim_where,
                          const SourceLocation& where, const std::string& label) {
  for (size_t d = 0; d < op.dims.size(); ++d)
    if (op.dims[d].size > kLargestDimensionSize)
      throw InputError(dim_where(d), "`" + op.dims[d].name + "` of " + label + " is " +
                                         std::to_string(op.dims[d].size) +
                                         "; expected a size of at most " +
                                         std::to_string(kLargestDimensionSize));
  // The product of the sizes of `dims`, times `element_bytes`, checked factor by factor (a
  // factor of 1 cannot overflow).
  auto check_product = [&](const std::vector<int>& dims, int64_t element_bytes,
                           const std::string& what) {
    int64_t product = 1;
    std::string written;
    for (int d : dims) {
      const size_t i = static_cast<size_t>(d);
      multiply_checked(product, written, CountAt{op.dims[i].size, dim_where(i)}, what);
    }
    multiply_checked(product, written, CountAt{element_bytes, where}, what);
  };
  for (const TensorSpec& t : op.tensors)
    check_product(
        t.dims, whole_bytes_of(t.dtype),
        "the bytes of tensor '" + t.name + "' of " + label + " (its sizes x bytes per element)");
  for (const Stage& st : op.stages)
    check_product(
        st.dims, 1,
        "the points of stage '" + st.name + "' of " + label + " (the product of its sizes)");
}

void check_operator_sizes(const Operator& op, const SourceLocation& where,
                          const std::string& label) {
  check_operator_sizes(
      op, [&](size_t) { return where; }, where, label);
}

}  // namespace ts
