#include "host/RegisterTileCost.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "host/TiledGemm.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

namespace ts::host {
namespace {

constexpr int64_t kM = 24, kN = 64, kK = 32, kRows = 6, kCols = 16;

std::string mapping_text(bool split_k) {
  const std::string outer = split_k ? "{M: 4, N: 4, K: 32}" : "{M: 4, N: 4}";
  const std::string inner = split_k ? "{K: 1}" : "{K: 32}";
  const std::string order = split_k ? "[M, N, K]" : "[M, N]";
  return "version: 1\nkind: mapping\nname: register-tile-start\ntree:\n  tile: DRAM\n"
         "  temporal: " +
         outer + "\n  order: " + order +
         "\n  children:\n    - tile: RF\n      buffers: {A: bypass, B: "
         "bypass}\n      temporal: " +
         inner + "\n      children:\n        - op: Core\n          factors: {M: 6, N: 16, K: 1}\n";
}

// A low quantile of many runs: interference only adds time.
double quantile_seconds(const TiledGemm& gemm, const float* a, const float* b, float* c,
                        double seconds) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> t;
  const auto start = Clock::now();
  while (t.size() < 50 || (std::chrono::duration<double>(Clock::now() - start).count() < seconds &&
                           t.size() < 100000)) {
    const auto t0 = Clock::now();
    gemm.run(a, b, c);
    t.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const size_t q = t.size() / 5;
  std::nth_element(t.begin(), t.begin() + static_cast<long>(q), t.end());
  return t[q];
}

}  // namespace

double register_tile_start_seconds(const ArchitectureGraph& graph, double seconds) {
  const Operator op = make_gemm("register_tile_start", kM, kN, kK, DataType::fp32);
  const Mapping whole = parse_mapping(mapping_text(false), "register-tile-start");
  const Mapping split = parse_mapping(mapping_text(true), "register-tile-start");
  const MappingProgram pw = compile_mapping(whole, op, graph, false);
  const MappingProgram ps = compile_mapping(split, op, graph, false);
  const TiledGemm gw(pw, 1), gs(ps, 1);
  std::vector<float> a(kM * kK, 0.5f), b(kK * kN, 0.25f), c(kM * kN, 0.f);
  // Interleave the two so that a change of clock or load hits both.
  double tw = 1e9, ts_ = 1e9;
  for (int round = 0; round < 4; ++round) {
    tw = std::min(tw, quantile_seconds(gw, a.data(), b.data(), c.data(), seconds / 8));
    ts_ = std::min(ts_, quantile_seconds(gs, a.data(), b.data(), c.data(), seconds / 8));
  }
  const double tiles_whole = (kM / kRows) * (kN / kCols);
  const double tiles_split = tiles_whole * kK;
  double per_tile = (ts_ - tw) / (tiles_split - tiles_whole);
  // The C block's load and store the analysis already charges per RF tile.
  const NodeId rf = *graph.find_node("RF");
  const double c_bytes = kRows * kCols * 4.0;
  for (const ArchEdge& e : graph.edges) {
    if (e.to == rf && graph.node(e.from).kind == NodeKind::memory)
      per_tile -= c_bytes / e.bandwidth_bytes_per_s;
    if (e.from == rf && graph.node(e.to).kind == NodeKind::memory)
      per_tile -= c_bytes / e.bandwidth_bytes_per_s;
  }
  return std::max(0.0, per_tile);
}

}  // namespace ts::host
