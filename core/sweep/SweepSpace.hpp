#pragma once
// What threads, MPI ranks and the store need of a sweep, whatever it varies: a fixed list of
// points, each evaluated by index into one SweepPointRecord, and the keys the store files it
// under (measure/SweepPointRecord). ArchitectureSweep varies graph parameters and predicts a
// workload; StrategyGridSweep varies a training strategy and simulates an iteration. Points are
// independent and evaluate() is const, so threads and ranks share one space.
#include <atomic>
#include <cstddef>
#include <string>

#include "measure/SweepPointRecord.hpp"

namespace ts {

class SweepSpace {
 public:
  virtual ~SweepSpace() = default;
  virtual size_t size() const = 0;
  // The points of one sweep whatever their values (the settings that change every result).
  virtual const std::string& sweep_key() const = 0;
  // What is evaluated at every point (a workload's operators, a model).
  virtual const std::string& workload_hash() const = 0;
  // {"NAME": value, ...}, keys sorted: a point's key in the store.
  virtual std::string parameters_json(size_t index) const = 0;
  // Throws MapperCancelled when `cancel` is set part way.
  virtual SweepPointRecord evaluate(size_t index,
                                    const std::atomic<bool>* cancel = nullptr) const = 0;
};

}  // namespace ts
