// Graph parameters by path (parse, get, set, errors) and the NLopt fit: synthetic measurements
// made on a graph with a changed value must lead the fit back to that value.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "calibrate/GraphParameter.hpp"
#include "calibrate/ParameterFit.hpp"
#include "correlate/CorrelationData.hpp"
#include "correlate/CorrelationFolds.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

ArchitectureGraph tiny() { return load_architecture(fixture("arch/tiny.yaml")); }

// Operators whose time on tiny.yaml (DRAM -> SRAM 50 GB/s shared, 4 PEs at 256 MAC/cycle) is
// set by the DRAM -> SRAM edge for the thin ones and by the PEs for the square one.
std::vector<Operator> fit_operators() {
  return {make_gemm("thin1", 4096, 8, 4096), make_gemm("thin2", 2048, 16, 2048),
          make_gemm("thin3", 1024, 32, 4096), make_gemm("thin4", 8192, 8, 1024),
          make_gemm("square", 512, 512, 512)};
}

// The mapper's choice for each operator on `chosen_on`, measured (predicted) on `truth`.
std::vector<FitSample> synthetic_samples(const ArchitectureGraph& chosen_on,
                                         const ArchitectureGraph& truth, TimingScope scope) {
  std::vector<FitSample> samples;
  for (const Operator& op : fit_operators()) {
    MappingProgram program;
    OperatorPredictionOptions options;
    options.mapper.budget = 5000;
    predict_operator(op, chosen_on, options, &program);
    samples.push_back(FitSample{op, concrete_mapping(program, op.name), scope, 0});
  }
  const std::vector<double> measured = predict_samples(truth, samples);
  for (size_t i = 0; i < samples.size(); ++i) samples[i].measured_s = measured[i];
  return samples;
}

}  // namespace

TEST_CASE("graph parameters: get and set by path", "[fit][parameter]") {
  ArchitectureGraph g = tiny();
  CHECK(parameter_value(g, "launch_overhead") == Approx(5e-6));
  CHECK(parameter_value(g, "clock") == Approx(1e9));
  CHECK(parameter_value(g, "edge:DRAM->SRAM.bandwidth") == Approx(50e9));
  CHECK(parameter_value(g, "edge:DRAM->SRAM.latency") == Approx(100));
  CHECK(parameter_value(g, "node:DRAM.read_bandwidth") == Approx(100e9));
  CHECK(parameter_value(g, "node:DRAM.write_bandwidth") == Approx(100e9));
  CHECK(parameter_value(g, "node:DRAM.bandwidth") == 0.0);  // no combined port in tiny.yaml

  const uint64_t before = g.content_hash();
  set_parameter_value(g, "edge:DRAM->SRAM.bandwidth", 35e9);
  CHECK(parameter_value(g, "edge:DRAM->SRAM.bandwidth") == Approx(35e9));
  CHECK(g.content_hash() != before);
  set_parameter_value(g, "node:DRAM.read_bandwidth", 80e9);
  CHECK(g.node(*g.find_node("DRAM")).read_port_bytes_per_s == Approx(80e9));
  set_parameter_value(g, "launch_overhead", 7e-6);
  CHECK(g.launch_overhead_s == Approx(7e-6));

  // The clock moves the nodes that run at it.
  set_parameter_value(g, "clock", 2e9);
  CHECK(g.clock_hz == Approx(2e9));
  for (const ArchNode& n : g.nodes) CHECK(n.clock_hz == Approx(2e9));
}

TEST_CASE("efficiency scales a compute node relative to its baseline", "[fit][parameter]") {
  ArchitectureGraph g = tiny();
  const GraphParameter p = parse_graph_parameter("node:PE.efficiency", g);
  CHECK(p.initial == Approx(1.0));
  CHECK(p.lower == Approx(0.25));
  CHECK(p.upper == Approx(1.0));  // a fraction of the baseline's peak
  REQUIRE(p.resolved.baseline_ops_per_cycle == std::vector<double>{256});
  set_parameter_value(g, p.resolved, 0.8);
  CHECK(g.node(*g.find_node("PE")).capabilities[0].ops_per_cycle == Approx(204.8));
  CHECK(parameter_value(g, p.resolved) == Approx(0.8));
  set_parameter_value(g, p.resolved, 0.5);  // relative to the baseline, not to the last value
  CHECK(parameter_value(g, p.resolved) == Approx(0.5));
  set_parameter_value(g, p.resolved, 1.0);
  CHECK(g.content_hash() == tiny().content_hash());
}

TEST_CASE("bounds in the parameter's unit", "[fit][parameter]") {
  const ArchitectureGraph g = tiny();
  const GraphParameter bw = parse_graph_parameter("edge:DRAM->SRAM.bandwidth=10GB/s:200GB/s", g);
  CHECK(bw.path == "edge:DRAM->SRAM.bandwidth");
  CHECK(bw.initial == Approx(50e9));
  CHECK(bw.lower == Approx(10e9));
  CHECK(bw.upper == Approx(200e9));
  // B/cycle counts cycles of the source node's clock (1 GHz).
  const GraphParameter per_cycle =
      parse_graph_parameter("edge:SRAM->PE.bandwidth=16B/cycle:1e12", g);
  CHECK(per_cycle.lower == Approx(16e9));
  CHECK(per_cycle.upper == Approx(1e12));
  const GraphParameter launch = parse_graph_parameter("launch_overhead=1us:20us", g);
  CHECK(launch.lower == Approx(1e-6));
  CHECK(launch.upper == Approx(20e-6));
  const GraphParameter latency = parse_graph_parameter("edge:DRAM->SRAM.latency=10ns:1000", g);
  CHECK(latency.lower == Approx(10));
  CHECK(latency.upper == Approx(1000));
  const GraphParameter clock = parse_graph_parameter("clock=500MHz:2GHz", g);
  CHECK(clock.lower == Approx(5e8));
  // Without bounds: a quarter to four times the current value.
  const GraphParameter plain = parse_graph_parameter("node:DRAM.read_bandwidth", g);
  CHECK(plain.lower == Approx(25e9));
  CHECK(plain.upper == Approx(400e9));
}

TEST_CASE("bad parameters name the text and what is valid", "[fit][parameter]") {
  const ArchitectureGraph g = tiny();
  const InputError form = input_error_of([&] { parse_graph_parameter("speed", g, "--fit"); });
  CHECK(form.where().file == "--fit");
  CHECK(form.where().line == 0);
  CHECK_THAT(form.message(), Catch::Contains("'speed'") && Catch::Contains("launch_overhead") &&
                                 Catch::Contains("edge:FROM->TO.bandwidth") &&
                                 Catch::Contains("node:NAME.efficiency"));
  const InputError edge =
      input_error_of([&] { parse_graph_parameter("edge:DRAM->PE.bandwidth", g); });
  CHECK(edge.where().file == "--param");
  CHECK_THAT(edge.message(), Catch::Contains("DRAM->SRAM") && Catch::Contains("SRAM->PE"));
  const InputError node = input_error_of([&] { parse_graph_parameter("node:HBM.bandwidth", g); });
  CHECK_THAT(node.message(), Catch::Contains("'HBM'") && Catch::Contains("DRAM, SRAM"));
  const InputError kind = input_error_of([&] { parse_graph_parameter("node:DRAM.efficiency", g); });
  CHECK_THAT(kind.message(), Catch::Contains("compute node") && Catch::Contains("PE"));
  const InputError field =
      input_error_of([&] { parse_graph_parameter("edge:DRAM->SRAM.width", g); });
  CHECK_THAT(field.message(),
             Catch::Contains("bandwidth, latency, reduction_latency or reduction_bandwidth"));
  const InputError zero = input_error_of([&] { parse_graph_parameter("node:SRAM.bandwidth", g); });
  CHECK_THAT(zero.message(), Catch::Contains("give bounds"));
  const InputError colon = input_error_of([&] { parse_graph_parameter("launch_overhead=1us", g); });
  CHECK_THAT(colon.message(), Catch::Contains("launch_overhead=1us") && Catch::Contains("`:`"));
  const InputError unit =
      input_error_of([&] { parse_graph_parameter("launch_overhead=1GHz:2GHz", g); });
  CHECK_THAT(unit.message(), Catch::Contains("'1GHz' is not a value"));
  const InputError order =
      input_error_of([&] { parse_graph_parameter("launch_overhead=5us:1us", g); });
  CHECK_THAT(order.message(), Catch::Contains("above the lower"));
  const InputError nonpositive =
      input_error_of([&] { parse_graph_parameter("launch_overhead=0:1us", g); });
  CHECK_THAT(nonpositive.message(), Catch::Contains("positive"));
}

TEST_CASE("predicted samples compare like with like", "[fit]") {
  const ArchitectureGraph g = tiny();
  std::vector<FitSample> samples = synthetic_samples(g, g, TimingScope::device);
  samples[1].scope = TimingScope::host_call;
  const std::vector<SamplePrediction> p = predict_samples_detailed(g, samples);
  REQUIRE(p[0].valid);
  CHECK(p[0].compared_s == Approx(p[0].device_s));
  CHECK(p[1].compared_s == Approx(p[1].device_s + 5e-6));
  CHECK(p[0].bound_by == "edge:DRAM->SRAM");
  // The fifth operator runs at the PE's pace: its compute or its operand stream bounds it.
  CHECK(p[4].bound_by.find("PE") != std::string::npos);
  // A sample that cannot be predicted counts the penalty in the objective.
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> predicted(samples.size(), 1.0);
  for (auto& s : samples) s.measured_s = 1.0;
  predicted[0] = inf;
  CHECK(mean_squared_log_error(predicted, samples) ==
        Approx(kInvalidSamplePenalty / static_cast<double>(samples.size())));
}

TEST_CASE("the fit recovers a changed bandwidth", "[fit]") {
  const ArchitectureGraph original = tiny();
  ArchitectureGraph truth = original;
  set_parameter_value(truth, "edge:DRAM->SRAM.bandwidth", 35e9);
  const std::vector<FitSample> samples = synthetic_samples(original, truth, TimingScope::device);
  const GraphParameter p = parse_graph_parameter("edge:DRAM->SRAM.bandwidth", original);
  const FitResult fit = fit_parameters(original, {p}, samples);
  INFO("fitted " << fit.values[0] << " B/s after " << fit.evaluations << " evaluations");
  CHECK(fit.values[0] == Approx(35e9).epsilon(0.03));
  CHECK(parameter_value(fit.graph, p.resolved) == Approx(fit.values[0]));
  CHECK(fit.initial_log_rmse > 0.1);
  CHECK(fit.final_log_rmse < 0.01);
  CHECK(fit.final_mape < fit.initial_mape);
  // Deterministic: the same fit twice gives the same value.
  CHECK(fit_parameters(original, {p}, samples).values[0] == fit.values[0]);
}

TEST_CASE("the fit recovers a bandwidth and the launch overhead together", "[fit]") {
  const ArchitectureGraph original = tiny();
  ArchitectureGraph truth = original;
  set_parameter_value(truth, "edge:DRAM->SRAM.bandwidth", 70e9);
  set_parameter_value(truth, "launch_overhead", 9e-6);
  const std::vector<FitSample> samples = synthetic_samples(original, truth, TimingScope::host_call);
  const std::vector<GraphParameter> params{
      parse_graph_parameter("edge:DRAM->SRAM.bandwidth=10GB/s:200GB/s", original),
      parse_graph_parameter("launch_overhead=1us:50us", original)};
  const FitResult fit = fit_parameters(original, params, samples);
  CHECK(fit.values[0] == Approx(70e9).epsilon(0.03));
  CHECK(fit.values[1] == Approx(9e-6).epsilon(0.03));
}

TEST_CASE("cross-validation predicts each fold with a fit that never saw it", "[fit][correlate]") {
  const ArchitectureGraph original = tiny();
  ArchitectureGraph truth = original;
  set_parameter_value(truth, "edge:DRAM->SRAM.bandwidth", 35e9);
  std::vector<FitSample> samples = synthetic_samples(original, truth, TimingScope::device);
  // Measurement noise of a fixed pattern, so that no parameter fits every sample.
  const double noise[] = {1.1, 0.92, 1.05, 0.97, 1.0};
  std::vector<ComparedPoint> points;
  for (size_t i = 0; i < samples.size(); ++i) {
    samples[i].measured_s *= noise[i];
    ComparedPoint pt;
    pt.op_name = samples[i].op.name;
    pt.op_class = "matmul";
    pt.flops = samples[i].op.total_flops();
    pt.measured_s = samples[i].measured_s;
    pt.scope = TimingScope::device;
    points.push_back(pt);
  }
  const GraphParameter p = parse_graph_parameter("edge:DRAM->SRAM.bandwidth", original);
  const CrossValidation cv = cross_validate(original, {p}, points, samples, 5, Grouping{});
  REQUIRE(cv.fold_results.size() == 5);
  for (const FoldResult& f : cv.fold_results) {
    CHECK(f.train_count == 4);
    CHECK(f.test_count == 1);
    CHECK(f.values[0] == Approx(35e9).epsilon(0.15));
  }
  for (const ComparedPoint& pt : cv.points) CHECK(std::isfinite(pt.predicted_s));
  const AgreementStats held_out = overall_agreement(cv.points);
  CHECK(held_out.count == 5);
  // Held-out error is not training error.
  CHECK(held_out.log_rmse.value() != Approx(cv.training.log_rmse.value()));
  CHECK_THROWS_AS(cross_validate(original, {p}, points, samples, 1, Grouping{}),
                  std::invalid_argument);
}

TEST_CASE("a results database: re-predicted, stored, read back and fitted", "[fit][db]") {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("tilescope-fit-db-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "results.sqlite").string();
  const ArchitectureGraph original = tiny();
  ArchitectureGraph truth = original;
  set_parameter_value(truth, "edge:DRAM->SRAM.bandwidth", 35e9);
  const std::vector<FitSample> synthetic = synthetic_samples(original, truth, TimingScope::device);
  {
    ResultStore store(path, ResultStore::Mode::read_write);
    RunStart start;
    start.collector = "test";
    start.workload = "fit-suite";
    start.device.name = "tiny";
    start.device.arch_hash = hash_text(original.content_hash());
    const int64_t run = store.begin_run(start);
    for (const FitSample& s : synthetic) {
      Measurement m;
      m.op = operator_key(s.op, "fit-suite");
      m.mapping = mapping_record(compile_mapping(s.mapping, s.op, original), s.op.name + "-tiles");
      m.implementation = "tiled";
      m.scope = TimingScope::device;
      m.repetitions = 5;
      m.min_ns = m.median_ns = s.measured_s * 1e9;
      m.checked = true;
      store.add_measurement(run, m);
    }
    // A black box measured alike (the mapper picks its mapping), and a result that disagreed
    // with its reference.
    Measurement box;
    box.op = operator_key(synthetic[0].op, "fit-suite");
    box.implementation = "library";
    box.scope = TimingScope::device;
    box.min_ns = box.median_ns = synthetic[0].measured_s * 1e9;
    box.checked = true;
    box.unstable = "machine busy: other processes used 1.50 of the 2 cores while it ran";
    store.add_measurement(run, box);
    box.unstable.clear();
    box.implementation = "broken";
    box.checked = false;
    store.add_measurement(run, box);
    store.finish_run(run, RunStatus::complete);
  }

  DbInputOptions options;
  options.path = path;
  options.graph = &original;
  options.store_predictions = true;
  options.with_samples = true;
  options.mapper.budget = 5000;  // as synthetic_samples: the same mapper choice
  const CorrelationInput in = db_input(options);
  REQUIRE(in.points.size() == synthetic.size() + 1);
  REQUIRE(in.samples.size() == in.points.size());
  CHECK(in.arch_hash == hash_text(original.content_hash()));
  CHECK_THAT(in.notes.front(),
             Catch::Contains("1 measurements") && Catch::Contains("checked = false"));
  CHECK_THAT(in.notes.back(), Catch::Contains("predictions stored under graph " + in.arch_hash));
  CHECK(in.points.back().mapping == "library");
  CHECK(in.points.front().mapping == "tiled/thin1-tiles");
  // The unstable black box is counted, and kept until asked otherwise.
  CHECK(in.unstable == 1);
  CHECK_FALSE(in.unstable_excluded);
  CHECK_THAT(in.notes[1], Catch::Contains("1 measurements are marked unstable") &&
                              Catch::Contains("machine busy") &&
                              Catch::Contains("--exclude-unstable"));

  // Without a graph, the predictions just stored are the run's (its device names that graph).
  DbInputOptions stored;
  stored.path = path;
  const CorrelationInput again = db_input(stored);
  REQUIRE(again.points.size() == in.points.size());
  for (size_t i = 0; i < in.points.size(); ++i)
    CHECK(again.points[i].predicted_s == Approx(in.points[i].predicted_s));
  DbInputOptions stable_only = stored;
  stable_only.exclude_unstable = true;
  const CorrelationInput stable = db_input(stable_only);
  CHECK(stable.points.size() == synthetic.size());
  CHECK(stable.unstable_excluded);
  CHECK(stable.points.back().mapping != "library");

  const GraphParameter p = parse_graph_parameter("edge:DRAM->SRAM.bandwidth", original);
  const FitResult fit = fit_parameters(original, {p}, in.samples);
  CHECK(fit.values[0] == Approx(35e9).epsilon(0.03));

  DbInputOptions missing_run = stored;
  missing_run.run = 42;
  const InputError e = input_error_of([&] { db_input(missing_run); });
  CHECK_THAT(e.message(), Catch::Contains("no run 42") && Catch::Contains("its runs: 1"));
  fs::remove_all(dir);
}

TEST_CASE("a fit refuses a measured time that is not a finite positive number", "[fit][refusals]") {
  // 1e308 us read from a table is inf s: the objective was NaN and a graph was written from
  // "MAPE -nan%". Refused before any evaluation, naming the operator.
  const ArchitectureGraph g = tiny();
  std::vector<FitSample> samples = synthetic_samples(g, g, TimingScope::device);
  const GraphParameter p = parse_graph_parameter("edge:DRAM->SRAM.bandwidth=10GB/s:200GB/s", g);
  for (const double bad : {std::numeric_limits<double>::infinity(),
                           std::numeric_limits<double>::quiet_NaN(), 0.0, -1e-6}) {
    INFO(bad);
    std::vector<FitSample> broken = samples;
    broken[2].measured_s = bad;
    const InputError e = input_error_of([&] { fit_parameters(g, {p}, broken, 20); });
    CHECK(e.message().find("'thin3'") != std::string::npos);
  }
}
