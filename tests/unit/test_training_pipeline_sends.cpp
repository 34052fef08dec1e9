// Pipeline sends as they cross a cluster (issue 19): inside a node over NVLink, between nodes
// over the NICs and up and down the switch levels between the nodes, shared with the sends of
// the stage's other ranks. Expected times worked by hand in the comments.
#include <catch2/catch.hpp>

#include "training/PipelineOrder.hpp"
#include "training/PipelineSends.hpp"

using namespace ts;

namespace {

// `nodes` nodes of 8 GPUs with 8 NICs of 25 GB/s, one node per leaf switch, whose uplink is
// oversubscribed `oversubscription`:1, under a non-blocking spine.
Cluster leaves(int64_t nodes, double oversubscription) {
  Cluster c;
  c.nodes = nodes;
  c.devices_per_node = 8;
  c.intra_node = {230e9, 3.4e-6, {}};
  c.nic = {25e9, 9.6e-6, {}};
  c.nics_per_node = 8;
  c.switch_levels = {{1, oversubscription, {}}, {nodes, 1, {}}};
  return c;
}

// Two stages, one micro-batch (1F1B): forward 1 ms, backward 2 ms, the sends placed on `c`
// for tp x dp GPUs a stage; returns the makespan in ms.
double two_stage_ms(const Cluster& c, int64_t tp, int64_t dp) {
  TaskGraph g = pipeline_task_graph(PipelineSchedule::one_f_one_b, 2, 1, 1, 1e-3, 2e-3, 1e-3);
  NetworkRoutes network(c, g, pipeline_send_copies(c, tp * dp), 25e9);
  place_pipeline_sends(g, 0, 0, c, {2, tp, dp, 0}, {0.1e-3, 0.5e-3}, network);
  return run_task_graph(g).makespan_s * 1e3;
}

}  // namespace

TEST_CASE("pipeline sends between nodes cross the switch levels between them",
          "[dist][pipeline][network]") {
  // TP 8: stage 0 on node 0, stage 1 on node 1. Each send, 0.5 ms alone, climbs node 0's leaf
  // uplink and descends node 1's. At 1:1 they carry the node's 8 NICs, as many flows as the
  // stage's 8 ranks send: F 1 + send 0.5 + F 1 + B 2 + send 0.5 + B 2 = 7 ms.
  CHECK(two_stage_ms(leaves(2, 1), 8, 1) == Approx(7.0).epsilon(1e-9));
  // At 4:1 the uplink carries 8 / 4 = 2 NICs' worth for the 8 ranks' sends: a quarter of the
  // rate each, 2 ms a send: 1 + 2 + 1 + 2 + 2 + 2 = 10 ms.
  CHECK(two_stage_ms(leaves(2, 4), 8, 1) == Approx(10.0).epsilon(1e-9));
  // TP 2: both stages on node 0 (GPUs 0-1 and 2-3), the sends over NVLink, 0.1 ms each, and no
  // switch: 1 + 0.1 + 1 + 2 + 0.1 + 2 = 6.2 ms, oversubscribed or not.
  CHECK(two_stage_ms(leaves(2, 4), 2, 1) == Approx(6.2).epsilon(1e-9));
  // TP 2 x DP 4: a stage fills a node (stage 1 starts at GPU 8), so the sends cross again.
  CHECK(two_stage_ms(leaves(2, 4), 2, 4) == Approx(10.0).epsilon(1e-9));
  // A stage of 64 ranks over 8 nodes: the flows that meet at one leaf are its 8 GPUs' only.
  CHECK(pipeline_send_copies(leaves(16, 1), 64) == 8);
  CHECK(stage_first_gpu({2, 8, 8, 3}, 1) == 64 + 24);
}
