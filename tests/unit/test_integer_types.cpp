// Integer GEMMs, worked by hand: int8 operands with int32 partial sums in the buffer the unit
// writes, and int16 (2 bytes). 1 GHz: one cycle is one nanosecond.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

// DRAM <-> BUF at 64 B/cycle, BUF <-> PE at 1024 B/cycle; the PE's compute never bounds.
const char* kGraph = R"(version: 1
kind: architecture
name: integer
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: BUF, type: memory, capacity: 64KiB}
  - name: PE
    type: compute
    operations:
      - {class: matmul, dtype: int8, ops_per_cycle: 1000000, granule: [1, 1, 1], accumulator: int32}
      - {class: matmul, dtype: int16, ops_per_cycle: 1000000, granule: [1, 1, 1]}
edges:
  - {from: DRAM, to: BUF, bandwidth: 64B/cycle}
  - {from: BUF, to: DRAM, bandwidth: 64B/cycle}
  - {from: BUF, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: BUF, bandwidth: 1024B/cycle}
)";

// One BUF tile of the whole 64 x 64 x 64 GEMM, one PE call: load, call, store in turn.
const char* kTree = R"(version: 1
kind: mapping
name: m
tree:
  tile: DRAM
  children:
    - tile: BUF
      children:
        - op: PE
          factors: {M: 64, N: 64, K: 64}
)";

struct Result {
  double cycles = 0, buf_bytes = 0, in_bytes = 0, out_bytes = 0;
};

Result run(DataType dtype) {
  static const ArchitectureGraph g = parse_architecture(kGraph, "integer.yaml");
  const Operator op = make_gemm("g", 64, 64, 64, dtype);  // the program points at it
  const MappingProgram p = compile_mapping(parse_mapping(kTree, "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  const NodeId dram = *g.find_node("DRAM"), buf = *g.find_node("BUF");
  Result r{e.device_s * 1e9, 0, e.edge_bytes[g.edge_between(dram, buf).index()],
           e.edge_bytes[g.edge_between(buf, dram).index()]};
  for (size_t k = 0; k < p.memories.size(); ++k)
    if (p.memories[k] == buf) r.buf_bytes = e.memory_usage[k];
  return r;
}

}  // namespace

TEST_CASE("an int8 GEMM with int32 accumulation and an int16 GEMM", "[analysis][dtype]") {
  SECTION("int8, partial sums at int32 in BUF") {
    // A and B are 64 x 64 x 1 B = 4 KiB each: 8 KiB in at 64 B/cycle, 128 cycles. The PE reads
    // them at 1024 B/cycle (8) and writes C (4 KiB at the operator's int8) in 4: the call is 8.
    // C leaves at int8: 4 KiB at 64 B/cycle, 64. 128 + 8 + 64 = 200. BUF holds A and B at 1 B
    // and C at the unit's int32 accumulator, 4 B: 4 + 4 + 16 = 24 KiB.
    const Result r = run(DataType::int8);
    CHECK(r.cycles == Approx(200.0));
    CHECK(r.in_bytes == Approx(8192.0));
    CHECK(r.out_bytes == Approx(4096.0));
    CHECK(r.buf_bytes == Approx(24.0 * 1024));
  }
  SECTION("int16: 2 bytes a value, no wider accumulator") {
    // A and B 8 KiB each: 16 KiB in at 64, 256. The call reads 16 KiB at 1024 (16); C (8 KiB)
    // leaves at 64: 128. 256 + 16 + 128 = 400. BUF holds 8 + 8 + 8 = 24 KiB.
    const Result r = run(DataType::int16);
    CHECK(r.cycles == Approx(400.0));
    CHECK(r.in_bytes == Approx(16384.0));
    CHECK(r.out_bytes == Approx(8192.0));
    CHECK(r.buf_bytes == Approx(24.0 * 1024));
  }
  CHECK(bytes_of(DataType::int16) == 2);
  CHECK(parse_data_type("int16") == DataType::int16);
  CHECK(to_string(DataType::int16) == "int16");
}
