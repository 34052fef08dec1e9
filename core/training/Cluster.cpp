#include "training/Cluster.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchitectureLoader.hpp"
#include "arch/Units.hpp"
#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"
#include "profile/ArchitectureReference.hpp"

namespace ts {

namespace {

ClusterLink link_at(const YamlSource& src, const YAML::Node& map, std::string_view key) {
  const std::string label = "`" + std::string(key) + "`";
  YAML::Node n = src.require(map, key, "a cluster");
  src.expect_map(n, label);
  if (key == "inter_node")
    src.check_keys(n, {"bandwidth", "latency", "nics_per_node"}, label);
  else
    src.check_keys(n, {"bandwidth", "latency"}, label);
  ClusterLink l;
  l.where = src.where(n);
  const YAML::Node bw = src.require(n, "bandwidth", label);
  const auto parsed = parse_bandwidth(src.text(bw, "bandwidth"));
  if (!parsed || parsed->per != Bandwidth::Per::second || parsed->value <= 0)
    src.fail(
        bw, "expected a positive bandwidth such as `300GB/s` for `bandwidth`, got " + describe(bw));
  l.bandwidth_bytes_per_s = parsed->value;
  if (n["latency"].IsDefined()) {
    const auto lat = parse_duration_seconds(src.text(n["latency"], "latency"));
    if (!lat || *lat < 0)
      src.fail(n["latency"],
               "expected a duration such as `2us` for `latency`, got " + describe(n["latency"]));
    l.latency_s = *lat;
  }
  return l;
}

// `host: {aten_op: 9us, gemm: 12us, ...}`: seconds per call of each kind. `framework_overhead`
// was the host's time per kernel: written, it stands for each kind of call that launches
// kernels (aten_op, gemm, fused_op, collective) that `host:` does not give; the host-only kinds
// (autograd_node, view, python_module) keep their defaults. Without either, the defaults
// (HostDispatch.cpp).
void read_host_costs(const YamlSource& src, const YAML::Node& root, Cluster& c) {
  if (root["framework_overhead"].IsDefined())
    for (HostCallKind k : {HostCallKind::aten_op, HostCallKind::gemm, HostCallKind::fused_op,
                           HostCallKind::collective})
      c.host.seconds(k) = c.framework_overhead_s;
  const YAML::Node host = root["host"];
  if (!host.IsDefined()) return;
  src.expect_map(host, "`host`");
  src.check_keys(host,
                 std::vector<std::string>(kHostCallKindNames.begin(), kHostCallKindNames.end()),
                 "`host`");
  for (const auto& entry : host) {
    const std::string key = entry.first.as<std::string>();
    const YAML::Node value = entry.second;
    const std::optional<HostCallKind> kind = host_call_kind(key);
    if (!kind)
      src.fail(value, "unknown kind of host call '" + key + "'");  // check_keys refuses it first
    const auto t = value.IsScalar() ? parse_duration_seconds(value.Scalar()) : std::nullopt;
    if (!t || *t < 0)
      src.fail(value, "expected a duration of at least 0 such as `9us` for `host." + key +
                          "` (host time per call), got " + describe(value));
    c.host.seconds(*kind) = *t;
  }
}

Cluster read_cluster(const YamlSource& src) {
  src.check_header("cluster");
  const YAML::Node& root = src.root();
  src.check_keys(root,
                 {"version", "kind", "name", "description", "nodes", "devices_per_node", "device",
                  "intra_node", "inter_node", "switch_levels", "oversubscription", "interference",
                  "framework_overhead", "host"},
                 "a cluster");
  Cluster c;
  c.file = src.file();
  c.where = src.where(root);
  c.name = src.text_or(root, "name", file_stem(src.file()));
  c.nodes = src.positive_integer(src.require(root, "nodes", "a cluster"), "nodes");
  c.nodes_where = src.where(root["nodes"]);
  c.devices_per_node =
      src.positive_integer(src.require(root, "devices_per_node", "a cluster"), "devices_per_node");
  const YAML::Node device = src.require(root, "device", "a cluster");
  c.device_file = is_profile_reference(src.text(device, "device"))
                      ? resolve_architecture_file(src.text(device, "device"), src.where(device))
                      : src.existing_path(device, "device graph");
  c.device = load_architecture(c.device_file);
  c.intra_node = link_at(src, root, "intra_node");
  c.nic = link_at(src, root, "inter_node");
  // Without the key each GPU has a NIC of its own, as the simulator timed every file before
  // NICs were shared by the GPUs of a node.
  c.nics_per_node =
      src.positive_integer_or(root["inter_node"], "nics_per_node", c.devices_per_node);
  // gpus() and the flows over the NICs (NetworkRoutes) are products of these counts.
  checked_product(
      {{c.nodes, c.nodes_where}, {c.devices_per_node, src.where(root["devices_per_node"])}},
      "nodes x devices_per_node");
  if (const YAML::Node nics = root["inter_node"]["nics_per_node"]; nics.IsDefined())
    checked_product({{c.nodes, c.nodes_where}, {c.nics_per_node, src.where(nics)}},
                    "nodes x nics_per_node");
  if (root["interference"].IsDefined()) {
    c.interference = src.number(root["interference"], "interference");
    if (c.interference < 0)
      src.fail(root["interference"],
               "`interference` is a slowdown of at least 0 (0.1: 10 % slower while overlapping)");
  }
  // Measured (docs/formats.md): a small kernel timed from the host (PyTorch softmax over
  // 4096 x 32, 13.11 us, shared/validation/a100/a100_torch_kernels.csv) less its device time
  // (2.0 us for vector kernels over the same 131072 elements, a100_llm_operators.csv) is 11.1 us
  // of host time per kernel; the A100 graph's launch_overhead (4 us) is part of it.
  c.framework_overhead_s = 7e-6;
  if (root["framework_overhead"].IsDefined()) {
    const auto t =
        parse_duration_seconds(src.text(root["framework_overhead"], "framework_overhead"));
    if (!t || *t < 0)
      src.fail(root["framework_overhead"],
               "expected a duration such as `7us` for `framework_overhead` (host time per kernel), "
               "got " +
                   describe(root["framework_overhead"]));
    c.framework_overhead_s = *t;
  }
  read_host_costs(src, root, c);
  if (root["oversubscription"].IsDefined())
    src.fail(root["oversubscription"],
             "`oversubscription` belongs to a level of switches: `switch_levels: [{nodes: 20, "
             "oversubscription: 2}, ...]` (nodes per switch, leaves first)");
  if (root["switch_levels"].IsDefined()) {
    const YAML::Node levels = root["switch_levels"];
    if (!levels.IsSequence())
      src.fail(levels,
               "expected a list of levels such as `[{nodes: 20, oversubscription: 1}]` "
               "for `switch_levels`, got " +
                   describe(levels));
    for (const YAML::Node& n : levels) {
      src.expect_map(n, "a switch level");
      src.check_keys(n, {"nodes", "oversubscription"}, "a switch level");
      SwitchLevel level;
      level.where = src.where(n);
      level.nodes = src.positive_integer(src.require(n, "nodes", "a switch level"), "nodes");
      if (n["oversubscription"].IsDefined()) {
        level.oversubscription = src.number(n["oversubscription"], "oversubscription");
        if (level.oversubscription < 1)
          src.fail(n["oversubscription"],
                   "`oversubscription` is at least 1 (1: a non-blocking level)");
      }
      if (!c.switch_levels.empty()) {
        const int64_t below = c.switch_levels.back().nodes;
        if (level.nodes <= below || level.nodes % below != 0)
          src.fail(n["nodes"], "a switch level's `nodes` is a multiple of the level below's (" +
                                   std::to_string(below) + ") and larger, got " +
                                   std::to_string(level.nodes));
      }
      c.switch_levels.push_back(level);
    }
  }
  return c;
}

}  // namespace

Cluster parse_cluster(const std::string& text, const std::string& file_name) {
  return read_cluster(YamlSource::parse(text, file_name));
}

Cluster load_cluster(const std::string& path) { return read_cluster(YamlSource::load(path)); }

}  // namespace ts
