#pragma once
// Measured kernels of several devices in one table (a `device` column, as the NeuSight tables
// have it), each device's rows predicted on its own graph: what `fit --graph DEVICE=ARCH ...`
// fits one calibration to and cross-validates, leaving one device out at a time.
#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/SharedParameterFit.hpp"
#include "correlate/CorrelationData.hpp"

namespace ts {

// A device of the table and the graph that stands for it (its specification, not fitted).
struct DeviceGraph {
  std::string device;  // as the table names it: "Tesla P4"
  std::string arch_file;
  ArchitectureGraph graph;
};

struct DeviceMeasurementsOptions {
  std::vector<std::string> paths;  // tables; each row's class is its own (`op` column)
  std::vector<DeviceGraph> devices;
  // At most this many rows of each device and operator type, taken evenly through the table in
  // its order (0: every row), so that a fit over 170,000 kernels takes minutes, not hours.
  size_t per_type_limit = 0;
  DataType dtype = DataType::fp32;  // for tables that do not say (NeuSight rows are fp32)
  TimingScope scope = TimingScope::host_call;
  MapperOptions mapper;
  InputProgress progress;
};

// Per sample of a GraphSamples, what the reports need beside the sample itself.
struct SampleFacts {
  std::string op_type;          // the row's operator type (batched_gemm, linear, add, ...)
  std::string measured_kernel;  // the kernel the library ran, as the table names it
  std::string chosen_kernel;    // the template the mapper took (its mapping's name)
  int line = 0;
};

struct DeviceMeasurements {
  std::vector<GraphSamples> graphs;             // one per device, in the order given
  std::vector<std::vector<SampleFacts>> facts;  // per graph, per sample
  std::vector<std::string> notes;  // rows left out (other devices, unmappable), sampling
  std::string source;
};

// The class a report groups an operator type under: gemm (gemm, batched_gemm, linear),
// elementwise (add, mul, gelu, relu, bias, scale, mask), softmax, layernorm, or the type itself.
std::string operator_group(const std::string& op_type);

// Reads the tables, keeps the rows of the given devices (a device of the table without a graph is
// named in a note; a --graph device the tables lack is an InputError; with one device, the rows
// of a table that names none are its), samples them, and maps every kept row on its device's
// graph with the mapper. Each sample's objective group is its operator type.
DeviceMeasurements device_measurements(const DeviceMeasurementsOptions& options);

}  // namespace ts
