#pragma once
// The machines a training job runs on (`kind: cluster` files, docs/formats.md): nodes of
// identical devices, each device an architecture graph (its compute and HBM), the links inside
// a node and the network between nodes.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "common/InputError.hpp"
#include "training/HostDispatch.hpp"

namespace ts {

struct ClusterLink {
  double bandwidth_bytes_per_s = 0;  // per device (intra-node) or per NIC, each direction
  double latency_s = 0;
  SourceLocation where;
};

// One level of switches above the NICs, a fat tree's leaves first: groups of `nodes` consecutive
// nodes hang from one switch, whose links to the level above carry, each way, the group's NIC
// bandwidth (nodes x NICs per node x NIC bandwidth) over `oversubscription`.
struct SwitchLevel {
  int64_t nodes = 1;
  double oversubscription = 1;  // 1: non-blocking
  SourceLocation where;
};

struct Cluster {
  std::string name;
  std::string file;
  int64_t nodes = 1;
  int64_t devices_per_node = 1;
  std::string device_file;  // resolved against the cluster file
  ArchitectureGraph device;
  ClusterLink intra_node;  // a device's link into the node's switch (NVLink to NVSwitch)
  // The node's NICs, shared by its GPUs (default when a file does not say: one per GPU, the
  // meaning files had before the key was shared).
  int64_t nics_per_node = 1;
  ClusterLink nic;  // one NIC into the network
  // Host time per kernel beyond the device graph's `launch_overhead`: what the framework
  // (PyTorch's dispatcher, Megatron's Python) spends to issue one kernel.
  double framework_overhead_s = 0;
  // Host seconds per call of each kind (`host:` in the file, docs/formats.md): its figures, then
  // `framework_overhead` for the kinds that launch kernels (aten_op, gemm, fused_op, collective)
  // that `host:` leaves out, then HostDispatchCosts' defaults.
  HostDispatchCosts host;
  // The network above the NICs, leaves first (none: every NIC reaches every other at its rate).
  std::vector<SwitchLevel> switch_levels;
  // Compute and communication overlapping on one device both run this much slower (0.1: 10 %).
  double interference = 0;
  SourceLocation where, nodes_where;

  int64_t gpus() const { return nodes * devices_per_node; }
  int64_t node_of_gpu(int64_t gpu) const { return gpu / devices_per_node; }
  // Each GPU's share of its node's NICs when every GPU of the node sends across nodes at once,
  // as the ranks of a collective do (NCCL spreads its channels over all the node's NICs).
  double nic_share_bytes_per_s() const {
    return nic.bandwidth_bytes_per_s * static_cast<double>(nics_per_node) /
           static_cast<double>(devices_per_node);
  }
};

Cluster parse_cluster(const std::string& text, const std::string& file_name);
Cluster load_cluster(const std::string& path);

}  // namespace ts
