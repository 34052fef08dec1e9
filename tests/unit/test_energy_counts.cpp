// Access counts as Timeloop counts them and the energy they price (analysis/AccessCounts,
// analysis/Energy; issue 39), worked by hand on a GEMM C[M,N] += A[M,K] x B[K,N] of M=4, N=2,
// K=6 (48 multiply-accumulates) in int16, on DRAM -> Buffer -> MAC:
//   DRAM    read 100, write 100, update 100 pJ a word
//   Buffer  read 1, write 2, update 2 pJ a word, leak 0.1 pJ a cycle, 1000 um^2
//   MAC     0.5 pJ an operation, 400 um^2
// The op keeps no operand (keep: false): one Buffer read per MAC per operand, as Timeloop counts
// at its innermost level.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/Prediction.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

std::string graph_yaml(bool multicast, int macs) {
  return std::string(R"(version: 1
kind: architecture
name: two-level
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1MiB, energy: {read: 100pJ, write: 100pJ, update: 100pJ}}
  - {name: Buffer, type: memory, capacity: 1KiB, leak: 0.1pJ, area: 1000um^2,
     energy: {read: 1pJ, write: 2pJ, update: 2pJ}}
  - name: MAC
    type: compute
    instances: )") +
         std::to_string(macs) + R"(
    area: 400um^2
    operations: [{class: matmul, dtype: int16, ops_per_cycle: 1, energy_per_op: 0.5pJ}]
edges:
  - {from: DRAM, to: Buffer, bandwidth: 64B/cycle}
  - {from: Buffer, to: DRAM, bandwidth: 64B/cycle}
  - {from: Buffer, to: MAC, bandwidth: 64B/cycle)" +
         (multicast ? ", multicast: true" : "") + R"(}
  - {from: MAC, to: Buffer, bandwidth: 64B/cycle}
)";
}

std::string mapping_yaml(const std::string& dram_loops, const std::string& buffer_loops,
                         const std::string& spatial = "") {
  return R"(version: 1
kind: mapping
name: two-level
tree:
  tile: DRAM
  temporal: )" +
         dram_loops + R"(
  children:
    - tile: Buffer
      temporal: )" +
         buffer_loops + (spatial.empty() ? "" : "\n      spatial: " + spatial) + R"(
      children:
        - op: MAC
          factors: {M: 1, N: 1, K: 1}
          keep: {A: false, B: false, C: false}
)";
}

struct Case {
  Prediction prediction;
  const MemoryAccesses& at(const std::string& memory, const std::string& tensor) const {
    for (const MemoryAccesses& a : prediction.accesses)
      if (a.memory == memory && a.tensor == tensor) return a;
    FAIL("no accesses of " << tensor << " at " << memory);
    throw std::logic_error("unreachable");
  }
};

Case predict(const std::string& graph, const std::string& mapping) {
  const ArchitectureGraph g = parse_architecture(graph, "two-level.yaml");
  const Operator op = make_gemm("g", 4, 2, 6, DataType::int16);
  const Mapping m = parse_mapping(mapping, "two-level-mapping.yaml");
  OperatorPredictionOptions o;
  o.mapping = &m;
  return Case{predict_operator(op, g, o)};
}

}  // namespace

TEST_CASE("a two-level GEMM: reads, fills and updates per level worked by hand, and energy",
          "[energy]") {
  // (a) DRAM loops M2 then K2 (K innermost); the Buffer tile is A 2x3, B 3x2, C 2x2.
  const Case a = predict(graph_yaml(false, 1), mapping_yaml("{M: 2, K: 2}", "{N: 2, K: 3, M: 2}"));
  // A: both DRAM loops index it: 4 tiles of 6 words filled. B: the inner K2 indexes it, so the
  // outer M2 refetches it: 4 x 6 again. C: K2, innermost, does not index it: it stays in the
  // Buffer across K and is drained once per M tile (2 x 4 = 8 words); never filled back.
  CHECK(a.at("Buffer", "A").fills == Approx(24));
  CHECK(a.at("Buffer", "B").fills == Approx(24));
  CHECK(a.at("Buffer", "C").fills == 0);
  // One read per MAC per operand; 48 updates of C, 40 of them read-modify-writes (each of the 8
  // elements is updated 6 times; its first update reads nothing).
  CHECK(a.at("Buffer", "A").reads == Approx(48));
  CHECK(a.at("Buffer", "B").reads == Approx(48));
  CHECK(a.at("Buffer", "C").updates == Approx(48));
  CHECK(a.at("Buffer", "C").reads == Approx(40));
  // DRAM serves the fills and takes the 8 drained words, each written once: no read of C.
  CHECK(a.at("DRAM", "A").reads == Approx(24));
  CHECK(a.at("DRAM", "B").reads == Approx(24));
  CHECK(a.at("DRAM", "C").updates == Approx(8));
  CHECK(a.at("DRAM", "C").reads == 0);

  // Energy = counts x energies + leakage x time:
  //   Buffer (48 + 48 + 40) x 1 + 48 x 2 + 48 x 2 = 328 pJ, plus 0.1 pJ x cycles
  //   DRAM   48 x 100 + 8 x 100 = 5600 pJ;  MAC 48 x 0.5 = 24 pJ
  const EnergyReport& e = a.prediction.energy;
  REQUIRE(e.known);
  const double cycles = a.prediction.device_us * 1e-6 * 1e9;
  REQUIRE(cycles > 0);
  CHECK(e.total_j * 1e12 == Approx(5600 + 328 + 24 + 0.1 * cycles));
  for (const NodeEnergy& n : e.nodes) {
    if (n.name == "DRAM") CHECK(n.total_j() * 1e12 == Approx(5600));
    if (n.name == "Buffer") {
      CHECK(n.reads_j * 1e12 == Approx(136));
      CHECK(n.fills_j * 1e12 == Approx(96));
      CHECK(n.updates_j * 1e12 == Approx(96));
      CHECK(n.leak_j * 1e12 == Approx(0.1 * cycles));
    }
    if (n.name == "MAC") CHECK(n.compute_j * 1e12 == Approx(24));
  }
  REQUIRE(e.area_m2);
  CHECK(*e.area_m2 * 1e12 == Approx(1400));  // 1000 + 400 um^2; DRAM gives no area
  CHECK(e.unpriced.empty());

  // (b) The DRAM loops the other way round (M innermost): B stays across M (2 x 6 = 12 filled),
  // and C leaves the Buffer between the K steps: 16 words drained, the 8 of the second K step
  // filled back as partial sums. DRAM is updated 16 times and reads the 8 partial sums it sends
  // back; it adds nothing itself, so no update of it reads first.
  const Case b = predict(graph_yaml(false, 1), mapping_yaml("{K: 2, M: 2}", "{N: 2, K: 3, M: 2}"));
  CHECK(b.at("Buffer", "B").fills == Approx(12));
  CHECK(b.at("Buffer", "A").fills == Approx(24));
  CHECK(b.at("Buffer", "C").fills == Approx(8));
  CHECK(b.at("DRAM", "C").updates == Approx(16));
  CHECK(b.at("DRAM", "C").reads == Approx(8));
  // The Buffer's C: 48 updates; 16 residencies, 8 of which began with a fill: 48 - 16 + 8.
  CHECK(b.at("Buffer", "C").reads == Approx(40));
}

TEST_CASE("multicast reads once for a group of units", "[energy]") {
  // Two MACs split N; the Buffer -> MAC edge multicasts: each A element both MACs need is read
  // once (48 -> 24); B and C differ per MAC: unchanged.
  const std::string mapping = mapping_yaml("{M: 2, K: 2}", "{K: 3, M: 2}", "{N: 2}");
  const Case unicast = predict(graph_yaml(false, 2), mapping);
  const Case multicast = predict(graph_yaml(true, 2), mapping);
  CHECK(unicast.at("Buffer", "A").reads == Approx(48));
  CHECK(multicast.at("Buffer", "A").reads == Approx(24));
  CHECK(multicast.at("Buffer", "B").reads == Approx(48));
  CHECK(multicast.at("Buffer", "C").updates == Approx(48));
  CHECK(multicast.prediction.energy.total_j < unicast.prediction.energy.total_j);
}

TEST_CASE("a graph without energy figures predicts as before and says energy is unknown",
          "[energy]") {
  std::string graph = graph_yaml(false, 1);
  for (const std::string key :
       {", energy: {read: 100pJ, write: 100pJ, update: 100pJ}", " leak: 0.1pJ,",
        ",\n     energy: {read: 1pJ, write: 2pJ, update: 2pJ}", ", energy_per_op: 0.5pJ"}) {
    const size_t at = graph.find(key);
    REQUIRE(at != std::string::npos);
    graph.erase(at, key.size());
  }
  const Case plain = predict(graph, mapping_yaml("{M: 2, K: 2}", "{N: 2, K: 3, M: 2}"));
  CHECK_FALSE(plain.prediction.energy.known);
  CHECK_FALSE(plain.prediction.energy.partial);
  CHECK(plain.at("Buffer", "A").reads == Approx(48));  // the counts do not need energies

  // Only the unit's energy given (as a GPU profile gives it for its power cap): a partial sum,
  // the memories named as unpriced, no total.
  std::string unit_only = graph;
  const std::string rate = "ops_per_cycle: 1}";
  unit_only.replace(unit_only.find(rate), rate.size(), "ops_per_cycle: 1, energy_per_op: 0.5pJ}");
  const Case partial = predict(unit_only, mapping_yaml("{M: 2, K: 2}", "{N: 2, K: 3, M: 2}"));
  CHECK_FALSE(partial.prediction.energy.known);
  CHECK(partial.prediction.energy.partial);
  CHECK(
      partial.prediction.energy.unpriced ==
      std::vector<std::string>{"memory 'Buffer' has no `energy`", "memory 'DRAM' has no `energy`"});
}

TEST_CASE("energy and area keys: bad values are errors at the key, and they survive a write",
          "[energy][arch]") {
  const std::string good = graph_yaml(false, 1);
  auto error_of = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    try {
      parse_architecture(text, "g.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    FAIL("no error for " << to);
    return std::string();
  };
  CHECK(error_of("{read: 100pJ, write: 100pJ, update: 100pJ}", "{read: 100pJ}")
            .find("missing `write`") != std::string::npos);
  CHECK(error_of("area: 1000um^2", "area: -3um^2").find("expected an area") != std::string::npos);
  CHECK(error_of("area: 1000um^2", "area: 3 acres").find("g.yaml:") != std::string::npos);
  CHECK(error_of("leak: 0.1pJ", "leak: 0.1pW").find("expected an energy") != std::string::npos);
  CHECK(error_of("    area: 400um^2", "    area: 400um^2\n    energy: {read: 1pJ, write: 1pJ}")
            .find("applies to memory nodes only") != std::string::npos);

  const ArchitectureGraph g = parse_architecture(good, "g.yaml");
  const ArchitectureGraph again =
      parse_architecture(architecture_yaml(g, "", "again.yaml"), "again.yaml");
  CHECK(again.content_hash() == g.content_hash());
  const ArchNode& buffer = again.node(*again.find_node("Buffer"));
  REQUIRE(buffer.energy);
  CHECK(buffer.energy->update_j == Approx(2e-12));
  REQUIRE(buffer.area_m2);
  CHECK(*buffer.area_m2 == Approx(1000e-12));
  // A graph without them keeps the hash it had: the keys are hashed only when given.
  CHECK(parse_architecture(good, "g.yaml").content_hash() != 0);
}

TEST_CASE("the A100's HBM edges price its traffic, and the total stays unknown", "[energy]") {
  // samples/arch/nvidia-a100.yaml gives 3.97 pJ/bit on both HBM edges (O'Connor et al., MICRO
  // 2017) and no on-chip energies: the edges' energy is their bytes x 31.76 pJ, the rest unpriced.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100.yaml");
  const Operator op = make_gemm("g", 2048, 2048, 2048, DataType::fp16);
  const Prediction p = predict_operator(op, g, OperatorPredictionOptions{});
  double hbm_bytes = 0;
  for (const EdgeTraffic& t : p.traffic)
    if (t.edge == "HBM->L2" || t.edge == "L2->HBM") hbm_bytes += t.bytes;
  // A, B read and C written at least once: 3 x 2048^2 x 2 B.
  CHECK(hbm_bytes >= 3.0 * 2048 * 2048 * 2);
  CHECK(p.energy.edges_j == Approx(hbm_bytes * 31.76e-12).epsilon(1e-9));
  CHECK_FALSE(p.energy.known);
  CHECK(p.energy.partial);
  CHECK_FALSE(p.energy.unpriced.empty());
  // HBM is priced by its edges (every edge touching it has a figure), so it is not listed.
  for (const std::string& u : p.energy.unpriced) CHECK(u.find("'HBM'") == std::string::npos);
}
