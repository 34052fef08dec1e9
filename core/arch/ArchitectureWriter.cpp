// Quantities are written with the unit a person would use (`64KiB`, `1.83GHz`, `64B/cycle`) when
// that text reads back to the very same double, and as plain base units (`123456789.12345678B/s`)
// otherwise: a written graph must hash like the graph it came from, so that predictions cached
// under the hash stay valid and a fitted or calibrated graph is exactly what was measured.
#include "arch/ArchitectureWriter.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "arch/Units.hpp"
#include "common/AtomicFile.hpp"

namespace ts {
namespace {

struct Prefix {
  const char* name;
  double factor;
};

constexpr Prefix byte_prefixes[] = {
    {"", 1.0},  {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
    {"k", 1e3}, {"M", 1e6},     {"G", 1e9},        {"T", 1e12}};
constexpr Prefix si_prefixes[] = {{"", 1.0}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}};

// Picks the text a quantity is written as. Candidates are offered as (mantissa, prefix+unit,
// parse); for each, the mantissa is written with the fewest significant digits that parse back
// to exactly `value`. The shortest exact text wins, with a mantissa in [1, 1000) preferred;
// among equals the first offered. `{:.17g}` in the base unit is always exact, so there is always
// an answer.
class ExactText {
 public:
  explicit ExactText(double value) : value_(value) {}

  template <class Parse>
  void offer(double factor, const std::string& suffix, Parse&& parse) {
    const double mantissa = value_ / factor;
    for (int digits = 1; digits <= 17; ++digits) {
      std::string text = fmt::format("{:.{}g}{}", mantissa, digits, suffix);
      if (text.find('e') != std::string::npos) continue;  // `8e+10B`: a prefix reads better
      const std::optional<double> back = parse(text);
      if (back && *back == value_) {
        consider(text, mantissa);
        return;
      }
    }
  }
  void fallback(const std::string& unit) {
    consider(fmt::format("{:.17g}{}", value_, unit), value_);
  }
  const std::string& text() const { return best_; }

 private:
  // Shorter is better; a mantissa outside [1, 1000) costs a character and a half, so that
  // `2.954GHz` beats `2954MHz` and `700MHz` beats `0.7GHz`.
  void consider(const std::string& text, double mantissa) {
    const bool in_range = mantissa >= 1 && mantissa < 1000;
    const double score = static_cast<double>(text.size()) + (in_range ? 0 : 1.5);
    if (best_.empty() || score < best_score_) {
      best_ = text;
      best_score_ = score;
    }
  }
  double value_;
  std::string best_;
  double best_score_ = 0;
};

std::string bytes_text(double bytes) {
  ExactText t(bytes);
  for (const Prefix& p : byte_prefixes)
    t.offer(p.factor, std::string(p.name) + "B",
            [](const std::string& s) { return parse_bytes(s); });
  t.fallback("B");
  return t.text();
}

std::string frequency_text(double hz) {
  ExactText t(hz);
  for (const Prefix& p : si_prefixes)
    t.offer(p.factor, std::string(p.name) + "Hz",
            [](const std::string& s) { return parse_frequency_hz(s); });
  t.fallback("Hz");
  return t.text();
}

// `clock_hz`: the clock `B/cycle` would be read against (the source node's, as the loader does).
// A whole number of bytes per cycle is how hardware is specified, so it wins when exact.
std::string bandwidth_text(double bytes_per_s, double clock_hz) {
  auto parse = [&](const std::string& s) -> std::optional<double> {
    auto b = parse_bandwidth(s);
    return b ? std::optional(b->bytes_per_second(clock_hz)) : std::nullopt;
  };
  if (clock_hz > 0) {
    const double per_cycle = bytes_per_s / clock_hz;
    if (per_cycle == std::round(per_cycle) && per_cycle < 1e9) {
      std::string text = fmt::format("{:.0f}B/cycle", per_cycle);
      if (parse(text) == bytes_per_s) return text;
    }
  }
  ExactText t(bytes_per_s);
  for (const Prefix& p : si_prefixes) t.offer(p.factor, std::string(p.name) + "B/s", parse);
  t.fallback("B/s");
  return t.text();
}

std::string duration_text(double seconds) {
  if (seconds == 0) return "0";
  ExactText t(seconds);
  auto parse = [](const std::string& s) { return parse_duration_seconds(s); };
  t.offer(1.0, "s", parse);
  t.offer(1e-3, "ms", parse);
  t.offer(1e-6, "us", parse);
  t.offer(1e-9, "ns", parse);
  t.fallback("s");
  return t.text();
}

// A plain number that from_chars reads back to the same double.
std::string number_text(double v) { return fmt::format("{}", v); }

// A figure in a unit of `scale` (1e-12 for pJ), in the fewest digits that read back as the same
// double: the shortest text of the scaled value may not (32.377775 pJ is 3.2377775e-11 J times
// 1e12 = 32.377775000000004), and a graph must hash the same once written and read.
template <class Parse>
std::string scaled_text(double value, double scale, std::string_view unit, Parse&& parse) {
  for (int digits = 1; digits <= 17; ++digits) {
    std::string text = fmt::format("{:.{}g}", value / scale, digits) + std::string(unit);
    if (auto back = parse(text); back && *back == value) return text;
  }
  return number_text(value / scale) + std::string(unit);
}

// Picojoules, the unit energy tables use, with every digit kept.
std::string energy_text(double joules) {
  return scaled_text(joules, 1e-12, "pJ", parse_energy_joules);
}

// A YAML scalar, quoted when it must be (names and paths are usually plain).
std::string scalar(const std::string& text) {
  YAML::Emitter e;
  if (text.find_first_of("\n\r\t") != std::string::npos) e << YAML::DoubleQuoted;
  e << text;
  return e.c_str();
}

std::string comment_block(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += line.empty() ? "#\n" : "# " + line + "\n";
  return out;
}

std::string template_path(const std::string& resolved, const std::string& out_file) {
  namespace fs = std::filesystem;
  fs::path dir = fs::path(out_file).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  fs::path rel = fs::relative(fs::path(resolved), dir, ec);
  // relative() fails only when the paths cannot be related (another root); the loader accepts
  // an absolute path as it is.
  if (ec || rel.empty()) return fs::absolute(resolved).lexically_normal().string();
  return rel.generic_string();
}

std::string granule_text(const ComputeCapability& c) {
  if (c.op_class == OpClass::matmul)
    return fmt::format("[{}, {}, {}]", c.granule[0], c.granule[1], c.granule[2]);
  return fmt::format("[{}]", c.granule[0]);
}

std::string issue_text(const ComputeCapability& c) {
  if (!c.issue) return {};
  const IssueLimit& i = *c.issue;
  return fmt::format(
      ", issue: {{instructions_per_step: {}, instructions_per_fragment: {}, issue_per_cycle: {}, "
      "latency_cycles: {}}}",
      number_text(i.instructions_per_step), number_text(i.instructions_per_fragment),
      number_text(i.issue_per_cycle), number_text(i.latency_cycles));
}

std::string operation_cost_text(const ComputeCapability& c) {
  if (!c.operation_cost) return {};
  std::string entries;
  for (size_t k = 0; k < kOperationKinds; ++k) {
    if (static_cast<OperationKind>(k) == OperationKind::basic) continue;  // 1, the unit
    entries +=
        fmt::format("{}{}: {}", entries.empty() ? "" : ", ",
                    to_string(static_cast<OperationKind>(k)), number_text((*c.operation_cost)[k]));
  }
  return ", operation_cost: {" + entries + "}";
}

}  // namespace

std::string architecture_yaml(const ArchitectureGraph& graph, const std::string& header_comment,
                              const std::string& out_file) {
  std::string y = comment_block(header_comment);
  y += "version: 1\nkind: architecture\n";
  y += "name: " + scalar(graph.name) + "\n";
  if (!graph.description.empty()) y += "description: " + scalar(graph.description) + "\n";
  y += "clock: " + frequency_text(graph.clock_hz) + "\n";
  if (graph.launch_overhead_s != 0)
    y += "launch_overhead: " + duration_text(graph.launch_overhead_s) + "\n";
  if (graph.power_w > 0) y += "power: " + number_text(graph.power_w) + "W\n";
  if (!graph.launch_overheads.empty()) {
    y += "launch_overheads:\n";
    for (const auto& [type, seconds] : graph.launch_overheads)
      y += fmt::format("  {}: {}\n", type, duration_text(seconds));
  }

  y += "nodes:\n";
  for (const ArchNode& n : graph.nodes) {
    y += "  - name: " + scalar(n.name) + "\n";
    y += std::string("    type: ") + (n.kind == NodeKind::memory ? "memory" : "compute") + "\n";
    y += fmt::format("    instances: {}\n", n.instances);
    if (n.clock_hz != graph.clock_hz) y += "    clock: " + frequency_text(n.clock_hz) + "\n";
    if (n.dynamic_dispatch) y += "    dispatch: dynamic\n";
    if (n.padded_tails) y += "    tails: padded\n";
    if (n.leak_j_per_cycle) y += "    leak: " + energy_text(*n.leak_j_per_cycle) + "\n";
    if (n.area_m2) y += "    area: " + scaled_text(*n.area_m2, 1e-12, "um^2", parse_area_m2) + "\n";
    if (n.energy)
      y += fmt::format("    energy: {{read: {}, write: {}, update: {}, block_words: {}}}\n",
                       energy_text(n.energy->read_j), energy_text(n.energy->write_j),
                       energy_text(n.energy->update_j), n.energy->block_words);
    if (n.kind == NodeKind::memory) {
      y += "    capacity: " + bytes_text(n.capacity_bytes) + "\n";
      if (n.word_bytes != 1) y += fmt::format("    word_bytes: {}\n", n.word_bytes);
      // Port limits given per cycle are read against the memory's own clock.
      if (n.port_bytes_per_s > 0)
        y += "    bandwidth: " + bandwidth_text(n.port_bytes_per_s, n.clock_hz) + "\n";
      if (n.read_port_bytes_per_s > 0)
        y += "    read_bandwidth: " + bandwidth_text(n.read_port_bytes_per_s, n.clock_hz) + "\n";
      if (n.write_port_bytes_per_s > 0)
        y += "    write_bandwidth: " + bandwidth_text(n.write_port_bytes_per_s, n.clock_hz) + "\n";
      if (n.port_scope == PortScope::per_instance) y += "    port_scope: per_instance\n";
    } else {
      if (n.min_kernel_time_s > 0)
        y += "    min_kernel_time: " + duration_text(n.min_kernel_time_s) + "\n";
      y += "    operations:\n";
      for (const ComputeCapability& c : n.capabilities)
        y += fmt::format(
            "      - {{class: {}, dtype: {}, ops_per_cycle: {}{}, granule: {}{}{}{}{}}}\n",
            to_string(c.op_class), to_string(c.dtype), number_text(c.ops_per_cycle),
            c.datasheet_ops_per_cycle > 0
                ? ", datasheet_ops_per_cycle: " + number_text(c.datasheet_ops_per_cycle)
                : std::string(),
            granule_text(c),
            c.accumulator ? fmt::format(", accumulator: {}", to_string(*c.accumulator))
                          : std::string(),
            issue_text(c), operation_cost_text(c),
            c.energy_per_op_j > 0 ? ", energy_per_op: " + energy_text(c.energy_per_op_j)
                                  : std::string());
      if (!n.cost_hook.empty()) y += "    cost_hook: " + scalar(n.cost_hook) + "\n";
      if (!n.runs_as.empty()) {
        std::string pairs;
        for (const auto& [from, to] : n.runs_as)
          pairs +=
              fmt::format("{}{}: {}", pairs.empty() ? "" : ", ", to_string(from), to_string(to));
        y += "    runs_as: {" + pairs + "}\n";
      }
    }
  }

  if (!graph.edges.empty()) y += "edges:\n";
  for (const ArchEdge& e : graph.edges) {
    const ArchNode& from = graph.node(e.from);
    y += fmt::format("  - {{from: {}, to: {}, bandwidth: {}", scalar(from.name),
                     scalar(graph.node(e.to).name),
                     bandwidth_text(e.bandwidth_bytes_per_s, from.clock_hz));
    if (e.sharing == EdgeSharing::shared) y += ", sharing: shared";
    if (e.latency_cycles != 0) y += ", latency: " + number_text(e.latency_cycles);
    if (e.multicast) y += ", multicast: true";
    if (e.reduction == EdgeReduction::memory) y += ", reduction: memory";
    if (e.reduction == EdgeReduction::network) {
      y += ", reduction: network, reduction_topology: ";
      y += e.reduction_topology == ReductionTopology::tree ? "tree" : "chain";
      if (e.reduction_latency_cycles != 0)
        y += ", reduction_latency: " + number_text(e.reduction_latency_cycles);
      if (e.reduction_bandwidth_bytes_per_s > 0)
        y += ", reduction_bandwidth: " +
             bandwidth_text(e.reduction_bandwidth_bytes_per_s, from.clock_hz);
    }
    if (e.alignment)
      y += fmt::format(", alignment: {{bytes: {}, unaligned_rate: {}}}", e.alignment->bytes,
                       number_text(e.alignment->unaligned_rate));
    if (e.energy_per_byte_j) y += ", energy_per_byte: " + energy_text(*e.energy_per_byte_j);
    y += "}\n";
  }

  if (!graph.mapping_templates.empty() || !graph.operator_templates.empty()) {
    y += "mapping_templates:\n";
    auto menu = [&](const std::vector<std::string>& paths) {
      if (paths.size() == 1) return scalar(template_path(paths.front(), out_file));
      std::string list;
      for (const std::string& path : paths)
        list += (list.empty() ? "[" : ", ") + scalar(template_path(path, out_file));
      return list + "]";
    };
    for (const auto& [cls, paths] : graph.mapping_templates)
      y += fmt::format("  {}: {}\n", to_string(cls), menu(paths));
    for (const auto& [type, paths] : graph.operator_templates)
      y += fmt::format("  {}: {}\n", type, menu(paths));
  }
  return y;
}

void write_architecture(const ArchitectureGraph& graph, const std::string& header_comment,
                        const std::string& out_file) {
  const std::string text = architecture_yaml(graph, header_comment, out_file);
  write_file_atomically(out_file, text);
}

}  // namespace ts
