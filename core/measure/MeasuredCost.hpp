#pragma once
// Which operator a measurement is of, and what a measured operator costs: the one rule behind the
// GUI's measured column, the link from a correlation point to its operator, and
// `simulate --operator-times db:`.
//
// An operator is identified by what it computes: its type, its shape and its tensors' data types
// (`operator_identity`). Its name is not part of that: the same GEMM is "qkv" in one suite and a
// row of a shape table in another, and a bf16 GEMM is not the fp32 one of the same shape.
//
// An operator measured several times (several implementations, mappings or runs) costs its
// fastest measurement: a framework that dispatches the operator runs the fastest kernel it has.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

#include "measure/MeasurementRecord.hpp"

namespace ts {

class ResultStore;

std::string operator_identity(std::string_view type, std::string_view dims,
                              std::string_view dtypes);
inline std::string operator_identity(const OperatorKey& op) {
  return operator_identity(op.type, op.dims, op.dtypes);
}

struct MeasuredCost {
  double seconds = 0;
  TimingScope scope = TimingScope::device;  // what the fastest measurement's clock covered
};

class FastestMeasurements {
 public:
  // Keeps the fastest measurement of each identity.
  void add(const OperatorKey& op, double seconds, TimingScope scope);
  std::optional<MeasuredCost> of(const OperatorKey& op) const;
  size_t identities() const { return fastest_.size(); }

 private:
  std::unordered_map<std::string, MeasuredCost> fastest_;
};

// Every measurement of every run in a results database.
FastestMeasurements fastest_measurements(const ResultStore& store);

// The operator of `operators` that a measurement of `measured` is of: the one of the same name and
// identity, else the first of the same identity; none when no operator computes what was measured.
std::optional<size_t> operator_of(const OperatorKey& measured,
                                  std::span<const OperatorKey> operators);

}  // namespace ts
