// `tilescope predict`: every operator's device time, launch overhead, bound and traffic.
#include "PredictCommand.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "TerminalProgress.hpp"
#include "analysis/ForwardPass.hpp"
#include "analysis/MappingWriter.hpp"
#include "analysis/PredictionJson.hpp"
#include "analysis/TimePerToken.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/AtomicFile.hpp"
#include "common/CsvField.hpp"
#include "common/OutputPath.hpp"
#include "common/WorkThreads.hpp"
#include "mapper/SearchConvergence.hpp"
#include "profile/ArchitectureReference.hpp"
#include "report/WorkloadPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

void print_forward_pass(const ForwardPass& pass) {
  std::cout << fmt::format(
      "forward pass ({}, {} tokens, {} kernels): {:.3f} us device time (+ {:.3f} us launch "
      "overhead)\n",
      pass.phase, pass.tokens_per_pass, pass.kernels, pass.device_s * 1e6, pass.launch_s * 1e6);
  std::cout << fmt::format("time per token: {:.3f} us   tokens per second: {:.1f}\n",
                           pass.time_per_token_s * 1e6, pass.tokens_per_s);
  std::cout << fmt::format("  {:<18}  {:>7}  {:>12}  {:>6}  {:>12}  {}\n", "operator type",
                           "kernels", "device_us", "share", "offchip_MB", "bound_by (longest)");
  for (const OperatorClassTime& c : pass.classes)
    std::cout << fmt::format("  {:<18}  {:>7}  {:>12.3f}  {:>5.1f}%  {:>12.2f}  {}\n", c.type,
                             c.kernels, c.device_s * 1e6, 100.0 * c.device_s / pass.device_s,
                             c.bytes / 1e6, c.bound_by);
}

void print_table(const std::vector<Prediction>& rows, const ArchitectureGraph& g, const Workload& w,
                 bool explain) {
  size_t name_w = 8, shape_w = 5, bound_w = 8;
  for (const auto& r : rows) {
    name_w = std::max(name_w, r.op_name.size());
    shape_w = std::max(shape_w, r.shape.size());
    bound_w = std::max(bound_w, r.bound_by.size());
  }
  std::cout << fmt::format("{} on {} ({} operators)\n", w.name, g.name, rows.size());
  const std::string main_memory = main_memory_of(g);
  std::cout << fmt::format(
      "{:<{}}  {:<{}}  {:>12}  {:>9}  {:>14}  {:<{}}  {:>6}  {:>12}  {:<9}  {}\n", "operator",
      name_w, "shape", shape_w, "latency_us", "launch_us", "cycles", "bound_by", bound_w, "util",
      main_memory + "_MB", "search", "mapping");
  double total = 0;
  // An operator with `count: N` (a workload written from a trace) runs N times in the total.
  std::map<std::string, int64_t> runs_of;
  for (const Operator& op : w.operators) runs_of[op.name] = op.count;
  for (const auto& r : rows) {
    const auto runs = runs_of.find(r.op_name);
    total += (r.device_us + r.launch_overhead_us) *
             static_cast<double>(runs == runs_of.end() ? 1 : runs->second);
    // Off-chip traffic: bytes in and out of the graph's largest memory (HBM, DRAM).
    double offchip = 0;
    for (const auto& t : r.traffic) {
      const auto arrow = t.edge.find("->");
      if (t.edge.substr(0, arrow) == main_memory || t.edge.substr(arrow + 2) == main_memory)
        offchip += t.bytes;
    }
    // Whether the mapper's search converged ("budget": it was still improving when it ran out).
    const char* search = !r.searched ? "-" : r.search_converged ? "converged" : "budget";
    std::cout << fmt::format(
        "{:<{}}  {:<{}}  {:>12.3f}  {:>9.2f}  {:>14.0f}  {:<{}}  {:>5.1f}%  {:>12}  {:<9}  {}\n",
        r.op_name, name_w, r.shape, shape_w, r.device_us, r.launch_overhead_us, r.cycles,
        r.bound_by, bound_w, r.utilization * 100.0, fmt::format("{:.2f}", offchip / 1e6), search,
        r.mapping_origin);
    if (explain) {
      std::cout << r.explain;
      for (const auto& t : r.traffic)
        std::cout << fmt::format("    traffic {:<16} {:>14.0f} B\n", t.edge, t.bytes);
      for (const auto& m : r.residency)
        std::cout << fmt::format("    resident {:<8} {:>12.0f} of {:.0f} B per instance\n",
                                 m.memory, m.bytes_per_instance, m.capacity_bytes);
      for (const auto& a : r.accesses)
        std::cout << fmt::format(
            "    accesses {:<8} {:<6} reads {:>12.0f}  fills {:>12.0f}  updates {:>12.0f} words\n",
            a.memory, a.tensor, a.reads, a.fills, a.updates);
      for (const std::string& u : r.energy.unpriced)
        std::cout << "    energy unknown: " << u << "\n";
      if (r.energy.known) {
        for (const NodeEnergy& n : r.energy.nodes)
          std::cout << fmt::format(
              "    energy {:<10} {:>12.1f} pJ  (reads {:.1f}, fills {:.1f}, updates {:.1f}, "
              "compute {:.1f}, leak {:.1f})\n",
              n.name, n.total_j() * 1e12, n.reads_j * 1e12, n.fills_j * 1e12, n.updates_j * 1e12,
              n.compute_j * 1e12, n.leak_j * 1e12);
        if (r.energy.edges_j > 0)
          std::cout << fmt::format("    energy {:<10} {:>12.1f} pJ\n", "edges",
                                   r.energy.edges_j * 1e12);
      }
      std::cout << "\n";
    }
  }
  std::cout << fmt::format("total (device + launch): {:.3f} us\n", total);
  // Energy only where the graph gives its figures (docs/energy.md); nothing is made up.
  double energy_j = 0;
  bool known = !rows.empty();
  for (const auto& r : rows) {
    known = known && r.energy.known;
    const auto runs = runs_of.find(r.op_name);
    energy_j += r.energy.total_j * static_cast<double>(runs == runs_of.end() ? 1 : runs->second);
  }
  if (known) {
    std::cout << fmt::format("energy: {:.6g} uJ", energy_j * 1e6);
    if (!rows.front().energy.area_m2)
      std::cout << "; area unknown (no node gives one)";
    else
      std::cout << fmt::format("; area {:.6g} mm^2", *rows.front().energy.area_m2 * 1e6);
    std::cout << "\n";
  }
}

}  // namespace

int run_predict(const PredictOptions& a) {
  ArchitectureGraph graph = load_architecture(resolve_architecture_option(a.arch));
  LlmPassOverride pass_override;
  if (!a.phase.empty())
    pass_override.phase = a.phase == "decode" ? LlmPhase::decode : LlmPhase::prefill;
  if (a.batch > 0) pass_override.batch = a.batch;
  if (a.context > 0) pass_override.context = a.context;
  if (a.tokens > 0) pass_override.tokens = a.tokens;
  Workload workload = load_workload(a.workload, pass_override);
  std::optional<Mapping> mapping;
  if (!a.mapping.empty()) mapping = load_mapping(a.mapping);

  std::string only = a.op;
  if (mapping && only.empty()) {
    only = mapping->op_name;
    if (only.empty() && workload.operators.size() == 1) only = workload.operators.front().name;
    if (only.empty())
      throw InputError(SourceLocation{a.mapping, 1, 1},
                       "this mapping names no `operator:`; say which operator it maps with --op");
  }
  std::vector<const Operator*> ops;
  for (const auto& op : workload.operators)
    if (only.empty() || op.name == only) ops.push_back(&op);
  if (ops.empty()) {
    std::string names;
    for (const auto& op : workload.operators) names += (names.empty() ? "" : ", ") + op.name;
    // Named by the mapping file: the error belongs at its `operator:` line.
    const bool from_mapping = mapping && a.op.empty();
    throw InputError(from_mapping ? mapping->op_where : SourceLocation{a.workload, 0, 0},
                     fmt::format("no operator '{}' in workload '{}' (its operators: {})", only,
                                 workload.name, names));
  }
  // --save-mappings DIR writes DIR/<graph>-<suite>-<op>.yaml. The grammar has checked DIR
  // itself; the files in it are named only now, and none may be a file this command reads.
  const auto saved_file = [&](const Operator& op) {
    const std::string name = graph.name + "-" + workload.name + "-" + op.name;
    return (std::filesystem::path(a.save_mappings) / (safe_file_name(name) + ".yaml")).string();
  };
  if (!a.save_mappings.empty())
    for (const Operator* op : ops)
      refuse_output_over_inputs(
          {"--save-mappings", saved_file(*op)},
          {{"--arch", a.arch}, {"--workload", a.workload}, {"--mapping", a.mapping}});
  OperatorPredictionOptions options;
  options.mapping = mapping ? &*mapping : nullptr;
  options.mapper.budget = a.budget;
  const std::optional<MapperObjective> objective = parse_mapper_objective(a.objective);
  if (!objective)
    throw InputError(SourceLocation{"--objective", 0, 0},
                     fmt::format("'{}' is not an objective (latency, energy or edp)", a.objective));
  options.mapper.objective = *objective;
  // Progress on a terminal only, so that pipes and CI logs stay clean. Ctrl-C needs no handler:
  // nothing is written before every operator has been predicted.
  TerminalProgress progress("predict");
  std::vector<MappingProgram> programs;
  SuitePrediction suite;
  run_with_threads(a.threads, [&] {
    suite = predict_operators(
        ops, graph, options,
        [&](size_t done, size_t total, const Operator& next) {
          if (total > 1)
            progress.show_count(done, total, fmt::format("[{}/{}] {}", done + 1, total, next.name));
        },
        &programs);
  });
  const std::vector<Prediction>& rows = suite.operators;
  std::vector<std::pair<std::string, std::string>> saved;  // written only once all succeeded
  for (size_t i = 0; i < rows.size() && !a.save_mappings.empty(); ++i) {
    const Operator* op = ops[i];
    const std::string name = graph.name + "-" + workload.name + "-" + op->name;
    saved.emplace_back(
        saved_file(*op),
        mapping_yaml(programs[i], name,
                     fmt::format("{} ({}) of {} on {}: {:.3f} us device time, bound by {}.\n"
                                 "Chosen by the tilescope mapper ({}).",
                                 op->name, op->shape_text(), workload.name, graph.name,
                                 rows[i].device_us, rows[i].bound_by, rows[i].mapping_origin)));
  }
  progress.clear();
  // A search cut short by its budget may have missed a faster mapping: say so whatever the
  // format, on stderr so that JSON and CSV on stdout stay clean; one line per operator, beside
  // its row in the `search` column.
  for (const std::string& op : suite.unconverged.operators)
    std::cerr << unconverged_warning({op}, a.budget);
  if (!saved.empty()) {
    std::filesystem::create_directories(a.save_mappings);
    write_files_atomically(saved);
  }

  // A whole pass of a model: only when every operator was predicted.
  std::optional<ForwardPass> pass;
  if (workload.tokens_per_pass > 0 && rows.size() == workload.operators.size())
    pass = forward_pass(workload, rows, main_memory_of(graph));
  // How many times each row's operator runs (`count:`, a workload written from a trace): the
  // JSON and CSV say it per row, so that their totals agree with the table's.
  std::vector<int64_t> counts;
  for (const Operator* op : ops) counts.push_back(op->count);
  if (a.format == "json") {
    std::cout << prediction_json(rows, graph, workload.name, a.explain, pass ? &*pass : nullptr,
                                 counts)
              << "\n";
  } else if (a.format == "csv") {
    std::cout << "name,type,shape,latency_us,launch_overhead_us,cycles,bound_by,utilization,"
                 "mapping,count\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Prediction& r = rows[i];
      std::cout << fmt::format("{},{},{},{:.6f},{:.3f},{:.0f},{},{:.6f},{},{}\n",
                               csv_field(r.op_name), r.op_type, csv_field(r.shape), r.device_us,
                               r.launch_overhead_us, r.cycles, r.bound_by, r.utilization,
                               csv_field(r.mapping_origin), counts[i]);
    }
  } else {
    print_table(rows, graph, workload, a.explain);
    if (pass) print_forward_pass(*pass);
  }
  return 0;
}

}  // namespace ts::cli
