#pragma once
// Writing a host calibration: the graph with a header that says where every figure comes from,
// and the two mapping templates it names, beside it. Shared by `calibrate host` and the tests.
#include <string>

#include "host/HostCalibration.hpp"

namespace ts::host {

// The header comment of the written graph: command, date, CPU, topology, every measured figure
// (runs, median, spread) and the rules that turn them into the graph (docs/host.md).
std::string calibration_header(const HostCalibration& cal, const std::string& command);

struct CalibrationFiles {
  std::string graph;            // out_file
  std::string gemm_template;    // <stem>-gemm-template.yaml beside it
  std::string vector_template;  // <stem>-vector-template.yaml beside it
};

// Creates out_file's folder, writes the templates, then the graph (the loader checks that the
// templates exist, so they go first), each to a temporary file renamed over the target, so that
// a failure leaves no half-written file. Names the graph after out_file's stem and points its
// mapping_templates at the written templates (cal.graph is updated to what was written).
// Throws InputError naming the path on I/O failure.
CalibrationFiles write_host_calibration(HostCalibration& cal, const std::string& out_file,
                                        const std::string& command);

}  // namespace ts::host
