// A GPU's graph from its specification (core/profile/GpuSpec, GpuFamily, GpuGraph) and the
// calibrations applied on top (core/arch/GraphCalibration): rules fill what a spec leaves out and
// say where from, a given figure wins, bad input is an error at its file:line:col, a calibration
// round-trips and changes the figures it names, and the bundled graphs are exactly what their
// specs generate today (scripts/gpu-profiles regenerates them). Fixtures: tests/fixtures/gpu-spec.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "InputErrorCapture.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "arch/GraphCalibration.hpp"
#include "profile/GpuGraph.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;
namespace fs = std::filesystem;

namespace {

const std::string kRoot = TILESCOPE_SOURCE_DIR;

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const GpuFamily& nvidia() {
  static const GpuFamily f = load_gpu_family(kRoot + "/plugins/nvidia/family.yaml");
  return f;
}
const GpuFamily& amd() {
  static const GpuFamily f = load_gpu_family(kRoot + "/plugins/amd/family.yaml");
  return f;
}

// The L4 as its datasheet gives it, without shared memory per SM (the ada rule fills it).
const std::string kL4 = R"(version: 1
kind: gpu_spec
name: l4
product: NVIDIA L4
generation: ada
sms: 58
clock: 2040MHz
memory_bandwidth: 300GB/s
memory_capacity: 24GB
memory_type: GDDR6
l2: 48MiB
fp32: 30.3TFLOP/s
tensor: {fp16: 121TFLOP/s, bf16: 121TFLOP/s, tf32: 60TFLOP/s, fp8: 242.5TFLOP/s, int8: 242.5TOP/s}
sources:
  sms: "NVIDIA L4 datasheet (2023): 7,424 CUDA cores = 58 SMs x 128"
)";

GpuGraphOptions options_in(const std::string& folder, const GpuFamily& family,
                           const std::string& name) {
  GpuGraphOptions o;
  o.graph_file = folder + "/" + name + ".yaml";
  o.kernels_folder = family.kernels_folder;
  o.spec_label = name + ".spec.yaml";
  o.family_label = "the family";
  return o;
}

GeneratedGpu l4(const std::string& text = kL4, const GraphCalibration* calibration = nullptr) {
  GpuGraphOptions o = options_in(kRoot + "/plugins/nvidia/gpus", nvidia(), "l4");
  o.calibration = calibration;
  o.calibration_label = "test-calibration.yaml";
  return generate_gpu_graph(parse_gpu_spec(text, "l4.spec.yaml"), nvidia(), o);
}

const GpuFigure& figure(const GeneratedGpu& g, const std::string& name) {
  for (const GpuFigure& f : g.figures)
    if (f.figure == name) return f;
  FAIL("no figure " << name);
  throw std::logic_error("unreachable");
}

// The graph as the loader reads it, with its menus where they lie beside the bundled graphs.
ArchitectureGraph loaded(const GeneratedGpu& g, const std::string& folder) {
  return parse_architecture(g.graph_yaml, folder + "/" + g.graph_name + ".yaml");
}

}  // namespace

TEST_CASE("a rule fills a figure the spec leaves out and names its source", "[gpu-spec]") {
  const GeneratedGpu g = l4();
  CHECK(g.graph_name == "nvidia-l4");
  // Shared memory per SM: not in the spec, so the ada rule's 100 KiB, with the rule's source.
  const GpuFigure& smem = figure(g, "node:SMEM.capacity");
  CHECK(smem.value == "100KiB");
  CHECK_THAT(smem.provenance, Catch::StartsWith("rule: NVIDIA Ada tuning guide"));
  CHECK_THAT(g.graph_yaml, Catch::Contains("# rule (ada): NVIDIA Ada tuning guide"));
  // A figure no datasheet gives (the L2's bandwidth to the SMs) is derived from a rule.
  const GpuFigure& l2 = figure(g, "edge:L2->SMEM.bandwidth");
  CHECK_THAT(l2.provenance,
             Catch::StartsWith("rule: 47.41B/cycle per SM x 58 SMs x 2040MHz (assumed"));
  // fp32 lanes per SM from the fp32 rate: 30.3 TFLOP/s / (2 x 58 x 2.04 GHz) = 128.04 -> 128.
  const GpuFigure& fp32 = figure(g, "node:CUDACores matmul fp32 per cycle per SM");
  CHECK(fp32.value == "128");
  CHECK(fp32.provenance ==
        "given: fp32 30.3TFLOP/s / (2 x 58 SMs x 2040MHz) = 128.04, to a multiple of 16");
  // Tensor rates per cycle per SM: 121e12 / 2 / 58 / 2.04e9 = 511.3.
  CHECK(figure(g, "node:TensorCore matmul fp16 per cycle per SM").value == "511.3");
  // tf32 is the tensor cores' own type: plain fp32 stays on the CUDA cores.
  CHECK(figure(g, "node:TensorCore matmul tf32 granule").value == "[16, 8, 8]");
  // The spec as used lists the rule's figure, marked.
  CHECK_THAT(g.spec_yaml, Catch::Contains("shared_memory_per_sm: 100KiB") &&
                              Catch::Contains("# rule (ada): NVIDIA Ada tuning guide"));
  const GpuSpec back = parse_gpu_spec(g.spec_yaml, "as-used.spec.yaml");
  CHECK(back.figure("shared_memory_per_sm")->value == 100 * 1024);
  CHECK(back.sources.at("sms") == "NVIDIA L4 datasheet (2023): 7,424 CUDA cores = 58 SMs x 128");

  // The graph loads, and has what the figures say.
  const ArchitectureGraph graph = loaded(g, kRoot + "/plugins/nvidia/gpus");
  const auto smem_node = graph.find_node("SMEM");
  REQUIRE(smem_node);
  CHECK(graph.node(*smem_node).capacity_bytes == 100 * 1024);
  CHECK(graph.node(*smem_node).instances == 58);
  CHECK(graph.node(*smem_node).dynamic_dispatch);
  CHECK(graph.clock_hz == 2.04e9);
  CHECK(graph.launch_overhead_s == Approx(4e-6));
  const auto cuda = graph.find_node("CUDACores");
  REQUIRE(cuda);
  CHECK(graph.node(*cuda).min_kernel_time_s == Approx(2e-6));
  REQUIRE(graph.node(*cuda).declared_capability(OpClass::matmul, DataType::fp32));
  CHECK(graph.node(*cuda).declared_capability(OpClass::matmul, DataType::fp32)->ops_per_cycle ==
        128);
  CHECK(
      graph.node(*cuda).declared_capability(OpClass::elementwise, DataType::fp16)->ops_per_cycle ==
      128);  // Ada: fp16 at the fp32 rate
  CHECK(parameter_value(graph, "edge:DRAM->L2.bandwidth") == 300e9);
  CHECK(graph.operator_templates.at("gemm").size() == 17);  // 16 SIMT kernels and tensorcore-gemm
  CHECK(fs::path(graph.operator_templates.at("gemm").back()).filename() == "tensorcore-gemm.yaml");
}

TEST_CASE("a figure the spec gives wins over the rule", "[gpu-spec]") {
  std::string text = kL4 + "shared_memory_per_sm: 64KiB\nfp32_cores_per_sm: 96\n";
  const GeneratedGpu g = l4(text);
  CHECK(figure(g, "node:SMEM.capacity").value == "64KiB");
  CHECK(figure(g, "node:SMEM.capacity").provenance == "given");
  // Given lanes win over the fp32 rate, which then disagrees with them: a note says so.
  CHECK(figure(g, "node:CUDACores matmul fp32 per cycle per SM").value == "96");
  REQUIRE(g.notes.size() == 1);
  CHECK_THAT(g.notes[0], Catch::Contains("30.3TFLOP/s") && Catch::Contains("differ by 25.0 %"));
  // The spec's source is the comment of the given figure.
  CHECK_THAT(g.graph_yaml,
             Catch::Contains("# one per SM, sms: given: NVIDIA L4 datasheet (2023): 7,424 CUDA "
                             "cores = 58 SMs x 128\n    instances: 58"));
}

TEST_CASE("a spec without tensor rates has no tensor cores; Pascal's menus fall back",
          "[gpu-spec]") {
  const std::string p4 = read(kRoot + "/plugins/nvidia/gpus/p4.spec.yaml");
  GpuGraphOptions o = options_in(kRoot + "/plugins/nvidia/gpus", nvidia(), "p4");
  const GeneratedGpu g = generate_gpu_graph(parse_gpu_spec(p4, "p4.spec.yaml"), nvidia(), o);
  CHECK(g.graph_yaml.find("TensorCore") == std::string::npos);
  // The matmul menu's no_matrix kernel, not the tensor-core one.
  CHECK(figure(g, "mapping_templates.matmul").value == "sgemm-128x64");
  // fp16 on GP104 at 2 a cycle per SM, as given.
  CHECK(figure(g, "node:CUDACores elementwise fp16 per cycle per SM").value == "2");
  // A vendor's calibration serves every generation: its tensor-core entries are left out here.
  const GraphCalibration both = parse_calibration(
      "version: 1\nkind: calibration\nentries:\n  - {path: node:TensorCore.efficiency, factor: "
      "0.7}\n  - {path: node:CUDACores.efficiency, factor: 0.5}\n",
      "vendor.calibration.yaml");
  GpuGraphOptions calibrated = o;
  calibrated.calibration = &both;
  calibrated.calibration_label = "vendor.calibration.yaml";
  const GeneratedGpu c =
      generate_gpu_graph(parse_gpu_spec(p4, "p4.spec.yaml"), nvidia(), calibrated);
  CHECK(figure(c, "node:CUDACores matmul fp32 per cycle per SM").value == "64");
  REQUIRE(c.notes.size() == 1);
  CHECK_THAT(c.notes[0], Catch::Contains("node:TensorCore.efficiency (line 4) left out"));
  // A tensor rate for Pascal is refused at its line.
  const InputError e = input_error_of([&] {
    generate_gpu_graph(parse_gpu_spec(p4 + "tensor: {fp16: 10TFLOP/s}\n", "p4.spec.yaml"), nvidia(),
                       o);
  });
  CHECK(e.where().file == "p4.spec.yaml");
  CHECK(e.where().line > 20);
  CHECK_THAT(e.message(), Catch::Contains("pascal (nvidia) has no tensor cores"));
  // And a type the generation's tensor cores do not run, likewise.
  const InputError fp8 = input_error_of([&] {
    std::string t4 = read(kRoot + "/plugins/nvidia/gpus/t4.spec.yaml");
    t4.replace(t4.find("  int4: 260TOP/s"), 16, "  int4: 260TOP/s\n  fp8: 130TFLOP/s");
    generate_gpu_graph(parse_gpu_spec(t4, "t4.spec.yaml"), nvidia(), o);
  });
  CHECK_THAT(fp8.message(), Catch::Contains("a tensor rate for fp8, which the turing tensor cores "
                                            "do not run") &&
                                Catch::Contains("expected one of: fp16, int4, int8"));
}

TEST_CASE("bad specs are errors at their file:line:col", "[gpu-spec]") {
  struct Case {
    std::string file;
    int line, column;
    std::string message;
  };
  for (const Case& c :
       {Case{"unknown-key.spec.yaml", 8, 1, "unknown key 'memory_bandwith' in a gpu_spec"},
        Case{"bad-unit.spec.yaml", 7, 8,
             "expected a frequency for `clock` (the boost clock) such as `2040MHz`, got "
             "'2040MB/s'"},
        Case{"missing-sms.spec.yaml", 2, 1, "missing `sms`"}}) {
    INFO(c.file);
    const InputError e = input_error_of([&] { load_gpu_spec(fixture("gpu-spec/" + c.file)); });
    CHECK(e.where().file == fixture("gpu-spec/" + c.file));
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
    CHECK_THAT(e.message(), Catch::Contains(c.message));
  }
  // The generation is checked against the family's: at its line.
  const GpuSpec future = load_gpu_spec(fixture("gpu-spec/unknown-generation.spec.yaml"));
  const InputError e = input_error_of(
      [&] { generate_gpu_graph(future, nvidia(), options_in("/tmp", nvidia(), "future")); });
  CHECK(e.where().line == 6);
  CHECK(e.where().column == 13);
  CHECK_THAT(e.message(),
             Catch::Contains("unknown nvidia generation 'blackwell'; expected one of: pascal, "
                             "volta, turing, ampere, ada, hopper"));
  // An AMD spec on the NVIDIA rules: at its vendor.
  const GpuSpec mi210 = load_gpu_spec(kRoot + "/plugins/amd/gpus/mi210.spec.yaml");
  const InputError vendor = input_error_of(
      [&] { generate_gpu_graph(mi210, nvidia(), options_in("/tmp", nvidia(), "mi210")); });
  CHECK(vendor.where().line == 8);
  CHECK_THAT(vendor.message(), Catch::Contains("vendor 'amd' does not match"));
}

TEST_CASE("flags give figures with errors naming the flag", "[gpu-spec]") {
  GpuSpec spec;
  set_spec_figure(spec, "clock", "2.04GHz", {"--clock", 0, 0});
  CHECK(spec.figure("clock")->value == 2.04e9);
  set_spec_tensor_rates(spec, "fp16=121TFLOP/s,int8=242.5TOP/s", {"--tensor", 0, 0});
  CHECK(spec.tensor.at("int8").value == 242.5e12);
  const InputError bad = input_error_of([&] {
    set_spec_figure(spec, "sms", "58.5", {"--sms", 0, 0});
  });
  CHECK(bad.where().file == "--sms");
  CHECK_THAT(bad.message(), Catch::Contains("expected a positive whole number"));
  const InputError rate = input_error_of([&] {
    set_spec_tensor_rates(spec, "fp16=121TFLOPS", {"--tensor", 0, 0});
  });
  CHECK_THAT(rate.message(), Catch::Contains("such as `121TFLOP/s`"));
  spec.name = "x";
  spec.generation = "ada";
  const InputError missing = input_error_of([&] { check_complete_spec(spec, true); });
  CHECK(missing.where().file == "--sms");
  CHECK_THAT(missing.message(), Catch::Contains("`--sms 58`"));
}

TEST_CASE("a calibration reads back as written and changes the figures it names",
          "[gpu-spec][calibration]") {
  const std::string text = R"(version: 1
kind: calibration
name: test
description: "factors of a fit: test data"
fitted_by: tilescope fit --arch a.yaml --arch b.yaml
entries:
  - {path: node:CUDACores.efficiency, factor: 0.82}
  - {path: edge:DRAM->L2.bandwidth, factor: 0.75, note: fitted on five GPUs}
  - {path: launch_overhead, value: 23us}
  - {path: launch_overhead:gemm, value: 30us}
  - {path: node:TensorCore.min_kernel_time, value: 3us}
)";
  const GraphCalibration c = parse_calibration(text, "test.calibration.yaml");
  REQUIRE(c.entries.size() == 5);
  CHECK(c.entries[0].factor == 0.82);
  CHECK(c.entries[2].value == "23us");
  CHECK(c.entries[1].where.line == 8);
  CHECK(parse_calibration(calibration_yaml(c), "again.yaml") == c);

  // On a graph: relative entries scale the graph's own value, absolute ones set it.
  ArchitectureGraph graph = loaded(l4(), kRoot + "/plugins/nvidia/gpus");
  const std::vector<CalibrationChange> changes = apply_calibration(graph, c);
  REQUIRE(changes.size() == 5);
  CHECK(changes[1].before == 300e9);
  CHECK(changes[1].after == Approx(225e9));
  CHECK(parameter_value(graph, "edge:DRAM->L2.bandwidth") == Approx(225e9));
  CHECK(parameter_value(graph, "edge:L2->DRAM.bandwidth") == 300e9);  // not named: unchanged
  const auto cuda = graph.find_node("CUDACores");
  CHECK(graph.node(*cuda).declared_capability(OpClass::matmul, DataType::fp32)->ops_per_cycle ==
        Approx(128 * 0.82));
  CHECK(graph.launch_overhead_s == Approx(23e-6));
  CHECK(graph.launch_overhead_for("gemm") == Approx(30e-6));
  CHECK(parameter_value(graph, "node:TensorCore.min_kernel_time") == Approx(3e-6));

  // The generator writes both values of every figure the calibration changes.
  const GeneratedGpu g = l4(kL4, &c);
  CHECK_THAT(g.graph_yaml,
             Catch::Contains("0.75 x 300GB/s (given); 0.75 fitted: calibration "
                             "test-calibration.yaml\n  - {from: DRAM, to: L2, bandwidth: 225GB/s"));
  CHECK_THAT(g.graph_yaml, Catch::Contains("launch_overhead: 23us") &&
                               Catch::Contains("launch_overheads:\n") &&
                               Catch::Contains("  gemm: 30us\n"));
  CHECK(figure(g, "node:CUDACores matmul fp32 per cycle per SM").value == "104.96");
  CHECK_THAT(figure(g, "edge:DRAM->L2.bandwidth").provenance,
             Catch::Contains("calibration: 0.75 (test-calibration.yaml)"));
  const ArchitectureGraph generated = loaded(g, kRoot + "/plugins/nvidia/gpus");
  CHECK(parameter_value(generated, "edge:DRAM->L2.bandwidth") == Approx(225e9));
  CHECK(generated.launch_overhead_for("gemm") == Approx(30e-6));
}

TEST_CASE("a calibration's bad entries are errors at their line", "[gpu-spec][calibration]") {
  // A path the graph lacks: at the entry, naming the path and the graph's edges.
  const GraphCalibration wrong =
      load_calibration(fixture("gpu-spec/unknown-path.calibration.yaml"));
  ArchitectureGraph graph = loaded(l4(), kRoot + "/plugins/nvidia/gpus");
  const InputError e = input_error_of([&] { apply_calibration(graph, wrong); });
  CHECK(e.where().file == fixture("gpu-spec/unknown-path.calibration.yaml"));
  CHECK(e.where().line == 7);
  CHECK_THAT(e.message(),
             Catch::Contains("'edge:HBM->L2.bandwidth'") && Catch::Contains("DRAM->L2"));
  // The generator reports it the same way.
  const InputError via = input_error_of([&] { l4(kL4, &wrong); });
  CHECK(via.where().line == 7);

  struct Case {
    std::string entry, message;
    int column;
  };
  for (const Case& c : {Case{"{path: node:SMEM.instances, factor: 2}", "is a count", 12},
                        Case{"{path: node:SMEM, factor: 2}", "is not a graph parameter path", 12},
                        Case{"{path: clock, factor: 0.9, value: 1GHz}", "not both", 5},
                        Case{"{path: clock}", "not neither", 5},
                        Case{"{path: clock, factor: -1}", "expected a positive number", 27},
                        Case{"{path: clock, factor: 0.9, scale: 2}", "unknown key 'scale'", 32}}) {
    INFO(c.entry);
    const InputError bad = input_error_of([&] {
      parse_calibration("version: 1\nkind: calibration\nentries:\n  - " + c.entry + "\n", "c.yaml");
    });
    CHECK(bad.where().line == 4);
    CHECK(bad.where().column == c.column);
    CHECK_THAT(bad.message(), Catch::Contains(c.message));
  }
  // An absolute value of the wrong unit: at apply time, naming an example.
  const GraphCalibration unit = parse_calibration(
      "version: 1\nkind: calibration\nentries:\n  - {path: launch_overhead, value: 3GB/s}\n",
      "c.yaml");
  const InputError u = input_error_of([&] { apply_calibration(graph, unit); });
  CHECK(u.where().line == 4);
  CHECK_THAT(u.message(), Catch::Contains("'3GB/s' for 'launch_overhead' is not a value in s"));
}

TEST_CASE("bundled GPU graphs are what their specs generate", "[gpu-spec]") {
  // What scripts/gpu-profiles runs (`profiles new gpu --spec S --graph G` from the source root),
  // with the same labels: a graph that differs was edited by hand or not regenerated after a
  // change to its spec, its family's rules or its calibration.
  size_t checked = 0;
  for (const char* vendor : {"nvidia", "amd"}) {
    const std::string folder = std::string("plugins/") + vendor;
    const GpuFamily& family = std::string(vendor) == "nvidia" ? nvidia() : amd();
    std::optional<GraphCalibration> calibration;
    if (fs::exists(kRoot + "/" + folder + "/calibration.yaml"))
      calibration = load_calibration(kRoot + "/" + folder + "/calibration.yaml");
    for (const auto& entry : fs::directory_iterator(kRoot + "/" + folder + "/gpus")) {
      const std::string spec_file = entry.path().string();
      if (!spec_file.ends_with(".spec.yaml")) continue;
      const std::string graph_file = spec_file.substr(0, spec_file.size() - 10) + ".yaml";
      INFO(graph_file);
      GpuGraphOptions o;
      o.graph_file = graph_file;
      o.kernels_folder = family.kernels_folder;
      o.spec_label = entry.path().filename().string();
      o.family_label = folder + "/family.yaml (bundled)";
      if (calibration) {
        o.calibration = &*calibration;
        o.calibration_label = folder + "/calibration.yaml (bundled)";
      }
      const GeneratedGpu g = generate_gpu_graph(load_gpu_spec(spec_file), family, o);
      REQUIRE(fs::exists(graph_file));
      CHECK(read(graph_file) == g.graph_yaml);
      // Every bundled graph loads once its family's kernel templates exist.
      bool kernels = true;
      for (const std::string& k : g.kernels) kernels = kernels && fs::exists(family.kernel_file(k));
      if (kernels)
        CHECK(load_architecture(graph_file).name == g.graph_name);
      else
        WARN(graph_file << ": not loaded, the " << vendor << " kernel templates are not all there");
      ++checked;
    }
  }
  CHECK(checked == 14);
}
