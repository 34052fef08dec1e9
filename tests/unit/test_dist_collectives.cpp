// Collectives decomposed into steps on links and run on the task-graph executor reproduce the
// nccl-tests bus bandwidth: whatever the rank count, bus bandwidth equals the link bandwidth
// when nothing else slows the ring (shared/validation/README.md, "Bus bandwidth"). And
// point-to-point messages give the alpha-beta values of the same README.
#include <catch2/catch.hpp>
#include <cmath>

#include "arch/Units.hpp"
#include "training/Collectives.hpp"

using namespace ts;

namespace {

double collective_time(CollectiveKind kind, int64_t n, double bytes, double bandwidth,
                       double latency) {
  TaskGraph g;
  std::vector<Link> links;
  for (int64_t r = 0; r < n; ++r) links.push_back({g.add_stream(), bandwidth, latency});
  add_collective(g, kind, links, bytes, std::vector<int>(static_cast<size_t>(n), -1));
  return run_task_graph(g).makespan_s;
}

}  // namespace

TEST_CASE("ring and direct collectives run at the nccl-tests bus bandwidth", "[dist][collective]") {
  const double bytes = 1024.0 * 1024 * 1024, bandwidth = 100e9;
  for (int64_t n : {2, 4, 8, 16}) {
    for (auto kind : {CollectiveKind::all_reduce, CollectiveKind::reduce_scatter,
                      CollectiveKind::all_gather, CollectiveKind::all_to_all}) {
      INFO("n " << n << ", kind " << static_cast<int>(kind));
      const double t = collective_time(kind, n, bytes, bandwidth, 0);
      const double bus = bytes / t * bus_bandwidth_factor(kind, n);
      CHECK(bus == Approx(bandwidth).epsilon(1e-12));
    }
  }
  // The factors themselves, as nccl-tests defines them: 2(n-1)/n for all-reduce, (n-1)/n for
  // reduce-scatter, all-gather and all-to-all.
  CHECK(bus_bandwidth_factor(CollectiveKind::all_reduce, 8) == Approx(14.0 / 8));
  CHECK(bus_bandwidth_factor(CollectiveKind::all_gather, 8) == Approx(7.0 / 8));
}

TEST_CASE("a ring pays its link latency once per step", "[dist][collective]") {
  // All-reduce over 8 ranks: 2 x 7 steps, each moving 1/8 of the buffer over a link and paying
  // its latency: 14 x (S / (8 B) + alpha).
  const double bytes = 8e6, bandwidth = 50e9, alpha = 2e-6;
  CHECK(collective_time(CollectiveKind::all_reduce, 8, bytes, bandwidth, alpha) ==
        Approx(14 * (bytes / 8 / bandwidth + alpha)));
  // One rank has nothing to exchange.
  CHECK(collective_time(CollectiveKind::all_reduce, 1, bytes, bandwidth, alpha) == 0);
}

TEST_CASE("point-to-point messages take the alpha-beta times of the reference simulator",
          "[dist][collective]") {
  // 1 MiB over 50 GiB/s links with 500 ns per hop: 19,531 ns of serialisation plus 500 ns per
  // hop (that simulator's GB/s is 2^30 bytes per second, which tilescope writes GiB/s).
  const double bytes = *parse_bytes("1MiB");
  const double bandwidth = parse_bandwidth("50GiB/s")->bytes_per_second(0);
  const double hop = *parse_duration_seconds("500ns");
  CHECK(std::round(point_to_point_s(bytes, bandwidth, 1, hop) * 1e9) == 20031);
  CHECK(std::round(point_to_point_s(bytes, bandwidth, 2, hop) * 1e9) == 20531);
  CHECK(std::round(point_to_point_s(bytes, bandwidth, 3, hop) * 1e9) == 21031);
}

TEST_CASE("a hierarchical all-reduce takes the time of its three phases", "[dist][collective]") {
  // shared/validation/communication.md: k GPUs per node with a NIC each, N nodes:
  // 2 (k-1)/k S / B_nvlink + 2 (N-1)/N (S/k) / B_nic, plus the latency of every step:
  // k-1 steps of reduce-scatter and k-1 of all-gather inside the node, 2 (N-1) across.
  const double S = 1024.0 * 1024 * 1024, nv = 230e9, ib = 25e9;
  for (auto [alpha_nv, alpha_ib] : {std::pair{0.0, 0.0}, std::pair{3.4e-6, 9.6e-6}}) {
    for (auto [k, N] : {std::pair{4, 4}, std::pair{8, 2}, std::pair{2, 8}}) {
      INFO("k " << k << " N " << N << " alpha " << alpha_nv);
      TaskGraph g;
      std::vector<Link> intra, inter;
      for (int r = 0; r < k * N; ++r) {
        intra.push_back({g.add_stream(), nv, alpha_nv});
        inter.push_back({g.add_stream(), ib, alpha_ib});
      }
      add_hierarchical_collective(g, CollectiveKind::all_reduce, intra, inter, k, S,
                                  std::vector<int>(static_cast<size_t>(k * N), -1));
      const double expected = 2.0 * (k - 1) / k * S / nv + 2.0 * (N - 1) / N * (S / k) / ib +
                              2.0 * (k - 1) * alpha_nv + 2.0 * (N - 1) * alpha_ib;
      CHECK(run_task_graph(g).makespan_s == Approx(expected).epsilon(1e-9));
    }
  }
}
