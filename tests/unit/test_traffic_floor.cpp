// The traffic floor the mapper prunes with (traffic_floor): the operator-wide bytes through each
// shared edge and memory port over its bandwidth, worked out by hand on tiny_arch, and never
// above what `evaluate` returns for random mappings of the bundled graphs.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "analysis/MappingWriter.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/Mapper.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using namespace ts::test;

namespace {

MappingProgram concrete(const std::string& tree, const Operator& op, const ArchitectureGraph& g) {
  return compile_mapping(
      parse_mapping("version: 1\nkind: mapping\nname: c\ntree:\n" + tree, "c.yaml"), op, g);
}

}  // namespace

TEST_CASE("the traffic floor is the whole operator's bytes over the shared edges", "[mapper]") {
  // tiny_arch: DRAM->SRAM and SRAM->DRAM are shared, 64 B a cycle at 1 GHz (64 B/ns); no memory
  // has a port of its own. A 64x64x64 fp16 GEMM: A, B and C are 8 KiB each.
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 64, 64, 64);

  // Four SRAM instances take M = 64 as 4 x 16, each the whole of N and K. A and C split into
  // quarters (8 KiB in, 8 KiB out); B is indexed by no spread dimension, so each of the four
  // reads all of it (32 KiB; the edge does not multicast). In: 40 KiB = 40960 B / 64 B/ns =
  // 640 ns; out: 8192 / 64 = 128 ns. The floor is the larger, 640 ns.
  const MappingProgram whole_n = concrete(
      dram_sram_pe("", "M: 4", "double_buffer: true", "M: 2, N: 8, K: 16", "M: 8, N: 8, K: 4"), op,
      g);
  AnalysisScratch e;
  CHECK(traffic_floor(whole_n, e) == Approx(640e-9).epsilon(1e-12));
  AnalysisScratch full;
  CHECK(evaluate(whole_n, full) >= 640e-9 * (1 - 1e-12));

  // The same with N and K each split in two at DRAM, K innermost: every (N, K) step refills
  // A's 16x32 quarter-tile, so A crosses twice (16 KiB); B's 32x32 tiles are all distinct per
  // instance (still 4 x 8 KiB); C stays put over K and is stored once per N step (8 KiB).
  // In: 48 KiB = 49152 / 64 = 768 ns; out 128 ns. The floor is 768 ns.
  const MappingProgram split_k = concrete(
      "  tile: DRAM\n  temporal: {N: 2, K: 2}\n  order: [N, K]\n  spatial: {M: 4}\n"
      "  children:\n    - tile: SRAM\n      double_buffer: true\n"
      "      temporal: {M: 2, N: 4, K: 8}\n      children:\n        - op: PE\n"
      "          factors: {M: 8, N: 8, K: 4}\n",
      op, g);
  CHECK(traffic_floor(split_k, e) == Approx(768e-9).epsilon(1e-12));
  CHECK(evaluate(split_k, full) >= 768e-9 * (1 - 1e-12));
}

TEST_CASE("the traffic floor is below every sampled mapping of the bundled graphs", "[mapper]") {
  // The property the pruning rests on: a point skipped because its floor is above the best
  // could not have won. Graphs with shared HBM edges, per-memory ports (Eyeriss, the systolic
  // arrays), multicast and reduction in the network; a compute-bound and a skinny GEMM and the
  // first operators of bert-base (batched GEMM, softmax).
  Workload bert = load_workload(std::string(TILESCOPE_SAMPLES) + "/workloads/bert-base.yaml");
  std::vector<Operator> ops{make_gemm("g", 512, 768, 256), make_gemm("skinny", 16, 1024, 4096)};
  for (size_t k = 0; k < 4 && k < bert.operators.size(); ++k) ops.push_back(bert.operators[k]);
  for (const char* arch :
       {"ascend910b3", "nvidia-h100", "nvidia-h200", "systolic-16x16", "systolic-os-16x16",
        "systolic-ws-pe-16x16", "eyeriss-12x14", "mesh-4x4"}) {
    ArchitectureGraph g =
        load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/" + arch + ".yaml");
    int above_zero = 0, sampled = 0;
    for (const Operator& op : ops) {
      INFO(arch << " " << op.name);
      // Every way of settling the template's free buffers (mesh-4x4 keeps or bypasses each).
      for (const Mapping& settled : buffer_choices(default_template(op, g))) {
        MappingProgram tmpl;
        try {
          tmpl = compile_mapping(settled, op, g, true);
        } catch (const InputError&) {
          continue;  // no unit of this graph runs the operator's class
        }
        AnalysisScratch scratch;
        for (const MappingProgram& p : sample_valid_mappings(tmpl, 60, 23)) {
          AnalysisScratch e;
          INFO(mapping_yaml(p, "sampled", ""));
          const double floor = traffic_floor(p, scratch);
          CHECK(evaluate(p, e) >= floor);
          above_zero += floor > 0;
          ++sampled;
        }
      }
    }
    INFO(arch);
    CHECK(sampled > 0);
    CHECK(above_zero > 0);  // the floor says something on every graph
  }
}
