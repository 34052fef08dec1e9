#include <catch2/catch.hpp>
#include <functional>
#include <type_traits>

#include "arch/ArchitectureGraph.hpp"
#include "common/Fnv1a.hpp"

using namespace ts;

namespace {

ArchNode memory(std::string name, int64_t instances = 1, double read_port = 0,
                double write_port = 0) {
  ArchNode n;
  n.name = std::move(name);
  n.kind = NodeKind::memory;
  n.instances = instances;
  n.clock_hz = 1e9;
  n.capacity_bytes = 1 << 20;
  n.read_port_bytes_per_s = read_port;
  n.write_port_bytes_per_s = write_port;
  return n;
}

ArchNode compute(std::string name, int64_t instances, std::vector<ComputeCapability> caps) {
  ArchNode n;
  n.name = std::move(name);
  n.kind = NodeKind::compute;
  n.instances = instances;
  n.clock_hz = 1e9;
  n.capabilities = std::move(caps);
  return n;
}

ArchEdge edge(int32_t from, int32_t to, double bandwidth,
              EdgeSharing sharing = EdgeSharing::per_instance) {
  ArchEdge e;
  e.from = NodeId{from};
  e.to = NodeId{to};
  e.bandwidth_bytes_per_s = bandwidth;
  e.sharing = sharing;
  return e;
}

// A(0) -> B(1) -> D(3); A -> C(2) -> D; C -> E(4) -> D. Edge ids in the order written.
ArchitectureGraph diamond() {
  ArchitectureGraph g;
  for (auto name : {"A", "B", "C", "D", "E"}) g.nodes.push_back(memory(name));
  g.edges = {edge(0, 1, 1e9), edge(0, 2, 1e9), edge(1, 3, 1e9),
             edge(2, 4, 1e9), edge(4, 3, 1e9), edge(2, 3, 1e9)};
  g.finalize();
  return g;
}

}  // namespace

TEST_CASE("node lookup and direct edges", "[arch][graph]") {
  ArchitectureGraph g = diamond();
  CHECK(g.find_node("C") == NodeId{2});
  CHECK_FALSE(g.find_node("Z"));
  CHECK(g.edge_between(NodeId{0}, NodeId{2}) == EdgeId{1});
  CHECK_FALSE(g.edge_between(NodeId{2}, NodeId{0}).valid());  // edges are one-way
  CHECK(g.edge_between(NodeId{2}, NodeId{3}) == EdgeId{5});
  CHECK(g.out_edges(NodeId{2}) == std::vector<EdgeId>{EdgeId{3}, EdgeId{5}});
  CHECK(g.out_edges(NodeId{3}).empty());
}

TEST_CASE("shortest path takes the fewest hops", "[arch][graph]") {
  ArchitectureGraph g = diamond();
  // A->B->D and A->C->D both take two hops; BFS in edge order reaches D through B first.
  CHECK(g.shortest_path(NodeId{0}, NodeId{3}) == std::vector<EdgeId>{EdgeId{0}, EdgeId{2}});
  // From C the direct edge beats the way through E.
  CHECK(g.shortest_path(NodeId{2}, NodeId{3}) == std::vector<EdgeId>{EdgeId{5}});
  CHECK(g.shortest_path(NodeId{3}, NodeId{0}).empty());  // nothing leaves D
  CHECK(g.shortest_path(NodeId{1}, NodeId{1}).empty());
  CHECK(g.has_path(NodeId{1}, NodeId{1}));
  CHECK(g.has_path(NodeId{0}, NodeId{4}));
  CHECK_FALSE(g.has_path(NodeId{4}, NodeId{0}));
}

TEST_CASE("all simple paths, shortest first, capped", "[arch][graph]") {
  ArchitectureGraph g = diamond();
  auto all = g.paths(NodeId{0}, NodeId{3});
  REQUIRE(all.size() == 3);
  CHECK(all[0] == std::vector<EdgeId>{EdgeId{0}, EdgeId{2}});             // A-B-D
  CHECK(all[1] == std::vector<EdgeId>{EdgeId{1}, EdgeId{5}});             // A-C-D
  CHECK(all[2] == std::vector<EdgeId>{EdgeId{1}, EdgeId{3}, EdgeId{4}});  // A-C-E-D
  CHECK(g.paths(NodeId{0}, NodeId{3}, 2).size() == 2);
  CHECK(g.paths(NodeId{0}, NodeId{3}, 0).empty());
  CHECK(g.paths(NodeId{3}, NodeId{0}).empty());
  CHECK(g.paths(NodeId{2}, NodeId{2}).empty());
}

TEST_CASE("paths never visit a node twice", "[arch][graph]") {
  ArchitectureGraph g;
  for (auto name : {"A", "B", "C"}) g.nodes.push_back(memory(name));
  g.edges = {edge(0, 1, 1), edge(1, 0, 1), edge(1, 2, 1), edge(2, 1, 1)};
  g.finalize();
  auto all = g.paths(NodeId{0}, NodeId{2});
  REQUIRE(all.size() == 1);
  CHECK(all[0] == std::vector<EdgeId>{EdgeId{0}, EdgeId{2}});
}

TEST_CASE("fan-out is destination instances over source instances", "[arch][graph]") {
  ArchitectureGraph g;
  g.nodes = {memory("L2", 1), memory("L1", 8), memory("L0", 32)};
  g.edges = {edge(0, 1, 1e9), edge(1, 2, 1e9), edge(2, 1, 1e9)};
  g.finalize();
  CHECK(g.fan_out(EdgeId{0}) == 8.0);
  CHECK(g.fan_out(EdgeId{1}) == 4.0);   // 32 / 8
  CHECK(g.fan_out(EdgeId{2}) == 0.25);  // 8 / 32
}

TEST_CASE("a shared edge divides its bandwidth among its users", "[arch][graph]") {
  ArchitectureGraph g;
  g.nodes = {memory("HBM"), memory("L2", 4)};
  g.edges = {edge(0, 1, 100e9, EdgeSharing::shared), edge(1, 0, 100e9)};
  g.finalize();
  CHECK(g.effective_bandwidth(EdgeId{0}, 1) == 100e9);
  CHECK(g.effective_bandwidth(EdgeId{0}, 2) == 50e9);  // 100 GB/s / 2 users
  CHECK(g.effective_bandwidth(EdgeId{0}, 4) == 25e9);
  CHECK(g.effective_bandwidth(EdgeId{0}, 0) == 100e9);  // no users counts as one
  // per instance: every user keeps the whole edge
  CHECK(g.effective_bandwidth(EdgeId{1}, 1) == 100e9);
  CHECK(g.effective_bandwidth(EdgeId{1}, 4) == 100e9);
}

TEST_CASE("memory ports cap every user's share", "[arch][graph]") {
  ArchitectureGraph g;
  // source read port 120 GB/s, destination write port 90 GB/s
  g.nodes = {memory("SRC", 1, 120e9, 0), memory("DST", 4, 0, 90e9), memory("FREE", 1)};
  g.edges = {edge(0, 1, 64e9), edge(0, 2, 200e9), edge(2, 1, 200e9, EdgeSharing::shared)};
  g.finalize();
  CHECK(g.effective_bandwidth(EdgeId{0}, 1) == 64e9);   // min(64, 120, 90)
  CHECK(g.effective_bandwidth(EdgeId{0}, 2) == 45e9);   // min(64, 120/2 = 60, 90/2 = 45)
  CHECK(g.effective_bandwidth(EdgeId{0}, 3) == 30e9);   // min(64, 40, 30)
  CHECK(g.effective_bandwidth(EdgeId{1}, 1) == 120e9);  // edge 200, read port 120
  CHECK(g.effective_bandwidth(EdgeId{1}, 4) == 30e9);   // 120 / 4, FREE has no write port
  CHECK(g.effective_bandwidth(EdgeId{2}, 1) == 90e9);   // shared 200, write port 90
  CHECK(g.effective_bandwidth(EdgeId{2}, 2) == 45e9);   // min(100, 45)
}

TEST_CASE("compute nodes and their capabilities", "[arch][graph]") {
  ComputeCapability mm{OpClass::matmul, DataType::fp16, 4096, {16, 16, 16}, {}, {}, {}};
  ComputeCapability mm8{OpClass::matmul, DataType::int8, 8192, {16, 16, 32}, {}, {}, {}};
  ComputeCapability vec{OpClass::elementwise, DataType::fp16, 128, {128, 1, 1}, {}, {}, {}};
  ComputeCapability red{OpClass::reduction, DataType::fp32, 64, {64, 1, 1}, {}, {}, {}};
  ArchitectureGraph g;
  g.nodes = {memory("UB"), compute("Cube", 1, {mm, mm8}), compute("Vector", 1, {vec, red})};
  g.finalize();
  CHECK(g.compute_nodes_for(OpClass::matmul) == std::vector<NodeId>{NodeId{1}});
  CHECK(g.compute_nodes_for(OpClass::reduction) == std::vector<NodeId>{NodeId{2}});

  const ArchNode& cube = g.node(NodeId{1});
  REQUIRE(cube.capability(OpClass::matmul, DataType::int8));
  CHECK(cube.capability(OpClass::matmul, DataType::int8)->ops_per_cycle == 8192);
  CHECK(cube.capability(OpClass::matmul)->dtype == DataType::fp16);  // the first listed
  CHECK(cube.capability(OpClass::matmul, DataType::fp32) == nullptr);
  CHECK(cube.capability(OpClass::elementwise) == nullptr);
}

TEST_CASE("finalize refuses an edge to a node that does not exist", "[arch][graph]") {
  ArchitectureGraph g;
  g.nodes = {memory("A")};
  g.edges = {edge(0, 3, 1)};
  CHECK_THROWS_AS(g.finalize(), std::invalid_argument);
}

TEST_CASE("node and edge ids are distinct types that index their tables", "[arch][graph]") {
  // A node id where an edge id is meant used to compile and read the wrong table.
  static_assert(!std::is_convertible_v<NodeId, EdgeId>);
  static_assert(!std::is_convertible_v<int, NodeId>);
  ArchitectureGraph g = diamond();
  CHECK_FALSE(NodeId{}.valid());
  CHECK_FALSE(EdgeId{}.valid());
  CHECK(NodeId{4}.index() == 4);
  CHECK(NodeId{1} < NodeId{3});
  CHECK(g.node(NodeId{4}).name == "E");
  CHECK(g.edge(EdgeId{4}).from == NodeId{4});
  CHECK(g.node_ids().size() == 5);
  CHECK(g.edge_ids().back() == EdgeId{5});
  CHECK(std::hash<NodeId>{}(NodeId{3}) == std::hash<NodeId>{}(NodeId{3}));
}

TEST_CASE("FNV-1a matches the reference vectors", "[hash]") {
  CHECK(fnv1a("") == 0xcbf29ce484222325ull);
  CHECK(fnv1a("a") == 0xaf63dc4c8601ec8cull);
  CHECK(fnv1a("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("the content hash follows what a prediction reads", "[arch][graph][hash]") {
  ArchitectureGraph a = diamond();
  ArchitectureGraph b = diamond();
  CHECK(a.content_hash() == b.content_hash());

  b.name = "other";
  b.description = "renamed";
  b.source_file = "/elsewhere.yaml";
  b.nodes[0].where.line = 42;
  CHECK(a.content_hash() == b.content_hash());

  ArchitectureGraph wider = diamond();
  wider.edges[2].bandwidth_bytes_per_s = 2e9;
  CHECK(wider.content_hash() != a.content_hash());

  ArchitectureGraph shared = diamond();
  shared.edges[2].sharing = EdgeSharing::shared;
  CHECK(shared.content_hash() != a.content_hash());

  ArchitectureGraph more = diamond();
  more.nodes[1].instances = 2;
  CHECK(more.content_hash() != a.content_hash());

  ArchitectureGraph renamed = diamond();
  renamed.nodes[1].name = "B2";  // mappings name nodes, so a name is part of the meaning
  CHECK(renamed.content_hash() != a.content_hash());

  ArchitectureGraph faster = diamond();
  faster.clock_hz = 2e9;
  CHECK(faster.content_hash() != a.content_hash());
}
