// Clusters and per-layer times from the tile model, for the training simulator.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "TempDir.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "training/Cluster.hpp"
#include "training/Collectives.hpp"
#include "training/LayerOperators.hpp"
#include "training/LayerTimes.hpp"
#include "training/NetworkRoutes.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;
using ts::test::TempDir;

namespace {}  // namespace

TEST_CASE("the Selene cluster loads with its device graph and links", "[dist][cluster]") {
  const Cluster c = load_cluster(sample("/dist/clusters/selene.yaml"));
  CHECK(c.gpus() == 4480);
  CHECK(c.device.name == "nvidia-a100");
  CHECK(c.intra_node.bandwidth_bytes_per_s == Approx(230e9));
  CHECK(c.nics_per_node == 8);
  CHECK(c.nic.bandwidth_bytes_per_s == Approx(25e9));
  // DGX SuperPOD: leaves of 20 nodes, then the whole machine, non-blocking
  REQUIRE(c.switch_levels.size() == 2);
  CHECK(c.switch_levels[0].nodes == 20);
  CHECK(c.switch_levels[1].oversubscription == 1);
}

TEST_CASE("Selene's NVLink ring reproduces the measured nccl-tests bus bandwidth",
          "[dist][cluster]") {
  // shared/validation/communication.md: all-reduce on 8 A100s, bus bandwidth 229 GB/s at 1 GiB
  // and 202 GB/s at 64 MiB. The cluster file gives the link rate and NCCL's per-hop latency, not
  // these figures: the ring of 2 x 7 steps, each 1/8 of the buffer plus one hop, must give them
  // back within 5 %.
  const Cluster c = load_cluster(sample("/dist/clusters/selene.yaml"));
  CHECK(c.device.name == "nvidia-a100");
  for (auto [bytes, measured] :
       {std::pair{1024.0 * 1024 * 1024, 229e9}, std::pair{64.0 * 1024 * 1024, 202e9}}) {
    TaskGraph g;
    std::vector<Link> ring;
    for (int r = 0; r < 8; ++r)
      ring.push_back({g.add_stream(), c.intra_node.bandwidth_bytes_per_s, c.intra_node.latency_s});
    add_collective(g, CollectiveKind::all_reduce, ring, bytes, std::vector<int>(8, -1));
    const double bus =
        bytes / run_task_graph(g).makespan_s * bus_bandwidth_factor(CollectiveKind::all_reduce, 8);
    INFO(bytes << " B: " << bus / 1e9 << " GB/s");
    CHECK(bus == Approx(measured).epsilon(0.05));
  }
}

TEST_CASE("malformed clusters are reported where they are wrong", "[dist][cluster]") {
  const std::string head = "version: 1\nkind: cluster\nnodes: 2\ndevices_per_node: 8\n";
  SECTION("a device graph that does not exist") {
    const InputError e = input_error_of([&] {
      parse_cluster(head +
                        "device: missing.yaml\nintra_node: {bandwidth: 1GB/s}\n"
                        "inter_node: {bandwidth: 1GB/s}\n",
                    "/tmp/c.yaml");
    });
    CHECK(e.where().line == 5);
    CHECK_THAT(e.message(), Catch::StartsWith("device graph 'missing.yaml' not found"));
  }
  SECTION("a link rate per cycle, which a network has no clock for") {
    const InputError e = input_error_of([&] {
      parse_cluster(head + "device: " + sample("/arch/nvidia-a100.yaml") +
                        "\nintra_node: {bandwidth: 64B/cycle}\ninter_node: {bandwidth: 1GB/s}\n",
                    "c.yaml");
    });
    CHECK(e.where().line == 6);
    CHECK_THAT(e.message(), Catch::StartsWith("expected a positive bandwidth such as `300GB/s`"));
  }
  const std::string links = "device: " + sample("/arch/nvidia-a100.yaml") +
                            "\nintra_node: {bandwidth: 1GB/s}\ninter_node: {bandwidth: 1GB/s}\n";
  SECTION("an oversubscription outside a switch level") {
    const InputError e =
        input_error_of([&] { parse_cluster(head + links + "oversubscription: 2\n", "c.yaml"); });
    CHECK(e.where().line == 8);
    CHECK_THAT(e.message(), Catch::StartsWith("`oversubscription` belongs to a level of switches"));
  }
  SECTION("a switch level that is not a multiple of the one below") {
    const InputError e = input_error_of([&] {
      parse_cluster(head + links + "switch_levels:\n  - {nodes: 4}\n  - {nodes: 6}\n", "c.yaml");
    });
    CHECK(e.where().line == 10);
    CHECK(e.message() ==
          "a switch level's `nodes` is a multiple of the level below's (4) and larger, got 6");
  }
  SECTION("an oversubscription below 1") {
    const InputError e = input_error_of([&] {
      parse_cluster(head + links + "switch_levels: [{nodes: 2, oversubscription: 0.5}]\n",
                    "c.yaml");
    });
    CHECK(e.where().line == 8);
    CHECK_THAT(e.message(), Catch::StartsWith("`oversubscription` is at least 1"));
  }
  SECTION("an unknown key in a link") {
    const InputError e = input_error_of([&] {
      parse_cluster(head + "device: " + sample("/arch/nvidia-a100.yaml") +
                        "\nintra_node: {bandwidth: 1GB/s, lanes: 4}\ninter_node: {bandwidth: "
                        "1GB/s}\n",
                    "c.yaml");
    });
    CHECK(e.where().line == 6);
    CHECK_THAT(e.message(), Catch::Contains("lanes"));
  }
}

TEST_CASE("a layer's time on the A100 graph is bounded by its matmul work at peak",
          "[dist][cluster]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100.yaml"));
  const TransformerModel gpt3 = load_transformer_model(sample("/dist/models/gpt3-175b.yaml"));
  // GPT-3 175B, one sequence of 2048, one of 8 tensor-parallel shards: (24 b s h^2 + 4 b s^2 h)
  // / 8 = 1.01e12 FLOP of matmuls; the A100 graph's peak is 108 SMs x 1024 MAC/cycle x 2 x
  // 1.41 GHz = 311.9 TFLOP/s, so no less than 3.2 ms.
  const LayerTime one = layer_forward_time(gpt3, 1, 8, a100);
  const double b = 1, s = 2048, h = 12288;
  const double flops = (24 * b * s * h * h + 4 * b * s * s * h) / 8;
  CHECK(one.matmul_flops == Approx(flops).epsilon(1e-12));
  const double peak = 108.0 * 1024 * 2 * 1.41e9;
  CHECK(one.forward_s >= flops / peak);
  // These GEMMs are large enough to keep the tensor cores busy: the layer runs at more than half
  // of peak, the rest going to the vector operators and the attention core.
  CHECK(one.forward_s <= 2 * flops / peak);
  // Every operator was predicted, and the large GEMMs (2048 rows, thousands of columns, K of
  // thousands) run within 25 % of peak.
  CHECK(one.operators.size() == layer_forward_operators(gpt3, 1, 8).size());
  for (const OperatorTime& op : one.operators) {
    INFO(op.name << " " << op.bound_by);
    CHECK(op.seconds > 0);
    if (op.name == "qkv" || op.name == "mlp_up" || op.name == "mlp_down")
      CHECK(op.seconds <= 1.25 * op.matmul_flops / peak);
  }
}

TEST_CASE("roofline operator times: work at a fraction of peak, or bytes at HBM rate",
          "[dist][cluster]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100.yaml"));
  const OperatorTimeSource half = parse_operator_time_source("roofline:0.5");
  // A 4096^3 fp16 GEMM: 6.87e10 multiply-accumulates at half of 108 x 1024 x 1.41 GHz MAC/s is
  // 0.881 ms; its 3 x 32 MiB of operands at 2.0 TB/s take 50 us: compute-bound.
  const OperatorTime g = operator_time(make_gemm("g", 4096, 4096, 4096), a100, half);
  const double macs = 4096.0 * 4096 * 4096, rate = 108.0 * 1024 * 1.41e9;
  CHECK(g.seconds == Approx(macs / (0.5 * rate)));
  CHECK(g.bound_by == "roofline:compute");
  // An add of two 4096 x 4096 fp16 tensors: 3 x 32 MiB at 2.0 TB/s is 50.3 us, far more than
  // 16.8 M additions at half of 108 x 256 x 1.41 GHz (1.7 us): memory-bound.
  const OperatorTime add = operator_time(make_vector_op("a", "add", 4096, 4096), a100, half);
  CHECK(add.seconds == Approx(3.0 * 4096 * 4096 * 2 / 2.0e12));
  CHECK(add.bound_by == "roofline:memory");
  CHECK(parse_operator_time_source("tile").kind == OperatorTimeSource::Kind::tile_model);
  CHECK(input_error_of([] { parse_operator_time_source("roofline:0"); }).message() ==
        "'roofline:0': expected `tile`, `roofline:EFF` with EFF in (0, 1], or `db:FILE`");
  CHECK(input_error_of([] { parse_operator_time_source("measured"); }).message() ==
        "'measured': expected `tile`, `roofline:EFF` with EFF in (0, 1], or `db:FILE`");
}

TEST_CASE("measured operator times come from a results database, the rest from the tile model",
          "[dist][cluster]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100.yaml"));
  const Operator qkv = make_gemm("qkv", 2048, 4608, 12288);
  TempDir dir;
  const std::string db = dir.file("measured.sqlite");
  {
    ResultStore store(db);
    RunStart start;
    start.collector = "test";
    start.workload = "w";
    const int64_t run = store.begin_run(start);
    // Two implementations of the same operator: the faster median is the one to use.
    for (double median : {1.2e6, 1.0e6}) {
      Measurement m;
      m.op = operator_key(qkv, "w");
      m.implementation = median > 1.1e6 ? "slow" : "fast";
      m.repetitions = 5;
      m.min_ns = median * 0.95;
      m.median_ns = median;
      m.checked = true;
      store.add_measurement(run, m);
    }
    store.finish_run(run, RunStatus::complete);
  }
  const OperatorTimeSource measured = parse_operator_time_source("db:" + db);
  const OperatorTime t = operator_time(qkv, a100, measured);
  CHECK(t.seconds == Approx(1.0e-3));
  CHECK(t.bound_by == "measured");
  // The same GEMM under another name is the same operator; another shape is not measured and
  // falls back to the tile model.
  CHECK(operator_time(make_gemm("renamed", 2048, 4608, 12288), a100, measured).seconds ==
        Approx(1.0e-3));
  const Operator other = make_gemm("other", 1024, 1024, 1024);
  CHECK(operator_time(other, a100, measured).seconds ==
        Approx(operator_time(other, a100, {}).seconds));
  CHECK_THROWS_AS(parse_operator_time_source("db:" + dir.file("missing.sqlite")), InputError);
}

TEST_CASE("a ring across oversubscribed switches slows where it crosses them", "[dist][cluster]") {
  // 4 nodes of one GPU and one NIC (10 GB/s, no latency), two per leaf switch. A ring all-reduce
  // of 40 MB: 2 x 3 steps of a 10 MB chunk, 1 ms each on a NIC alone: 6 ms.
  // - Oversubscription 1: a leaf's uplink carries its 2 NICs; the ring crosses it with one flow
  //   each way (rank 1 -> 2 and 3 -> 0): no slower, 6 ms.
  // - Oversubscription 4: an uplink carries half a NIC's rate, so the crossing sends take 2 ms;
  //   every step waits for the slowest: 12 ms.
  // - With 2 identical rings beside it on other NICs (copies = 2), a quarter: 24 ms.
  auto ring_ms = [](double oversubscription, int64_t copies, int64_t nodes_per_leaf) {
    Cluster c;
    c.nodes = 4;
    c.devices_per_node = 1;
    c.nics_per_node = 1;
    c.switch_levels = {{nodes_per_leaf, oversubscription, {}}, {4, 1, {}}};
    TaskGraph g;
    NetworkRoutes network(c, g, copies);
    std::vector<Link> links;
    for (int64_t r = 0; r < 4; ++r) links.push_back({g.add_stream(), 10e9, 0, r});
    add_collective(g, CollectiveKind::all_reduce, links, 40e6, std::vector<int>(4, -1), &network);
    return run_task_graph(g).makespan_s * 1e3;
  };
  CHECK(ring_ms(1, 1, 2) == Approx(6.0));
  CHECK(ring_ms(4, 1, 2) == Approx(12.0));
  CHECK(ring_ms(4, 2, 2) == Approx(24.0));
  CHECK(ring_ms(4, 1, 4) == Approx(6.0));  // one leaf holds the whole ring: nothing crosses

  // Only messages between groups use the switch links; a last group that the cluster does not
  // fill carries the NICs it has.
  Cluster c;
  c.nodes = 5;
  c.nics_per_node = 8;
  c.switch_levels = {{2, 2, {}}, {4, 1, {}}};
  TaskGraph g;
  NetworkRoutes network(c, g);
  CHECK(network.between(0, 1).empty());
  CHECK(network.between(0, 2).size() == 2);  // leaf 0 up, leaf 1 down
  // leaf 0 up (again), leaf 2 down, and at the level above group 0 up and group 1 down
  CHECK(network.between(0, 4).size() == 4);
  REQUIRE(g.link_capacity.size() == 5);
  CHECK(g.link_capacity[0] == Approx(8.0));   // 2 nodes x 8 NICs / 2
  CHECK(g.link_capacity[2] == Approx(4.0));   // leaf 2: node 4 alone, 8 NICs / 2
  CHECK(g.link_capacity[3] == Approx(32.0));  // 4 nodes x 8 NICs / 1
  CHECK(g.link_capacity[4] == Approx(8.0));   // group 1: node 4 alone
}
