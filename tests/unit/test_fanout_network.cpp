// The fan-out network between a buffer and the instances below it, worked by hand on a PE array
// written as one compute node with 16 (or 4) instances under a global buffer GB: multicast of an
// operand along the array dimensions that do not index it, and partial sums of a K split over the
// array summed in the network (chain, tree) or in GB (read-modify-write), against no key.
// 1 GHz: one cycle is one nanosecond. A PE does 1024 fp16 MACs a cycle in granules of 1, so its
// compute never bounds: every figure below is a transfer.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

struct ArrayGraph {
  int pes = 16;
  std::string gb = "";  // extra keys of GB, e.g. ", read_bandwidth: 32B/cycle"
  std::string down_bw = "64B/cycle";
  std::string down = "";  // extra keys of GB -> PE (or RF), e.g. ", multicast: true"
  std::string up_bw = "64B/cycle";
  std::string up = "";  // extra keys of PE (or RF) -> GB, e.g. ", reduction: memory"
  // A register file per PE (RF, 1 KiB, as many instances) between GB and the PEs, reached over
  // the edges above; RF <-> PE at 1000000 B/cycle.
  bool rf = false;
};

// GB (1 MiB) <-> PE (`pes` instances); both edges one pool shared by the PEs (a bus), so that
// k readers at once each get a k-th of it.
std::string array_graph(const ArrayGraph& a) {
  const std::string pes = std::to_string(a.pes);
  const std::string below = a.rf ? "RF" : "PE";
  std::string text =
      "version: 1\nkind: architecture\nname: array\nclock: 1GHz\nnodes:\n"
      "  - {name: GB, type: memory, capacity: 1MiB" +
      a.gb + "}\n";
  if (a.rf) text += "  - {name: RF, type: memory, capacity: 1KiB, instances: " + pes + "}\n";
  text += "  - name: PE\n    type: compute\n    instances: " + pes +
          "\n    operations:\n"
          "      - {class: matmul, dtype: fp16, ops_per_cycle: 1024, granule: [1, 1, 1]}\n"
          "edges:\n  - {from: GB, to: " +
          below + ", bandwidth: " + a.down_bw + ", sharing: shared" + a.down +
          "}\n  - {from: " + below + ", to: GB, bandwidth: " + a.up_bw + ", sharing: shared" +
          a.up + "}\n";
  if (a.rf)
    text +=
        "  - {from: RF, to: PE, bandwidth: 1000000B/cycle}\n"
        "  - {from: PE, to: RF, bandwidth: 1000000B/cycle}\n";
  return text;
}

// GB holds the whole GEMM and spreads it over the PEs; each PE reads its operands straight from
// GB and writes its result back, or through its RF when `rf`.
std::string array_mapping(const std::string& spatial, const std::string& factors, bool rf) {
  const std::string text = "version: 1\nkind: mapping\nname: m\ntree:\n  tile: GB\n  spatial: {" +
                           spatial + "}\n  children:\n";
  if (rf)
    return text + "    - tile: RF\n      children:\n        - op: PE\n          factors: {" +
           factors + "}\n";
  return text + "    - op: PE\n      factors: {" + factors + "}\n";
}

struct Result {
  double cycles = 0;
  double down_bytes = 0, up_bytes = 0;  // GB -> PE, PE -> GB
  double read_back_bytes = 0;           // partials GB reads back
  double reported_read_back = -1;       // the same in the prediction's traffic, -1 when absent
};

Result run(const ArrayGraph& a, int64_t m, int64_t n, int64_t k, const std::string& spatial,
           const std::string& factors) {
  const ArchitectureGraph g = parse_architecture(array_graph(a), "array.yaml");
  const Operator op = make_gemm("g", m, n, k);
  const MappingProgram p =
      compile_mapping(parse_mapping(array_mapping(spatial, factors, a.rf), "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  const NodeId gb = *g.find_node("GB");
  const NodeId pe = *g.find_node(a.rf ? "RF" : "PE");
  Result r{e.device_s * g.clock_hz, e.edge_bytes[g.edge_between(gb, pe).index()],
           e.edge_bytes[g.edge_between(pe, gb).index()], e.read_back_bytes[gb.index()], -1};
  for (const EdgeTraffic& t : make_prediction(p, analysis_result(p, e)).traffic)
    if (t.edge == "GB->GB (read back)") r.reported_read_back = t.bytes;
  return r;
}

}  // namespace

TEST_CASE("an operand multicast along the array dimension that does not index it",
          "[analysis][fanout]") {
  SECTION("spread over M and N: A is shared along N, B along M") {
    // GEMM 4 x 4 x 64 fp16 over 4 x 4 PEs, each a 1 x 1 x 64 call: A 1 x 64 = 128 B, B 64 x 1 =
    // 128 B, C 2 B. 16 PEs read at once over the 64 B/cycle bus.
    // - Without multicast each PE reads its own: 16 users, 4 B/cycle each, (128 + 128) / 4 = 64
    //   cycles. GB -> PE carries every read: A 16 x 128 + B 16 x 128 = 4096 B (= 64 cycles of
    //   the bus, the operator-wide floor agrees).
    // - With multicast the 4 PEs of a row (along N) need the same A: one read per row, 4 users,
    //   16 B/cycle, 128 / 16 = 8 cycles; B likewise along M: 8. (8 + 8) = 16 cycles, and the bus
    //   carries 4 x 128 + 4 x 128 = 1024 B.
    const Result plain = run({}, 4, 4, 64, "M: 4, N: 4", "M: 1, N: 1, K: 64");
    const Result shared =
        run({.down = ", multicast: true"}, 4, 4, 64, "M: 4, N: 4", "M: 1, N: 1, K: 64");
    CHECK(plain.cycles == Approx(64.0));
    CHECK(plain.down_bytes == Approx(4096.0));
    CHECK(shared.cycles == Approx(16.0));
    CHECK(shared.down_bytes == Approx(1024.0));
  }
  SECTION("spread over N only: B, indexed by N, is not multicast") {
    // GEMM 1 x 16 x 64 over 16 PEs along N. A (1 x 64, 128 B) is the same for all 16: one
    // read, 1 user, 64 B/cycle: 2 cycles. B's 64 x 1 column (128 B) differs per PE: 16 users,
    // 4 B/cycle, 32 cycles. Together on the bus: 34 (64 without multicast). The bus carries A
    // once (128 B) and B's 2048 B: 2176 B (4096 without).
    const Result plain = run({}, 1, 16, 64, "N: 16", "M: 1, N: 1, K: 64");
    const Result shared =
        run({.down = ", multicast: true"}, 1, 16, 64, "N: 16", "M: 1, N: 1, K: 64");
    CHECK(plain.cycles == Approx(64.0));
    CHECK(plain.down_bytes == Approx(4096.0));
    CHECK(shared.cycles == Approx(34.0));
    CHECK(shared.down_bytes == Approx(2176.0));
  }
  SECTION("only the instances busy at once share a read") {
    // The same 16 parts along N on 4 PEs: 4 waves of 4. In a wave A is read once for the 4
    // (128 / 64 = 2 cycles) and B by each (4 users, 16 B/cycle, 128 / 16 = 8): 10 a wave, 40 in
    // all. A crosses the bus once a wave: 4 x 128 + B's 2048 = 2560 B (40 cycles of bus).
    const Result shared =
        run({.pes = 4, .down = ", multicast: true"}, 1, 16, 64, "N: 16", "M: 1, N: 1, K: 64");
    CHECK(shared.cycles == Approx(40.0));
    CHECK(shared.down_bytes == Approx(2560.0));
  }
}

TEST_CASE("a K split over the array: partial sums summed in the network or in the memory",
          "[analysis][fanout]") {
  // GEMM 16 x 16 x 4 fp16 over 4 (N) x 4 (K) PEs, each a 16 x 4 x 1 call: A 16 x 1 = 32 B,
  // B 1 x 4 = 8 B, C 16 x 4 = 128 B. The 4 PEs along K make partial sums of the same C block:
  // R = 4. GB -> PE is a fast bus (1024 B/cycle) but GB's read port gives 32 B/cycle, 2 B/cycle
  // to each of 16 PEs: reading A and B takes 40 / 2 = 20 cycles. PE -> GB: 64 B/cycle.
  // Over the operator GB reads A (512 B, once per N column) and B (128 B): 640 B.
  ArrayGraph a{.gb = ", read_bandwidth: 32B/cycle", .down_bw = "1024B/cycle"};
  auto with_up = [&](const std::string& up) {
    ArrayGraph b = a;
    b.up = up;
    return run(b, 16, 16, 4, "N: 4, K: 4", "M: 16, N: 4, K: 1");
  };
  SECTION("no key: every partial is stored on its own") {
    // 16 writers at 4 B/cycle: 128 / 4 = 32 cycles. 16 x 128 = 2048 B cross PE -> GB.
    const Result r = with_up("");
    CHECK(r.cycles == Approx(32.0));
    CHECK(r.up_bytes == Approx(2048.0));
    CHECK(r.read_back_bytes == 0);
    CHECK(r.reported_read_back == -1);
  }
  SECTION("a chain network: one store per group of 4, after R-1 hops") {
    // 4 groups write at once: 16 B/cycle each, 128 / 16 = 8 cycles, under the reads' 20. The
    // last partial crosses 3 hops of 2 cycles: 6 exposed once. 20 + 6 = 26; 512 B cross.
    const Result r = with_up(
        ", reduction: network, reduction_topology: chain, "
        "reduction_latency: 2");
    CHECK(r.cycles == Approx(26.0));
    CHECK(r.up_bytes == Approx(512.0));
  }
  SECTION("an adder tree: ceil(log2 4) = 2 levels") {
    // 20 + 2 x 2 = 24.
    const Result r = with_up(
        ", reduction: network, reduction_topology: tree, "
        "reduction_latency: 2");
    CHECK(r.cycles == Approx(24.0));
    CHECK(r.up_bytes == Approx(512.0));
  }
  SECTION("a reduction network slower than the edge") {
    // The summed stream at 8 B/cycle, 2 B/cycle to each of 4 groups: 128 / 2 = 64 cycles, + 6.
    const Result r = with_up(
        ", reduction: network, reduction_topology: chain, "
        "reduction_latency: 2, reduction_bandwidth: 8B/cycle");
    CHECK(r.cycles == Approx(70.0));
  }
  SECTION("summed in GB: every partial arrives, 3 of 4 read the previous one back") {
    // Writes as with no key: 32 cycles, 2048 B. Each PE's store reads back 3/4 x 128 = 96 B
    // through GB's read port beside its 40 B of operands: (40 + 96) / 2 = 68 cycles. Over the
    // operator GB reads back 3/4 x 2048 = 1536 B; with the operands, (640 + 1536) / 32 = 68.
    const Result r = with_up(", reduction: memory");
    CHECK(r.cycles == Approx(68.0));
    CHECK(r.up_bytes == Approx(2048.0));
    CHECK(r.read_back_bytes == Approx(1536.0));
    CHECK(r.reported_read_back == Approx(1536.0));
  }
}

TEST_CASE("multicast and reduction for a child tile's loads and stores", "[analysis][fanout]") {
  // The same array with a 1 KiB register file per PE: GB spreads RF tiles, each loads its
  // operands over GB -> RF, runs one PE call (64 MACs at 1024 a cycle: 0.0625 cycles; RF <-> PE
  // is far faster) and stores its result over RF -> GB. Single-buffered: load + call + store.
  SECTION("multicast of the loads") {
    // 4 x 4 x 64 over 4 x 4 RFs: A and B 128 B each, C 2 B. Without multicast 16 RFs load at
    // 4 B/cycle: 256 / 4 = 64; with it A and B each reach a group of 4: 16 B/cycle, 16. C goes
    // out at 4 B/cycle: 0.5. 64 + 0.0625 + 0.5 = 64.5625; 16 + 0.0625 + 0.5 = 16.5625.
    const Result plain = run({.rf = true}, 4, 4, 64, "M: 4, N: 4", "M: 1, N: 1, K: 64");
    const Result shared =
        run({.down = ", multicast: true", .rf = true}, 4, 4, 64, "M: 4, N: 4", "M: 1, N: 1, K: 64");
    CHECK(plain.cycles == Approx(64.5625));
    CHECK(shared.cycles == Approx(16.5625));
    CHECK(plain.down_bytes == Approx(4096.0));
    CHECK(shared.down_bytes == Approx(1024.0));
  }
  SECTION("a K split reduced on the way up or in GB") {
    // 16 x 16 x 4 over 4 (N) x 4 (K) RFs: A 32 B and B 8 B in through GB's 32 B/cycle read
    // port (2 B/cycle each of 16): 20 cycles. C's 128 B out.
    ArrayGraph a{.gb = ", read_bandwidth: 32B/cycle", .down_bw = "1024B/cycle", .rf = true};
    auto with_up = [&](const std::string& up) {
      ArrayGraph b = a;
      b.up = up;
      return run(b, 16, 16, 4, "N: 4, K: 4", "M: 16, N: 4, K: 1");
    };
    // No key: 16 writers at 4 B/cycle, 32: 20 + 0.0625 + 32 = 52.0625.
    CHECK(with_up("").cycles == Approx(52.0625));
    // Chain: 4 groups at 16 B/cycle, 8, plus 3 hops of 2 cycles paid with the store (no double
    // buffer): 20 + 0.0625 + 14 = 34.0625; a tree's 2 levels: 32.0625. 512 B cross RF -> GB.
    const Result chain = with_up(
        ", reduction: network, reduction_topology: chain, "
        "reduction_latency: 2");
    CHECK(chain.cycles == Approx(34.0625));
    CHECK(chain.up_bytes == Approx(512.0));
    CHECK(with_up(", reduction: network, reduction_topology: tree, reduction_latency: 2").cycles ==
          Approx(32.0625));
    // In GB: the store reads back 96 B through the read port beside the 40 B loaded, 136 B at
    // 2 B/cycle = 68 cycles for load and store together: the store stretches to 68 - 20 = 48.
    // 20 + 0.0625 + 48 = 68.0625. GB reads back 1536 B over the operator.
    const Result memory = with_up(", reduction: memory");
    CHECK(memory.cycles == Approx(68.0625));
    CHECK(memory.up_bytes == Approx(2048.0));
    CHECK(memory.read_back_bytes == Approx(1536.0));
  }
}
