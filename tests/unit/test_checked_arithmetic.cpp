// Checked sums and products (common/CheckedArithmetic) and the loaders that refuse counts whose
// products overflow 64 bits (issue 18). Each refusal is at the value where the product first
// leaves 64 bits: INT64_MAX = 9223372036854775807 = 2^63 - 1, so 2^62 x 2 = 2^63 is one past it.
#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "InputErrorCapture.hpp"
#include "analysis/TailChain.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/CheckedArithmetic.hpp"
#include "tile/MappingLoader.hpp"
#include "training/Cluster.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/TransformerModel.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kTwoTo62 = int64_t(1) << 62;

}  // namespace

TEST_CASE("checked_add and checked_mul say when a result leaves 64 bits", "[checked]") {
  CHECK(checked_add(kMax - 1, 1) == kMax);
  CHECK_FALSE(checked_add(kMax, 1).has_value());
  CHECK(checked_add(-kMax, -1) == std::numeric_limits<int64_t>::min());
  CHECK_FALSE(checked_add(std::numeric_limits<int64_t>::min(), -1).has_value());
  CHECK(checked_mul(kTwoTo62 - 1, 2) == kMax - 1);    // 2^63 - 2
  CHECK_FALSE(checked_mul(kTwoTo62, 2).has_value());  // 2^63
  CHECK_FALSE(checked_mul(kMax, 16).has_value());
  CHECK(checked_mul(-kTwoTo62, 2) == std::numeric_limits<int64_t>::min());  // -2^63 fits
  CHECK(checked_mul(3037000499, 3037000499) == 9223372030926249001);        // floor(sqrt(2^63-1))^2
  CHECK_FALSE(checked_mul(3037000500, 3037000500).has_value());             // 9223372037000250000
}

TEST_CASE("checked_product names the factors up to the one that overflows", "[checked]") {
  const SourceLocation a{"f.yaml", 3, 5}, b{"f.yaml", 4, 7}, c{"f.yaml", 5, 9};
  CHECK(checked_product({{2, a}, {3, b}, {7, c}}, "x") == 42);
  CHECK(checked_product({}, "x") == 1);
  // 2^62 x 1 fits; x 2 is 2^63: the error is at the third factor and shows all three.
  const InputError e = input_error_of([&] {
    checked_product({{kTwoTo62, a}, {1, b}, {2, c}}, "granule");
  });
  CHECK(e.where().line == 5);
  CHECK(e.where().column == 9);
  CHECK(e.message() ==
        "granule 4611686018427387904 x 1 x 2 overflows 64 bits; expected a product of at most "
        "9223372036854775807");
}

TEST_CASE("multiply_checked builds a product one factor at a time", "[checked]") {
  int64_t product = 1;
  std::string written;
  multiply_checked(product, written, {kMax, {"g.yaml", 1, 1}}, "granule");
  CHECK(product == kMax);
  CHECK(written == "9223372036854775807");
  const InputError e = input_error_of([&] {
    multiply_checked(product, written, {16, {"g.yaml", 2, 4}}, "granule");
  });
  CHECK(e.where().line == 2);
  CHECK_THAT(e.message(), Catch::StartsWith("granule 9223372036854775807 x 16 overflows 64 bits"));
  CHECK(product == kMax);  // left as it was
}

// ---------------------------------------------------------------------------------------------
// Architecture graphs.

namespace {

// Line 8 is the operation; its granule list starts at column 74.
std::string graph_with(const std::string& granule, const std::string& word_bytes = "") {
  return "version: 1\nkind: architecture\nclock: 1GHz\nnodes:\n"
         "  - {name: M, type: memory, capacity: 1GiB" +
         word_bytes +
         "}\n"
         "  - name: P\n    type: compute\n"
         "    operations: [{class: matmul, dtype: fp16, ops_per_cycle: 1, granule: " +
         granule + "}]\nedges:\n  - {from: M, to: P, bandwidth: 1GB/s}\n";
}

}  // namespace

TEST_CASE("a granule whose m x n x k overflows 64 bits is refused", "[checked][arch]") {
  // 2^62 x 2 = 2^63 overflows at the second entry.
  SECTION("at the entry where the product overflows") {
    const InputError e = input_error_of(
        [&] { parse_architecture(graph_with("[4611686018427387904, 2, 1]"), "g.yaml"); });
    CHECK(e.where().file == "g.yaml");
    CHECK(e.where().line == 8);
    // `[4611686018427387904, 2, 1]` starts at column 74; its 2 at 74 + 22.
    CHECK(e.where().column == 96);
    CHECK_THAT(e.message(), Catch::StartsWith("granule 4611686018427387904 x 2 overflows 64 bits"));
  }
  SECTION("the largest product that fits loads") {
    // 2^61 x 2 x 2 = 2^63 overflows; 2^61 x 2 x 1 = 2^62 fits.
    const ArchitectureGraph g =
        parse_architecture(graph_with("[2305843009213693952, 2, 1]"), "g.yaml");
    CHECK(g.nodes[1].capabilities[0].granule[0] == int64_t(1) << 61);
    CHECK_THROWS_AS(parse_architecture(graph_with("[2305843009213693952, 2, 2]"), "g.yaml"),
                    InputError);
  }
}

TEST_CASE("a word wider than an int is refused, not cut to its low bits", "[checked][arch]") {
  // 2^32 + 2 would be held as 2 in an int.
  const InputError e = input_error_of(
      [&] { parse_architecture(graph_with("[1, 1, 1]", ", word_bytes: 4294967298"), "g.yaml"); });
  CHECK(e.where().line == 5);
  CHECK_THAT(e.message(), Catch::Contains("word_bytes") && Catch::Contains("4294967298"));
  const ArchitectureGraph g =
      parse_architecture(graph_with("[1, 1, 1]", ", word_bytes: 2147483647"), "g.yaml");
  CHECK(g.nodes[0].word_bytes == 2147483647);
}

// ---------------------------------------------------------------------------------------------
// Workloads: a tensor's bytes and a stage's points.

namespace {

std::string workload_with(const std::string& op) {
  return "version: 1\nkind: workload\noperators:\n  - " + op + "\n";  // the operator is line 4
}

}  // namespace

TEST_CASE("workload sizes whose products overflow 64 bits are refused", "[checked][workload]") {
  SECTION("a GEMM's A: M x K elements") {
    // M 3e18 x K 4 = 1.2e19 overflows at K, before the 2 bytes of fp16.
    const InputError e = input_error_of([&] {
      parse_workload(workload_with("{name: g, type: gemm, M: 3000000000000000000, N: 1, K: 4}"),
                     "w.yaml");
    });
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 60);  // the 4 of `K: 4`
    CHECK_THAT(e.message(), Catch::Contains("tensor 'A' of operator 'g'") &&
                                Catch::Contains("3000000000000000000 x 4 overflows 64 bits"));
  }
  SECTION("a size above kLargestDimensionSize (4e18), which no mapping covers") {
    const InputError e = input_error_of([&] {
      parse_workload(
          workload_with("{name: v, type: relu, rows: 4000000000000000001, cols: 1, dtype: int8}"),
          "w.yaml");
    });
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 33);  // the value of `rows`
    CHECK(e.message() ==
          "`R` of operator 'v' is 4000000000000000001; expected a size of at most "
          "4000000000000000000");
    // The bound itself loads: 4e18 x 1 x 1 byte fits.
    const Workload w = parse_workload(
        workload_with("{name: v, type: relu, rows: 4000000000000000000, cols: 1, dtype: int8}"),
        "w.yaml");
    CHECK(w.operators[0].dims[0].size == kLargestDimensionSize);
  }
  SECTION("the bytes per element") {
    // M 2^61 x K 2 = 2^62 elements fit; x 2 bytes of fp16 = 2^63 does not.
    const InputError e = input_error_of([&] {
      parse_workload(workload_with("{name: g, type: gemm, M: 2305843009213693952, N: 1, K: 2}"),
                     "w.yaml");
    });
    CHECK_THAT(e.message(), Catch::Contains("2305843009213693952 x 2 x 2 overflows"));
  }
  SECTION("a stage's points, which no tensor holds") {
    // M and N of 2^31, K of 4, all int8: A and B hold 2^33 bytes, C 2^62; every tensor fits,
    // but the points M x K x N (in the order first seen: A[M,K], then B[K,N]) are 2^64.
    const InputError e = input_error_of([&] {
      parse_workload(
          "version: 1\nkind: workload\noperators:\n"
          "  - name: e\n    type: einsum\n"
          "    dims: {M: 2147483648, N: 2147483648, K: 4}\n"
          "    tensors:\n"
          "      - {name: A, dims: [M, K], dtype: int8}\n"
          "      - {name: B, dims: [K, N], dtype: int8}\n"
          "      - {name: C, dims: [M, N], dtype: int8}\n"
          "    stages: [{name: mm, class: matmul, inputs: [A, B], output: C}]\n",
          "w.yaml");
    });
    CHECK(e.where().line == 6);
    CHECK_THAT(e.message(), Catch::Contains("points of stage 'mm'") &&
                                Catch::Contains("2147483648 x 4 x 2147483648 overflows"));
  }
  SECTION("a vector operator's rows x cols") {
    const InputError e = input_error_of([&] {
      parse_workload(workload_with("{name: v, type: relu, rows: 3037000500, cols: 3037000500}"),
                     "w.yaml");
    });
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 51);  // the value of `cols`
    CHECK_THAT(e.message(), Catch::Contains("3037000500 x 3037000500 overflows"));
  }
}

// ---------------------------------------------------------------------------------------------
// Strategies, models and their products at the strategy's batch.

namespace {

const std::string kStrategyHead = "version: 1\nkind: strategy\n";  // two lines

}  // namespace

TEST_CASE("strategy degrees whose products overflow 64 bits are refused", "[checked][dist]") {
  SECTION("DP 2^63-1 x TP 2 x PP 2 GPUs (the case of issue 18)") {
    const InputError e = input_error_of([&] {
      parse_parallel_strategy(kStrategyHead +
                                  "data_parallel: {degree: 9223372036854775807}\n"
                                  "tensor_parallel: {degree: 2}\n"
                                  "pipeline_parallel: {degree: 2}\n"
                                  "batch: {global: 8}\n",
                              "s.yaml");
    });
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 27);  // the 2 of tensor_parallel
    CHECK_THAT(e.message(),
               Catch::StartsWith("data_parallel.degree x tensor_parallel.degree x "
                                 "pipeline_parallel.degree 9223372036854775807 x 2 overflows"));
  }
  SECTION("pipeline stages x chunks") {
    const InputError e = input_error_of([&] {
      parse_parallel_strategy(kStrategyHead +
                                  "pipeline_parallel: {degree: 4611686018427387904, "
                                  "schedule: interleaved, chunks: 2}\n"
                                  "batch: {global: 8}\n",
                              "s.yaml");
    });
    CHECK(e.where().line == 3);
    CHECK_THAT(e.message(), Catch::StartsWith("pipeline_parallel.degree x chunks"));
  }
  SECTION("micro-batch x data-parallel ranks") {
    const InputError e = input_error_of([&] {
      parse_parallel_strategy(kStrategyHead +
                                  "data_parallel: {degree: 4}\n"
                                  "batch: {global: 8, micro: 4611686018427387904}\n",
                              "s.yaml");
    });
    CHECK(e.where().line == 3);  // at dp: micro x dp = 2^62 x 4
    CHECK_THAT(e.message(),
               Catch::StartsWith("batch.micro x data_parallel.degree 4611686018427387904 x 4"));
  }
  SECTION("the largest GPU count that fits loads") {
    const ParallelStrategy s =
        parse_parallel_strategy(kStrategyHead +
                                    "data_parallel: {degree: 4611686018427387903}\n"
                                    "tensor_parallel: {degree: 2}\nbatch: {global: 8}\n",
                                "s.yaml");
    CHECK(s.gpus() == kMax - 1);
  }
}

TEST_CASE("model sizes whose products overflow 64 bits are refused", "[checked][dist]") {
  const std::string head =
      "version: 1\nkind: model\nfamily: gpt\nlayers: 2\nheads: 1\nffn: 4\nvocab: 8\n";
  SECTION("seq_len x hidden x 2 bytes, one sample's activations") {
    // 2^61 x 2 = 2^62 fits; x 2 bytes = 2^63 does not: at the model (the 2 bytes are implied).
    const InputError e = input_error_of([&] {
      parse_transformer_model(head + "hidden: 2\nseq_len: 2305843009213693952\n", "m.yaml");
    });
    CHECK_THAT(e.message(), Catch::StartsWith("seq_len x hidden x 2 bytes") &&
                                Catch::Contains("2305843009213693952 x 2 x 2 overflows"));
  }
  SECTION("3 x hidden, the fused QKV projection") {
    const InputError e = input_error_of([&] {
      parse_transformer_model(head + "hidden: 3074457345618258603\nseq_len: 1\n", "m.yaml");
    });
    CHECK(e.where().line == 8);  // hidden
    CHECK_THAT(e.message(), Catch::StartsWith("3 x hidden"));
  }
  SECTION("a vocabulary above kLargestDimensionSize, the logits' N") {
    const InputError e = input_error_of([&] {
      parse_transformer_model(head.substr(0, head.find("vocab")) +
                                  "vocab: 4000000000000000001\nhidden: 2\nseq_len: 1\n",
                              "m.yaml");
    });
    CHECK(e.where().line == 7);
    CHECK_THAT(e.message(), Catch::StartsWith("vocab (the logits' N) is 4000000000000000001; "
                                              "expected a size of at most 4000000000000000000"));
  }
  SECTION("with the strategy: a micro-batch of activations") {
    // seq_len 2^30 x hidden 2 x 2 bytes = 2^32 per sample; a micro-batch of 2^31 is 2^63.
    const TransformerModel m =
        parse_transformer_model(head + "hidden: 2\nseq_len: 1073741824\n", "m.yaml");
    const ParallelStrategy s = parse_parallel_strategy(
        kStrategyHead + "batch: {global: 2147483648, micro: 2147483648}\n", "s.yaml");
    const InputError e = input_error_of([&] { check_strategy_fits(s, m, 1); });
    CHECK(e.where().file == "s.yaml");
    CHECK(e.where().line == 3);
    CHECK_THAT(e.message(), Catch::Contains("1073741824 x 2 x 2 x 2147483648 overflows"));
  }
  SECTION("a graph block's size at the global batch") {
    // `rows: samples*samples*...`: 2^32 at one sample squared is 2^64 at 2^32 samples.
    const TransformerModel m = parse_transformer_model(
        "version: 1\nkind: model\nfamily: graph\nlayers: 1\nseq_len: 1\nhidden: 1\n"
        "block:\n  - {name: r, type: relu, rows: samples*samples, cols: 1}\n",
        "m.yaml");
    const ParallelStrategy s = parse_parallel_strategy(
        kStrategyHead + "batch: {global: 4294967296, micro: 1}\n", "s.yaml");
    const InputError e = input_error_of([&] { check_strategy_fits(s, m, 1); });
    CHECK(e.where().line == 3);
    CHECK_THAT(e.message(), Catch::Contains("`rows` of operator 'r'") &&
                                Catch::Contains("1 x 4294967296 x 4294967296 overflows"));
  }
  SECTION("a graph block's written product") {
    const InputError e = input_error_of([&] {
      parse_transformer_model(
          "version: 1\nkind: model\nfamily: graph\nlayers: 1\nseq_len: 4294967296\n"
          "hidden: 4294967296\n"
          "block:\n  - {name: r, type: relu, rows: seq_len*hidden, cols: 1}\n",
          "m.yaml");
    });
    CHECK(e.where().line == 8);
    CHECK_THAT(e.message(), Catch::Contains("4294967296 x 4294967296 overflows"));
  }
}

// ---------------------------------------------------------------------------------------------
// Clusters and mappings.

TEST_CASE("cluster counts whose products overflow 64 bits are refused", "[checked][dist]") {
  const std::string device =
      "device: " + std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-a100.yaml\n";
  const std::string links = "intra_node: {bandwidth: 1GB/s}\n";
  SECTION("nodes x devices_per_node, the GPUs") {
    const InputError e = input_error_of([&] {
      parse_cluster(
          "version: 1\nkind: cluster\nnodes: 4611686018427387904\n"
          "devices_per_node: 2\n" +
              device + links + "inter_node: {bandwidth: 1GB/s}\n",
          "c.yaml");
    });
    CHECK(e.where().line == 4);
    CHECK_THAT(e.message(),
               Catch::StartsWith("nodes x devices_per_node 4611686018427387904 x 2 overflows"));
  }
  SECTION("nodes x nics_per_node, the flows into the network") {
    const InputError e = input_error_of([&] {
      parse_cluster(
          "version: 1\nkind: cluster\nnodes: 4611686018427387904\n"
          "devices_per_node: 1\n" +
              device + links + "inter_node: {bandwidth: 1GB/s, nics_per_node: 4}\n",
          "c.yaml");
    });
    CHECK(e.where().line == 7);
    CHECK_THAT(e.message(),
               Catch::StartsWith("nodes x nics_per_node 4611686018427387904 x 4 overflows"));
  }
}

TEST_CASE("mapping factors whose products overflow 64 bits are refused", "[checked][mapping]") {
  const std::string head = "version: 1\nkind: mapping\ntree:\n";  // the tree is line 4
  SECTION("a tile's spatial factors, the parts it spreads over instances") {
    const InputError e = input_error_of([&] {
      parse_mapping(head +
                        "  tile: DRAM\n"
                        "  spatial: {M: 4294967296, N: 4294967296}\n"
                        "  children: [{op: PE}]\n",
                    "m.yaml");
    });
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 28);  // the key N
    CHECK_THAT(e.message(),
               Catch::StartsWith("the spatial factors of tile 'DRAM' 4294967296 x 4294967296 "
                                 "overflows 64 bits"));
  }
  SECTION("an op's warps") {
    const InputError e = input_error_of([&] {
      parse_mapping(head +
                        "  tile: DRAM\n"
                        "  children:\n"
                        "    - {op: PE, warps: {M: 3037000500, N: 3037000500}}\n",
                    "m.yaml");
    });
    CHECK(e.where().line == 6);
    CHECK_THAT(e.message(),
               Catch::StartsWith("the warps of op 'PE' 3037000500 x 3037000500 overflows"));
  }
  SECTION("the largest product that fits loads") {
    // (2^62 - 1) x 2 = 2^63 - 2.
    const Mapping m = parse_mapping(head +
                                        "  tile: DRAM\n"
                                        "  spatial: {M: 4611686018427387903, N: 2}\n"
                                        "  children: [{op: PE}]\n",
                                    "m.yaml");
    CHECK(m.root.spatial.size() == 2);
  }
}

TEST_CASE("a tail chain whose full factors multiply past 64 bits runs only its tails",
          "[checked][tail]") {
  // 5 over [1, 2^40, 2^40]: the tile below the top is 2^80 (held as INT64_MAX) and the one
  // below the middle 2^40, both more than 5, so the top and the middle run once (1/1) and the
  // bottom runs 5: [1, 1, 5]. Unchecked, 2^80 wrapped to 0 and the division by it crashed the
  // mapper (SIGFPE) on a GEMM of 4e18 rows.
  std::vector<Factor> chain{Factor::exact(1), Factor::exact(int64_t(1) << 40),
                            Factor::exact(int64_t(1) << 40)};
  REQUIRE(make_tail_chain(5, chain));
  CHECK(chain[0].full == 1);
  CHECK(chain[1].full == 1);
  CHECK(chain[2].full == 5);
  CHECK(chain[2].tail == 5);
  CHECK(chain_extent(chain) == 5);
}
