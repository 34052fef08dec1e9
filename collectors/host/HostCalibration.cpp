// `calibrate host`: topology from hwloc, figures from the microbenchmarks, and the graph built
// from them by the rules of docs/host.md. Every figure the graph holds comes from a line here
// that names its source, so that the written file's header can say where each number is from.
#include "host/HostCalibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>

#include "common/ByteFormat.hpp"
#include "common/UtcTime.hpp"
#include "host/HostTopology.hpp"
#include "host/MicroKernel.hpp"
#include "host/Microbench.hpp"
#include "host/OperationCost.hpp"
#include "host/RegisterTileCost.hpp"
#include "host/TileCopy.hpp"
#include "measure/MedianConfidence.hpp"

namespace ts::host {
namespace {

// The DRAM working set: 4x all the last-level cache there is (so that at most a quarter of it
// can still be cached when a pass comes back to it), at least 256 MiB (a machine that reports
// no or a tiny cache), at most a quarter of the memory (so that calibration never swaps).
double dram_working_set(const HostTopology& topo) {
  double llc = 0;
  if (!topo.caches().empty()) {
    const CacheLevel& last = topo.caches().back();
    llc = last.size_bytes * last.instances;
  }
  double bytes = std::max(4 * llc, 256.0 * (1 << 20));
  if (topo.memory_bytes() > 0) bytes = std::min(bytes, topo.memory_bytes() / 4);
  return bytes;
}

MeasuredFigure summarise(std::string name, std::string unit, std::vector<double> runs) {
  MeasuredFigure f{std::move(name), std::move(unit), std::move(runs)};
  std::vector<double> sorted = f.runs;
  std::sort(sorted.begin(), sorted.end());
  f.value = sorted_median(sorted);
  f.spread = f.value > 0 ? (sorted.back() - sorted.front()) / f.value : 0;
  return f;
}

ArchNode memory(std::string name, double capacity, int64_t instances, double clock_hz) {
  ArchNode n;
  n.name = std::move(name);
  n.kind = NodeKind::memory;
  n.capacity_bytes = capacity;
  n.instances = std::max<int64_t>(1, instances);
  n.clock_hz = clock_hz;
  return n;
}

// Effective capacity of a cache: what a tile may plan to keep in it. A cache is not a
// scratchpad: lines of the operands it does not hold a tile of, conflict misses of a set-
// associative cache on strided tiles, and the hardware prefetcher's lines all take room, so a
// tile that fills the whole cache is evicted while it is being reused. Half is the usual rule of
// thumb of blocked-GEMM libraries (BLIS and OpenBLAS block to about half of L1 and L2).
constexpr double kEffectiveCacheFraction = 0.5;

// The graph holds medians to 4 significant digits: runs spread by more than that, and the written
// file reads `4.957GB/s` instead of seventeen digits of noise.
double significant(double v, int digits = 4) {
  return v > 0 ? std::stod(fmt::format("{:.{}g}", v, digits)) : v;
}
// The same, rounded up: for limits derived from the compute rate, which must not fall below it.
double significant_up(double v, int digits = 4) {
  if (v <= 0) return v;
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - (digits - 1));
  return std::stod(fmt::format("{:.{}g}", std::ceil(v / scale) * scale, digits + 1));
}

}  // namespace

HostCalibration calibrate_host(const HostCalibrationOptions& options,
                               const std::function<void(const std::string&)>& progress) {
  auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  const int runs = std::max(1, options.runs);
  const double seconds = std::max(1e-4, options.seconds_per_test);

  say("discovering the topology (hwloc)");
  HostTopology topo;
  const int cores = topo.cores();
  HostCalibration cal;
  cal.when = utc_now_iso();
  cal.cpu_name = topo.cpu_model();
  say(fmt::format("{}: {}", topo.cpu_model(), topo.summary()));

  auto repeat = [&](const std::string& what, auto&& once) {
    say(fmt::format("measuring {} ({} run{})", what, runs, runs == 1 ? "" : "s"));
    std::vector<double> values;
    for (int r = 0; r < runs; ++r) values.push_back(once());
    return values;
  };
  // Records a figure and returns what the graph takes of it: the median, to 4 digits.
  auto add = [&](std::string name, std::string unit, std::vector<double> values) {
    cal.figures.push_back(summarise(std::move(name), std::move(unit), std::move(values)));
    const MeasuredFigure& f = cal.figures.back();
    say(fmt::format("  {}: {:.4g} {} (spread {:.1f}%)", f.name, f.value, f.unit, f.spread * 100));
    return significant(f.value);
  };

  // Clock and FMA rate are measured in pairs, one right after the other: MACs per cycle are FMAs
  // per second over the clock of the same moment, so a change of clock (turbo, a busy host)
  // between runs cancels out of the ratio.
  say(fmt::format("measuring the clock and vector FMA throughput ({} run{})", runs,
                  runs == 1 ? "" : "s"));
  std::vector<double> clock_runs, mac_runs;
  for (int r = 0; r < runs; ++r) {
    const double hz = bench::clock_hz(seconds);
    const double fma = bench::vector_fma_per_second(seconds);
    clock_runs.push_back(hz / 1e9);
    mac_runs.push_back(fma / hz * vector_lanes());
  }
  const double clock_hz = 1e9 * add("clock (dependent integer adds)", "GHz", clock_runs);
  const double macs_per_cycle = add(fmt::format("fp32 MACs per cycle per core ({} FMA, {} lanes)",
                                                bench::isa_display_name(), vector_lanes()),
                                    "MAC/cycle", mac_runs);

  // What an exp, a division and a square root cost in the vector capability's basic operations:
  // the seconds one core spends per element on one, in the kernels' own code on L1-resident
  // rows, times the basic operations per second of one core (clock x MACs per cycle). No
  // operation is priced below 1 (the graph requires it: the mapper's compute floor counts every
  // operation at the basic rate).
  OperationCounts operation_cost{1, 1, 1, 1};
  for (OperationKind kind : {OperationKind::exp, OperationKind::div, OperationKind::sqrt}) {
    const std::string name(to_string(kind));
    const double ns =
        add(fmt::format("{} per element, one core (vector kernels' code, L1-resident)", name), "ns",
            repeat(name + " per element",
                   [&] { return operation_seconds_per_element(kind, seconds) * 1e9; }));
    count_of(operation_cost, kind) =
        std::max(1.0, significant(ns * 1e-9 * clock_hz * macs_per_cycle));
    say(fmt::format("  {} costs {:.4g} basic operations", name, count_of(operation_cost, kind)));
  }

  // One buffer serves every bandwidth test: slice i (first touched by core i) is thread i's in
  // the all-core tests, and the single-core tests run from its start.
  const double dram_bytes = dram_working_set(topo);
  say(fmt::format("allocating {} for the bandwidth tests", format_bytes(dram_bytes)));
  bench::Buffer buffer(static_cast<size_t>(dram_bytes / cores), cores, &topo);

  // Bytes/s of one kind of access: one core over `bytes`, or all cores over `bytes` each.
  enum class Kind { read, write };
  auto bandwidth = [&](const std::string& level, Kind kind, bool all_cores, size_t bytes) {
    const std::string verb = kind == Kind::read ? "read" : "write";
    const std::string name = all_cores
                                 ? fmt::format("{} {}, all {} cores ({} each)", level, verb, cores,
                                               format_bytes(static_cast<double>(bytes)))
                                 : fmt::format("{} {} per core (working set {})", level, verb,
                                               format_bytes(static_cast<double>(bytes)));
    auto once = [&] {
      double bps = 0;
      if (all_cores)
        bps = kind == Kind::read
                  ? bench::parallel_read_bytes_per_second(buffer, bytes, cores, seconds, &topo)
                  : bench::parallel_write_bytes_per_second(buffer, bytes, cores, seconds, &topo);
      else
        bps = kind == Kind::read ? bench::read_bytes_per_second(buffer, bytes, seconds, &topo)
                                 : bench::write_bytes_per_second(buffer, bytes, seconds, &topo);
      return bps / 1e9;
    };
    const std::string what =
        fmt::format("{} {} bandwidth{}", level, verb, all_cores ? ", all cores" : "");
    return 1e9 * add(name, "GB/s", repeat(what, once));
  };

  struct LevelBandwidth {
    double read = 0, write = 0;          // one core, bytes/s
    double all_read = 0, all_write = 0;  // all cores together, bytes/s (shared levels only)
  };
  std::map<int, LevelBandwidth> levels;  // cache level -> its bandwidths; 0 is DRAM
  for (const CacheLevel& c : topo.caches()) {
    const auto set = static_cast<size_t>(c.size_bytes * kEffectiveCacheFraction);
    const std::string name = fmt::format("L{}", c.level);
    LevelBandwidth& b = levels[c.level];
    b.read = bandwidth(name, Kind::read, false, set);
    b.write = bandwidth(name, Kind::write, false, set);
    // A shared cache also needs what all cores get together: that is its port limit.
    if (c.cores_per_instance > 1) {
      const auto share = set / static_cast<size_t>(c.cores_per_instance);
      b.all_read = bandwidth(name, Kind::read, true, share);
      b.all_write = bandwidth(name, Kind::write, true, share);
    }
  }
  // The tiled kernel moves its L1 tile by copying rows of the level above into a buffer (its
  // packing): the edge into L1 carries what that copy achieves from an L2-resident matrix.
  double tile_copy = 0;
  for (const CacheLevel& c : topo.caches())
    if (c.level == 2)
      tile_copy = add("tile copy into L1 (the tiled kernel's packing), per core", "GB/s",
                      repeat("the tile copy into L1",
                             [&] {
                               return tile_copy_bytes_per_second(
                                          c.size_bytes * kEffectiveCacheFraction, seconds) /
                                      1e9;
                             })) *
                  1e9;
  LevelBandwidth& dram_bw = levels[0];
  dram_bw.read = bandwidth("DRAM", Kind::read, false, buffer.bytes());
  dram_bw.write = bandwidth("DRAM", Kind::write, false, buffer.bytes());
  dram_bw.all_read = bandwidth("DRAM", Kind::read, true, buffer.slice_bytes());
  dram_bw.all_write = bandwidth("DRAM", Kind::write, true, buffer.slice_bytes());

  const double region_us = add(fmt::format("OpenMP parallel region start, {} threads", cores), "us",
                               repeat("the parallel-region start cost", [&] {
                                 return bench::parallel_region_seconds(cores, seconds) * 1e6;
                               }));

  // --- the graph ---------------------------------------------------------------------------
  ArchitectureGraph& g = cal.graph;
  g.name = "host";
  g.description =
      fmt::format("{} ({}), {}", topo.cpu_model(), bench::isa_display_name(), topo.summary());
  g.clock_hz = clock_hz;
  g.launch_overhead_s = region_us * 1e-6;

  // Memories from the outside in: DRAM, the caches hwloc reported (outermost first), RF.
  struct Level {
    NodeId node;
    const LevelBandwidth* bw;
  };
  std::vector<Level> chain;
  ArchNode dram =
      memory("DRAM", topo.memory_bytes() > 0 ? topo.memory_bytes() : dram_bytes, 1, clock_hz);
  // Reads and writes share the memory channels: one combined port at the all-core read figure.
  dram.port_bytes_per_s = levels[0].all_read;
  g.nodes.push_back(dram);
  chain.push_back({NodeId{0}, &levels[0]});
  for (auto it = topo.caches().rbegin(); it != topo.caches().rend(); ++it) {
    ArchNode n = memory(fmt::format("L{}", it->level), it->size_bytes * kEffectiveCacheFraction,
                        it->instances, clock_hz);
    const LevelBandwidth& b = levels[it->level];
    n.read_port_bytes_per_s = b.all_read;  // 0 (no limit) for a private cache
    n.write_port_bytes_per_s = b.all_write;
    chain.push_back({NodeId{static_cast<int32_t>(g.nodes.size())}, &b});
    g.nodes.push_back(n);
  }
  // The vector register file as a memory, from ISA facts, not measured. Its effective capacity
  // is 7/8 of the registers: what a register block's accumulators may hold, the rest holding
  // the B vectors and the A broadcast (the tiled kernel's own rule, MicroKernel.hpp).
  const NodeId rf{static_cast<int32_t>(g.nodes.size())};
  g.nodes.push_back(
      memory("RF", vector_registers() * 7 / 8 * bench::vector_bytes(), cores, clock_hz));

  ArchNode core;
  core.name = "Core";
  core.kind = NodeKind::compute;
  core.instances = cores;
  core.clock_hz = clock_hz;
  const int64_t lanes = vector_lanes();
  core.capabilities.push_back(
      {OpClass::matmul, DataType::fp32, macs_per_cycle, {1, lanes, 1}, {}, {}, {}});
  // A vector operation per lane per FMA port per cycle: the same measured vector rate.
  for (OpClass vector_class : {OpClass::elementwise, OpClass::reduction}) {
    ComputeCapability c{vector_class, DataType::fp32, macs_per_cycle, {lanes, 1, 1}};
    c.operation_cost = operation_cost;  // exp, div, sqrt as measured above
    core.capabilities.push_back(c);
  }
  const NodeId core_id{static_cast<int32_t>(g.nodes.size())};
  g.nodes.push_back(core);

  auto edge = [&](NodeId from, NodeId to, double bandwidth, EdgeSharing sharing) {
    ArchEdge e;
    e.from = from;
    e.to = to;
    e.bandwidth_bytes_per_s = bandwidth;
    e.sharing = sharing;
    g.edges.push_back(e);
  };
  // Between two memories the upper level's figures: data read from it flows down, data written
  // to it flows up. DRAM's edges carry the all-core figure as one shared pool; a cache's carry
  // what one core gets, per instance, and the cache's ports cap them all together.
  for (size_t i = 0; i < chain.size(); ++i) {
    const NodeId upper = chain[i].node;
    const NodeId lower = i + 1 < chain.size() ? chain[i + 1].node : rf;
    const LevelBandwidth& b = *chain[i].bw;
    const bool is_dram = i == 0;
    double down = is_dram ? b.all_read : b.read;
    if (tile_copy > 0 && g.node(lower).name == "L1" && g.node(upper).name == "L2")
      down = std::min(down, tile_copy);
    edge(upper, lower, down, is_dram ? EdgeSharing::shared : EdgeSharing::per_instance);
    edge(lower, upper, is_dram ? b.all_write : b.write,
         is_dram ? EdgeSharing::shared : EdgeSharing::per_instance);
  }
  // Registers to the FMA units: each FMA reads three vector registers and writes one, so the
  // units consume 3 x vector bytes x FMAs per cycle and produce 1 x. These are what the units
  // themselves need at peak, so the edges never bound a mapping the units could run.
  const double fma_per_cycle = macs_per_cycle / static_cast<double>(lanes);
  edge(rf, core_id, significant_up(3.0 * bench::vector_bytes() * fma_per_cycle * clock_hz),
       EdgeSharing::per_instance);
  edge(core_id, rf, significant_up(1.0 * bench::vector_bytes() * fma_per_cycle * clock_hz),
       EdgeSharing::per_instance);
  g.finalize();

  // Starting a register tile, measured with the tiled kernel on the graph just built; the edge
  // into RF carries it as latency, which the analysis charges once per RF tile.
  const double tile_ns = add("register tile start (tiled GEMM, 6x16 block)", "ns",
                             repeat("the register-tile start cost",
                                    [&] { return register_tile_start_seconds(g, seconds) * 1e9; }));
  for (ArchEdge& e : g.edges)
    if (e.to == rf && g.node(e.from).kind == NodeKind::memory)
      e.latency_cycles = std::round(tile_ns * 1e-9 * clock_hz * 10) / 10;
  g.finalize();
  for (const auto& f : cal.figures) cal.max_spread = std::max(cal.max_spread, f.spread);
  return cal;
}

// --- templates -------------------------------------------------------------------------------

namespace {

// The memory levels between DRAM and RF that the graph has, outermost first.
std::vector<std::string> cache_levels(const ArchitectureGraph& g) {
  std::vector<std::string> levels;
  for (const char* name : {"L3", "L2", "L1"})
    if (g.find_node(name)) levels.push_back(name);
  return levels;
}

// The level whose parent spreads tiles over the cores: the first per-core cache (L2, else L1).
std::string per_core_level(const std::vector<std::string>& levels) {
  for (const char* name : {"L2", "L1"})
    if (std::find(levels.begin(), levels.end(), name) != levels.end()) return name;
  return "RF";
}

std::string indent(int depth) { return std::string(static_cast<size_t>(depth) * 4 + 2, ' '); }

// The chain of tiles DRAM, then the cache levels, each with its own lines (written by
// `body(out, indent, level index, spreads over the cores)`) and a `children:` key; returns the
// depth at which the next child goes.
template <typename Body>
int write_tile_chain(std::string& y, const std::vector<std::string>& levels,
                     const std::string& spread_into, Body&& body) {
  std::vector<std::string> tiles{"DRAM"};
  tiles.insert(tiles.end(), levels.begin(), levels.end());
  int depth = 0;
  for (size_t i = 0; i < tiles.size(); ++i) {
    const std::string pad = indent(depth);
    const std::string lead = i == 0 ? "  " : indent(depth - 1) + "  - ";
    y += lead + "tile: " + tiles[i] + "\n";
    const bool spreads = i + 1 < tiles.size() ? tiles[i + 1] == spread_into : spread_into == "RF";
    body(y, pad, i, spreads);
    y += pad + "children:\n";
    ++depth;
  }
  return depth;
}

}  // namespace

std::string host_gemm_template_yaml(const ArchitectureGraph& graph) {
  const std::vector<std::string> levels = cache_levels(graph);
  const std::string spread_into = per_core_level(levels);
  std::string y =
      "# The host tiled GEMM (collectors/host/TiledGemm): the loop nest the kernel runs, block "
      "sizes\n"
      "# left to the mapper. Output tiles are spread over the cores (one L2 tile per core at a\n"
      "# time, more tiles than cores run in waves); every cache level holds blocks of A, B and C;\n"
      "# the innermost block of C stays in vector registers for the whole K loop of the RF tile,\n"
      "# while A and B stream from L1 straight into the FMAs (broadcast A, vector loads of B).\n"
      "# Generated by `tilescope calibrate host` for the levels this machine has.\n"
      "version: 1\nkind: mapping\nname: host-gemm-template\ntree:\n";
  const int depth = write_tile_chain(
      y, levels, spread_into, [](std::string& out, const std::string& pad, size_t, bool spreads) {
        if (spreads)
          out += pad + "spatial: {M: \"?\", N: \"?\"}   # over the cores; more tiles are waves\n";
        out += pad + "temporal: {M: \"?\", N: \"?\", K: \"?\"}\n";
        out += pad + "order: \"?\"\n";
      });
  const std::string rf = indent(depth - 1) + "  - ";
  y += rf + "tile: RF\n";
  y += indent(depth) + "buffers: {A: bypass, B: bypass}   # C accumulates in registers\n";
  y += indent(depth) + "temporal: {K: \"?\"}\n";
  y += indent(depth) + "children:\n";
  y += indent(depth) + "  - op: Core\n";
  y += indent(depth) + "    factors: {M: \"?\", N: \"?\", K: 1}\n";
  return y;
}

std::string host_vector_template_yaml(const ArchitectureGraph& graph) {
  const std::vector<std::string> levels = cache_levels(graph);
  const std::string spread_into = per_core_level(levels);
  std::string y =
      "# Vector operators on the host: rows spread over the cores, blocks streamed through the\n"
      "# caches into the vector units. The levels below DRAM are double-buffered: the hardware\n"
      "# prefetcher brings the next block while the current one is computed.\n"
      "# Generated by `tilescope calibrate host` for the levels this machine has.\n"
      "version: 1\nkind: mapping\nname: host-vector-template\ntree:\n";
  const int depth =
      write_tile_chain(y, levels, spread_into,
                       [](std::string& out, const std::string& pad, size_t level, bool spreads) {
                         if (level > 0) out += pad + "double_buffer: true\n";
                         if (spreads) out += pad + "spatial: {R: \"?\"}   # rows over the cores\n";
                         out += pad + "temporal: {R: \"?\", C: \"?\"}\n";
                       });
  y += indent(depth - 1) + "  - op: Core\n";
  y += indent(depth) + "factors: {R: \"?\", C: \"?\"}\n";
  return y;
}

}  // namespace ts::host
