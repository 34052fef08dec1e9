#include "correlate/DeviceMeasurements.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "common/NameList.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "trace/CsvMeasurements.hpp"

namespace ts {
namespace {

struct Row {
  size_t graph = 0;
  const CsvShapeMeasurement* m = nullptr;
};

// At most `limit` of `n` indices, evenly spread (all when limit is 0 or n <= limit).
std::vector<size_t> evenly(size_t n, size_t limit) {
  std::vector<size_t> out;
  if (limit == 0 || n <= limit) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (size_t k = 0; k < limit; ++k) out.push_back(k * n / limit);
  return out;
}

}  // namespace

std::string operator_group(const std::string& op_type) {
  if (op_type == "gemm" || op_type == "batched_gemm" || op_type == "linear") return "gemm";
  for (const char* t : {"add", "mul", "gelu", "relu", "bias", "scale", "mask"})
    if (op_type == t) return "elementwise";
  return op_type;
}

DeviceMeasurements device_measurements(const DeviceMeasurementsOptions& options) {
  DeviceMeasurements out;
  std::vector<std::vector<CsvShapeMeasurement>> tables;
  size_t total_rows = 0;
  for (const std::string& path : options.paths) {
    tables.push_back(read_shape_measurements(path, kOpClassByRow, options.dtype));
    total_rows += tables.back().size();
    out.source +=
        fmt::format("{}{} ({} rows)", out.source.empty() ? "" : ", ", path, tables.back().size());
  }
  std::map<std::string, size_t> graph_of;
  for (size_t g = 0; g < options.devices.size(); ++g) {
    if (!graph_of.emplace(options.devices[g].device, g).second)
      throw InputError(SourceLocation{"--graph", 0, 0},
                       fmt::format("device '{}' is given twice", options.devices[g].device));
  }
  // Rows per graph and operator type, in table order.
  std::vector<std::map<std::string, std::vector<const CsvShapeMeasurement*>>> by_type(
      options.devices.size());
  std::map<std::string, size_t> other_devices;
  // A table that names no device (tilescope's own format) is of the one device given, if one is.
  const bool one_device = options.devices.size() == 1;
  for (const auto& table : tables)
    for (const CsvShapeMeasurement& m : table) {
      if (m.device.empty() && one_device) {
        by_type[0][m.op_type].push_back(&m);
        continue;
      }
      const auto it = graph_of.find(m.device);
      if (it == graph_of.end()) {
        ++other_devices[m.device.empty() ? std::string("(none)") : m.device];
        continue;
      }
      by_type[it->second][m.op_type].push_back(&m);
    }
  for (size_t g = 0; g < options.devices.size(); ++g)
    if (by_type[g].empty()) {
      std::vector<std::string> seen;
      for (const auto& [device, n] : other_devices) seen.push_back(device);
      throw InputError(SourceLocation{"--graph", 0, 0},
                       fmt::format("no row of device '{}' in {}; its devices: {}",
                                   options.devices[g].device, out.source, join_names(seen)));
    }
  for (const auto& [device, n] : other_devices)
    out.notes.push_back(
        fmt::format("{} rows of device '{}' left out: no --graph names it", n, device));

  std::vector<Row> rows;
  size_t sampled_out = 0;
  for (size_t g = 0; g < by_type.size(); ++g)
    for (const auto& [type, list] : by_type[g]) {
      const std::vector<size_t> kept = evenly(list.size(), options.per_type_limit);
      sampled_out += list.size() - kept.size();
      for (size_t i : kept) rows.push_back(Row{g, list[i]});
    }
  if (sampled_out > 0)
    out.notes.push_back(fmt::format(
        "{} rows kept of {} ({} of each device and operator type at most, evenly through the "
        "table)",
        rows.size(), rows.size() + sampled_out, options.per_type_limit));

  struct Mapped {
    std::optional<Mapping> mapping;
    std::string kernel, error;
  };
  std::vector<Mapped> mapped(rows.size());
  std::atomic<size_t> done{0};
  std::mutex progress_mutex;
  OperatorPredictionOptions predict;
  predict.mapper = options.mapper;
  predict.mapper.parallel = false;  // rows in parallel instead: many small searches
  tbb::parallel_for(size_t{0}, rows.size(), [&](size_t i) {
    const Row& r = rows[i];
    try {
      MappingProgram program;
      const Prediction p =
          predict_operator(r.m->op, options.devices[r.graph].graph, predict, &program);
      mapped[i].mapping = concrete_mapping(program, r.m->op.name + "-mapper");
      mapped[i].kernel = p.mapping_name;
    } catch (const InputError& e) {
      mapped[i].error = e.message();
    }
    const size_t n = ++done;
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      options.progress(n, rows.size());
    }
  });

  out.graphs.resize(options.devices.size());
  out.facts.resize(options.devices.size());
  for (size_t g = 0; g < options.devices.size(); ++g) {
    out.graphs[g].label = options.devices[g].device;
    out.graphs[g].graph = options.devices[g].graph;
  }
  std::vector<size_t> failed(options.devices.size(), 0);
  std::vector<std::string> first_error(options.devices.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    if (!mapped[i].mapping) {
      if (failed[r.graph]++ == 0)
        first_error[r.graph] = fmt::format("line {}: {}", r.m->line, mapped[i].error);
      continue;
    }
    GraphSamples& g = out.graphs[r.graph];
    g.samples.push_back(FitSample{r.m->op, *mapped[i].mapping, r.m->scope.value_or(options.scope),
                                  r.m->measured_s});
    g.groups.push_back(r.m->op_type);
    out.facts[r.graph].push_back(
        SampleFacts{r.m->op_type, r.m->kernel, mapped[i].kernel, r.m->line});
  }
  for (size_t g = 0; g < options.devices.size(); ++g)
    if (failed[g] > 0)
      out.notes.push_back(fmt::format("{} rows of '{}' could not be mapped on '{}' (first: {})",
                                      failed[g], options.devices[g].device,
                                      options.devices[g].graph.name, first_error[g]));
  return out;
}

}  // namespace ts
