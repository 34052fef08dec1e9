#include "profile/GpuFamily.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "arch/GraphKeys.hpp"
#include "arch/Units.hpp"
#include "common/YamlSource.hpp"
#include "profile/Profile.hpp"

namespace ts {
namespace {

enum class RuleKind { count, bytes, number, per_cycle, duration, energy };

struct RuleKey {
  std::string_view key;
  RuleKind kind;
  bool per_generation;  // false: graph-wide, given by the family and optionally by a generation
  std::string_view example;
};

constexpr RuleKey kRuleKeys[] = {
    {"fp32_cores_per_sm", RuleKind::count, true, "64"},
    {"shared_memory_per_sm", RuleKind::bytes, true, "164KiB"},
    {"registers_per_sm", RuleKind::bytes, true, "256KiB"},
    {"fp16_vector_ratio", RuleKind::number, true, "2"},
    {"shared_memory_bandwidth", RuleKind::per_cycle, true, "128B/cycle"},
    {"l2_bandwidth_per_sm", RuleKind::per_cycle, true, "47.41B/cycle"},
    {"matrix_feed", RuleKind::per_cycle, true, "4096B/cycle"},
    {"vector_feed", RuleKind::per_cycle, true, "512B/cycle"},
    {"fp32_energy_per_op", RuleKind::energy, true, "25pJ"},
    {"vector_granule", RuleKind::count, false, "32"},
    {"launch_overhead", RuleKind::duration, false, "4us"},
    {"min_kernel_time", RuleKind::duration, false, "2us"},
};

std::string_view kind_words(RuleKind kind) {
  switch (kind) {
    case RuleKind::count:
      return "a positive whole number";
    case RuleKind::bytes:
      return "a size in bytes";
    case RuleKind::number:
      return "a positive number";
    case RuleKind::per_cycle:
      return "a bandwidth in bytes per cycle";
    case RuleKind::duration:
      return "a duration";
    case RuleKind::energy:
      return "an energy";
  }
  return "";
}

std::optional<double> parse_rule_value(RuleKind kind, std::string_view text) {
  switch (kind) {
    case RuleKind::count: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size() && v > 0)
        return static_cast<double>(v);
      return std::nullopt;
    }
    case RuleKind::bytes:
      return parse_bytes(text);
    case RuleKind::number: {
      double v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size() && v > 0) return v;
      return std::nullopt;
    }
    case RuleKind::per_cycle: {
      auto b = parse_bandwidth(text);
      if (b && b->per == Bandwidth::Per::cycle) return b->value;
      return std::nullopt;
    }
    case RuleKind::duration:
      if (text == "0") return 0.0;
      return parse_duration_seconds(text);
    case RuleKind::energy:
      return parse_energy_joules(text);
  }
  return std::nullopt;
}

constexpr std::string_view kGranuleTypes[] = {"fp32", "tf32", "fp16", "bf16",
                                              "fp8",  "int8", "int4"};

class FamilyReader {
 public:
  explicit FamilyReader(const YamlSource& src) : src_(src) {}

  GpuFamily read() {
    src_.check_header("gpu_family");
    const YAML::Node& root = src_.root();
    std::vector<std::string> keys{
        "version", "kind",    "vendor",           "description",       "unit",
        "nodes",   "kernels", "launch_overheads", "mapping_templates", "generations"};
    for (const RuleKey& k : kRuleKeys)
      if (!k.per_generation) keys.emplace_back(k.key);
    src_.check_keys(root, keys, "a gpu_family");
    f_.file = src_.file();
    f_.vendor = src_.text(src_.require(root, "vendor", "a gpu_family"), "vendor");
    f_.description = src_.text_or(root, "description", "");
    f_.unit = src_.text_or(root, "unit", "SM");
    read_nodes(src_.require(root, "nodes", "a gpu_family"));
    const YAML::Node kernels = src_.require(root, "kernels", "a gpu_family");
    f_.kernels_folder =
        (std::filesystem::path(src_.file()).parent_path() / src_.text(kernels, "kernels"))
            .lexically_normal()
            .string();

    std::map<std::string, FamilyRule> graph_rules;
    for (const RuleKey& k : kRuleKeys)
      if (!k.per_generation)
        if (const YAML::Node r = root[std::string(k.key)]; r.IsDefined())
          graph_rules[std::string(k.key)] = read_rule(r, k);
    std::map<std::string, FamilyRule> overheads;
    if (const YAML::Node o = root["launch_overheads"]; o.IsDefined()) overheads = read_overheads(o);
    std::map<std::string, std::vector<KernelChoice>> templates;
    if (const YAML::Node t = root["mapping_templates"]; t.IsDefined()) templates = read_menus(t);

    const YAML::Node gens = src_.require(root, "generations", "a gpu_family");
    src_.expect_map(gens, "`generations` (name: rules)");
    if (gens.size() == 0) src_.fail(gens, "`generations` is empty; expected at least one");
    for (const auto& entry : gens) {
      GpuGeneration g = read_generation(entry.first, entry.second);
      for (const auto& [key, rule] : graph_rules) g.rules.emplace(key, rule);  // own ones win
      for (const auto& [type, rule] : overheads) g.launch_overheads.emplace(type, rule);
      for (const auto& [key, menu] : templates) g.mapping_templates.emplace(key, menu);
      for (const RuleKey& k : kRuleKeys)
        // Without tensor cores (Pascal) nothing is fed from the registers to them.
        if (!g.rules.count(std::string(k.key)) &&
            !(k.key == "matrix_feed" && g.matrix_granules.empty()))
          src_.fail(entry.second,
                    fmt::format("generation '{}' has no rule `{}` and neither has the family; "
                                "expected `{}: {{value: {}, source: ...}}`",
                                g.name, k.key, k.key, k.example));
      f_.generations.push_back(std::move(g));
    }
    return std::move(f_);
  }

 private:
  void read_nodes(const YAML::Node& n) {
    src_.check_keys(n, {"memory", "l2", "shared", "registers", "matrix", "vector"},
                    "`nodes` (the generated graph's node names)");
    auto name = [&](const char* key) {
      return src_.text(src_.require(n, key, "`nodes`"), std::string("nodes.") + key);
    };
    f_.nodes = GpuNodeNames{name("memory"),    name("l2"),     name("shared"),
                            name("registers"), name("matrix"), name("vector")};
  }

  FamilyRule read_rule(const YAML::Node& r, const RuleKey& k) {
    const std::string what = fmt::format("rule `{}`", k.key);
    src_.expect_map(r, what + " ({value: ..., source: ...})");
    src_.check_keys(r, {"value", "source"}, what);
    FamilyRule rule;
    const YAML::Node v = src_.require(r, "value", what);
    rule.text = v.IsScalar() ? v.Scalar() : std::string();
    const std::optional<double> value = parse_rule_value(k.kind, rule.text);
    if (!value)
      src_.fail(v, fmt::format("expected {} for `{}` such as `{}`, got {}", kind_words(k.kind),
                               k.key, k.example, describe(v)));
    rule.value = *value;
    rule.source = src_.text(src_.require(r, "source", what), "source");
    rule.where = src_.where(r);
    return rule;
  }

  std::map<std::string, FamilyRule> read_overheads(const YAML::Node& o) {
    src_.expect_map(o, "`launch_overheads` (operator type: {value, source})");
    src_.check_keys(o, launch_overhead_keys(), "`launch_overheads`");
    static constexpr RuleKey kOverhead{"launch_overheads", RuleKind::duration, false, "45us"};
    std::map<std::string, FamilyRule> out;
    for (const auto& entry : o) out[entry.first.Scalar()] = read_rule(entry.second, kOverhead);
    return out;
  }

  std::map<std::string, std::vector<KernelChoice>> read_menus(const YAML::Node& t) {
    src_.expect_map(t, "`mapping_templates` (class or operator type: kernels)");
    src_.check_keys(t, mapping_template_keys(), "`mapping_templates`");
    std::map<std::string, std::vector<KernelChoice>> menus;
    for (const auto& entry : t) {
      const std::string key = entry.first.Scalar();
      std::vector<KernelChoice> menu;
      if (entry.second.IsSequence()) {
        if (entry.second.size() == 0)
          src_.fail(entry.second, "an empty kernel menu for `" + key +
                                      "`; expected a kernel name or a list of them");
        for (const YAML::Node& item : entry.second) menu.push_back(read_choice(item));
      } else {
        menu.push_back(read_choice(entry.second));
      }
      menus[key] = std::move(menu);
    }
    return menus;
  }

  KernelChoice read_choice(const YAML::Node& item) {
    KernelChoice c;
    // Not `YAML::Node name = item; name = ...`: assigning to a yaml-cpp node writes into the tree.
    const YAML::Node name =
        item.IsMap() ? src_.require(item, "kernel", "a kernel of a menu") : item;
    if (item.IsMap()) {
      src_.check_keys(item, {"kernel", "when"}, "a kernel of a menu");
      if (const YAML::Node w = item["when"]; w.IsDefined()) {
        const std::string when = src_.text(w, "when");
        if (when == "matrix")
          c.when = KernelCondition::matrix;
        else if (when == "no_matrix")
          c.when = KernelCondition::no_matrix;
        else
          src_.fail(w, "unknown condition '" + when +
                           "'; expected matrix (only with tensor cores) or no_matrix (only "
                           "without)");
      }
    }
    c.kernel = src_.text(name, "kernel");
    if (!is_profile_name(c.kernel) || c.kernel.find_first_not_of('.') == std::string::npos)
      src_.fail(name, "'" + c.kernel +
                          "' is not a kernel name; expected a file name without `.yaml` in the "
                          "kernels folder (letters, digits, '-', '_', '.')");
    return c;
  }

  GpuGeneration read_generation(const YAML::Node& key, const YAML::Node& g) {
    GpuGeneration gen;
    gen.name = src_.text(key, "generation");
    gen.where = src_.where(key);
    const std::string what = "generation '" + gen.name + "'";
    src_.expect_map(g, what);
    std::vector<std::string> keys{"description", "matrix_granules", "launch_overheads",
                                  "mapping_templates"};
    for (const RuleKey& k : kRuleKeys) keys.emplace_back(k.key);
    src_.check_keys(g, keys, what);
    gen.description = src_.text_or(g, "description", "");
    for (const RuleKey& k : kRuleKeys)
      if (const YAML::Node r = g[std::string(k.key)]; r.IsDefined())
        gen.rules[std::string(k.key)] = read_rule(r, k);
    if (const YAML::Node o = g["launch_overheads"]; o.IsDefined())
      gen.launch_overheads = read_overheads(o);
    if (const YAML::Node t = g["mapping_templates"]; t.IsDefined())
      gen.mapping_templates = read_menus(t);
    if (const YAML::Node m = g["matrix_granules"]; m.IsDefined()) read_granules(gen, m);
    return gen;
  }

  void read_granules(GpuGeneration& gen, const YAML::Node& m) {
    src_.expect_map(m, "`matrix_granules` (data type: [m, n, k], source: ...)");
    std::vector<std::string> keys{"source"};
    for (std::string_view t : kGranuleTypes) keys.emplace_back(t);
    src_.check_keys(m, keys, "`matrix_granules`");
    gen.matrix_granule_source = src_.text(src_.require(m, "source", "`matrix_granules`"), "source");
    for (const auto& entry : m) {
      const std::string dtype = entry.first.Scalar();
      if (dtype == "source") continue;
      const YAML::Node& g = entry.second;
      src_.expect_sequence(g, "the granule of " + dtype);
      if (g.size() != 3)
        src_.fail(g, fmt::format("a matrix granule is [m, n, k], got {} values", g.size()));
      std::array<int64_t, 3> granule{};
      for (size_t i = 0; i < 3; ++i) granule[i] = src_.positive_integer(g[i], "granule");
      gen.matrix_granules[dtype] = granule;
    }
    // tf32 runs on the graph as fp32 operands (docs/formats.md, "kind: gpu_family"): one rate
    // for fp32 matmul on the tensor cores, not two.
    if (gen.matrix_granules.count("tf32") && gen.matrix_granules.count("fp32"))
      src_.fail(m,
                "`matrix_granules` names both tf32 and fp32; expected one (a tf32 rate is the "
                "tensor cores' fp32 matmul in the graph)");
  }

  const YamlSource& src_;
  GpuFamily f_;
};

}  // namespace

const std::vector<std::string_view>& gpu_rule_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k;
    for (const RuleKey& r : kRuleKeys) k.push_back(r.key);
    return k;
  }();
  return keys;
}

const FamilyRule& GpuGeneration::rule(std::string_view key) const {
  return rules.at(std::string(key));
}

const GpuGeneration* GpuFamily::generation(std::string_view name) const {
  for (const GpuGeneration& g : generations)
    if (g.name == name) return &g;
  return nullptr;
}

std::string GpuFamily::generation_names() const {
  std::string names;
  for (const GpuGeneration& g : generations) names += (names.empty() ? "" : ", ") + g.name;
  return names;
}

std::string GpuFamily::kernel_file(std::string_view kernel) const {
  return (std::filesystem::path(kernels_folder) / (std::string(kernel) + ".yaml")).string();
}

GpuFamily load_gpu_family(const std::string& path) {
  return FamilyReader(YamlSource::load(path)).read();
}

GpuFamily parse_gpu_family(const std::string& text, const std::string& file) {
  return FamilyReader(YamlSource::parse(text, file)).read();
}

}  // namespace ts
