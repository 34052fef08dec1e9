#pragma once
// `tilescope import csv`: a table of measured latencies, one shape per row (CsvMeasurements:
// `M,N,K,measured_us` for gemm), into the results database as one run. A table says neither
// what it timed nor on what, so the timing scope is required (correlate compares like with
// like) and the operator class names the shape columns. Each row becomes one measurement whose
// minimum and median are its latency (one figure, no spread); a table carries no check against a
// reference, so its rows are stored as checked.
#include "trace/Importer.hpp"

namespace ts {

// Options: `op` (operator class, required), `scope` (device or host_call, required), `dtype`
// (fp16), `suite` (the operators' suite; default the file's stem), `implementation` (csv),
// `device` (the device's name; unknown).
class CsvImporter final : public Importer {
 public:
  std::string name() const override { return "csv"; }
  std::string reads() const override {
    return "a table of measured latencies, one shape per row (M,N,K,measured_us for gemm)";
  }
  std::vector<ImporterOption> options() const override;
  Sniff sniff(std::string_view first_line) const override;
  ImportResult import(const ImportRequest& request) const override;
};

}  // namespace ts
