#include "profile/GpuGraph.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

// How a figure is written, which is how a calibrated value of it is written again.
enum class Unit { frequency, bytes, bandwidth, per_cycle, duration, count, number, energy, power };

// A figure before any calibration: its value as the graph holds it (SI base units; a B/cycle
// figure as bytes per second at the clock), its text, and where it comes from.
struct Value {
  double si = 0;
  std::string text;
  Unit unit = Unit::number;
  std::string comment;     // for the graph's comment
  std::string provenance;  // for the printed list: given, given: arithmetic, rule: source
};

// What is written: the value's text and comment, with a calibration's change in them.
struct Written {
  std::string text, comment, provenance;
};

// `{:.4g}` without an exponent for the magnitudes met here (below 10^4 rates per cycle; above,
// whole numbers).
std::string short_number(double v, int digits = 4) {
  if (std::abs(v) >= std::pow(10.0, digits)) return fmt::format("{:.0f}", v);
  return fmt::format("{:.{}g}", v, digits);
}

std::string with_si_prefix(double v, std::string_view unit, int digits) {
  static const std::pair<double, const char*> prefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [factor, prefix] : prefixes)
    if (std::abs(v) >= factor) return short_number(v / factor, digits) + prefix + std::string(unit);
  return short_number(v, digits) + std::string(unit);
}

std::string quantity_text(Unit unit, double v, double clock_hz) {
  switch (unit) {
    case Unit::frequency:
      return with_si_prefix(v, "Hz", 6);
    case Unit::bytes: {
      static const std::pair<double, const char*> prefixes[] = {
          {1099511627776.0, "Ti"}, {1073741824.0, "Gi"}, {1048576.0, "Mi"}, {1024.0, "Ki"}};
      for (const auto& [factor, prefix] : prefixes)
        if (v >= factor) return short_number(v / factor, 6) + prefix + "B";
      return short_number(v, 6) + "B";
    }
    case Unit::bandwidth:
      return with_si_prefix(v, "B/s", 6);
    case Unit::per_cycle:
      return short_number(v / clock_hz, 6) + "B/cycle";
    case Unit::duration:
      if (v != 0 && std::abs(v) < 1e-6) return short_number(v * 1e9, 6) + "ns";
      if (v != 0 && std::abs(v) < 1e-3) return short_number(v * 1e6, 6) + "us";
      return short_number(v * 1e3, 6) + "ms";
    case Unit::count:
      return fmt::format("{:.0f}", v);
    case Unit::number:
      return short_number(v, 6);
    case Unit::energy:
      return short_number(v * 1e12, 6) + "pJ";
    case Unit::power:
      return short_number(v, 6) + "W";
  }
  return "";
}

bool same_value(double a, double b) {
  return std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b));
}

// The order tensor rates are written in. A tf32 rate is the tensor cores' tf32 matmul: an fp32
// GEMM runs there only as a tf32 operator (TF32 allowed); plain fp32 runs on the CUDA cores.
constexpr std::string_view kTensorOrder[] = {"fp16", "bf16", "tf32", "fp32", "fp8", "int8", "int4"};
std::string graph_dtype(const std::string& dtype) { return dtype; }

class GpuGraphWriter {
 public:
  GpuGraphWriter(const GpuSpec& spec, const GpuFamily& family, const GpuGeneration& gen,
                 const GpuGraphOptions& options)
      : spec_(spec), family_(family), gen_(gen), options_(options) {}

  GeneratedGpu generate();

 private:
  void resolve();
  Value given(const std::string& key, Unit unit) const;
  Value rule(const std::string& key, Unit unit) const;
  std::string given_comment(const std::string& key) const;
  std::string emit(bool final_pass);
  Written written(const Value& v, const std::string& path) const;
  const CalibrationEntry* entry_for(const std::string& path) const;
  void comment(std::string& y, int indent, const std::string& text) const;
  void figure(std::string& y, int indent, const std::string& key, const Value& v,
              const std::string& path, const std::string& name, const std::string& note = {});
  void operations(std::string& y, const std::string& node, bool matrix);
  void edge(std::string& y, const std::string& from, const std::string& to, const Value& v,
            const std::string& extra);
  void templates(std::string& y);
  std::string spec_as_used() const;
  std::string header() const;
  std::string kernel_path(const std::string& kernel) const;

  const GpuSpec& spec_;
  const GpuFamily& family_;
  const GpuGeneration& gen_;
  const GpuGraphOptions& options_;
  double sms_ = 0, clock_hz_ = 0;
  std::string unit_;  // SM or CU
  // Resolved figures.
  Value clock_, launch_, memory_capacity_, memory_bandwidth_, l2_, shared_, registers_, instances_,
      min_kernel_time_, cores_, fp32_, fp16_, l2_edge_, shared_edge_, matrix_feed_, vector_feed_,
      energy_, power_;
  int64_t vector_granule_ = 32;
  struct Tensor {
    std::string dtype;
    Value ops;
    std::array<int64_t, 3> granule{};
  };
  std::vector<Tensor> tensor_;
  std::vector<SpecRuleLine> spec_rules_;  // the figures the spec as used gets from rules
  std::vector<std::string> notes_;
  // Set for the final pass.
  std::optional<ArchitectureGraph> base_, calibrated_;
  std::vector<GpuFigure> figures_;
  std::vector<std::string> kernels_;
  bool collect_ = false;
};

std::string GpuGraphWriter::given_comment(const std::string& key) const {
  const auto it = spec_.sources.find(key);
  return it == spec_.sources.end() ? "given" : "given: " + it->second;
}

Value GpuGraphWriter::given(const std::string& key, Unit unit) const {
  const SpecFigure& f = *spec_.figure(key);
  return Value{f.value, f.text, unit, given_comment(key), "given"};
}

Value GpuGraphWriter::rule(const std::string& key, Unit unit) const {
  const FamilyRule& r = gen_.rule(key);
  return Value{unit == Unit::per_cycle ? r.value * clock_hz_ : r.value, r.text, unit,
               fmt::format("rule ({}): {}", gen_.name, r.source), "rule: " + r.source};
}

void GpuGraphWriter::resolve() {
  sms_ = spec_.figure("sms")->value;
  clock_hz_ = spec_.figure("clock")->value;
  unit_ = family_.unit;
  const std::string per = fmt::format("{:.0f} {}s", sms_, unit_);
  clock_ = given("clock", Unit::frequency);
  memory_capacity_ = given("memory_capacity", Unit::bytes);
  memory_bandwidth_ = given("memory_bandwidth", Unit::bandwidth);
  l2_ = given("l2", Unit::bytes);
  instances_ = given("sms", Unit::count);
  launch_ = rule("launch_overhead", Unit::duration);
  energy_ = rule("fp32_energy_per_op", Unit::energy);
  if (spec_.figure("power")) power_ = given("power", Unit::power);
  min_kernel_time_ = rule("min_kernel_time", Unit::duration);
  vector_granule_ = static_cast<int64_t>(gen_.rule("vector_granule").value);
  for (const char* key : {"shared_memory_per_sm", "registers_per_sm"}) {
    Value& v = std::string(key) == "shared_memory_per_sm" ? shared_ : registers_;
    if (spec_.figure(key)) {
      v = given(key, Unit::bytes);
    } else {
      v = rule(key, Unit::bytes);
      spec_rules_.push_back({key, v.text, v.comment});
    }
  }

  // fp32 lanes per SM: given, else from the fp32 rate (to a multiple of 16: an SM's lanes come
  // in SIMD groups of 16 or 32, and datasheet rates are rounded), else the generation's rule.
  const SpecFigure* fp32 = spec_.figure("fp32");
  if (spec_.figure("fp32_cores_per_sm")) {
    cores_ = given("fp32_cores_per_sm", Unit::count);
  } else if (fp32) {
    const double raw = fp32->value / (2 * sms_ * clock_hz_);
    const double lanes = std::max(16.0, std::round(raw / 16) * 16);
    const std::string how = fmt::format("fp32 {} / (2 x {} x {}) = {:.5g}, to a multiple of 16",
                                        fp32->text, per, clock_.text, raw);
    cores_ = Value{lanes, fmt::format("{:.0f}", lanes), Unit::count,
                   fmt::format("{} (fp32 {})", how, given_comment("fp32")), "given: " + how};
    if (std::abs(lanes - raw) > 0.1 * raw)
      notes_.push_back(
          fmt::format("fp32 {} over {} at {} gives {:.4g} lanes per {}, far from a "
                      "multiple of 16: check the rate and the clock",
                      fp32->text, per, clock_.text, raw, unit_));
    spec_rules_.push_back({"fp32_cores_per_sm", cores_.text, "from the given " + how});
  } else {
    cores_ = rule("fp32_cores_per_sm", Unit::count);
    spec_rules_.push_back({"fp32_cores_per_sm", cores_.text, cores_.comment});
  }
  const double fp32_rate = cores_.si * 2 * sms_ * clock_hz_;
  if (fp32) {
    if (std::abs(fp32_rate - fp32->value) > 0.02 * fp32->value)
      notes_.push_back(fmt::format(
          "the given fp32 rate {} and {} lanes x 2 x {} x {} = {:.4g} TFLOP/s differ by {:.1f} %: "
          "the graph runs at the lanes' rate",
          fp32->text, cores_.text, per, clock_.text, fp32_rate / 1e12,
          100 * std::abs(fp32_rate - fp32->value) / fp32->value));
  } else {
    spec_rules_.push_back(
        {"fp32", with_si_prefix(fp32_rate, "FLOP/s", 4),
         fmt::format("rule: fp32_cores_per_sm x 2 x sms x clock = {} x 2 x {} x {}", cores_.text,
                     per, clock_.text)});
  }
  // The CUDA cores' fp32 matmul (FFMA), elementwise and reduction all run at one FMA per lane.
  fp32_ = Value{cores_.si, cores_.text, Unit::number,
                fmt::format("{} fp32 lanes per {}, one FMA each per cycle: {}", cores_.text, unit_,
                            cores_.comment),
                cores_.provenance};
  if (const SpecFigure* f = spec_.figure("fp16_vector")) {
    const double ops = f->value / (2 * sms_ * clock_hz_);
    const std::string how = fmt::format("fp16_vector {} / 2 / {} / {}", f->text, per, clock_.text);
    fp16_ = Value{ops, short_number(ops), Unit::number,
                  fmt::format("fp16 on the lanes, not the tensor (matrix) cores: {} ({})", how,
                              given_comment("fp16_vector")),
                  "given: " + how};
  } else {
    const FamilyRule& ratio = gen_.rule("fp16_vector_ratio");
    const double ops = cores_.si * ratio.value;
    fp16_ = Value{
        ops, short_number(ops), Unit::number,
        fmt::format("fp16 on the lanes, not the tensor (matrix) cores: {} x the fp32 rate (rule "
                    "({}): {})",
                    ratio.text, gen_.name, ratio.source),
        fmt::format("rule: {} x fp32 ({})", ratio.text, ratio.source)};
    spec_rules_.push_back(
        {"fp16_vector", with_si_prefix(fp32_rate * ratio.value, "FLOP/s", 4),
         fmt::format("rule ({}): {} x fp32: {}", gen_.name, ratio.text, ratio.source)});
  }

  // Tensor (matrix) cores: a rate per given type, as multiply-accumulates per cycle per SM.
  for (std::string_view order : kTensorOrder) {
    const auto it = spec_.tensor.find(std::string(order));
    if (it == spec_.tensor.end()) continue;
    const SpecFigure& f = it->second;
    const auto granule = gen_.matrix_granules.find(it->first);
    if (granule == gen_.matrix_granules.end()) {
      std::string known;
      for (const auto& [t, g] : gen_.matrix_granules) known += (known.empty() ? "" : ", ") + t;
      throw InputError(
          f.where, known.empty()
                       ? fmt::format("a tensor rate for {}, but {} ({}) has no tensor cores in "
                                     "{}; expected no `tensor` rates",
                                     it->first, gen_.name, family_.vendor, options_.family_label)
                       : fmt::format("a tensor rate for {}, which the {} tensor cores do not run "
                                     "({}); expected one of: {}",
                                     it->first, gen_.name, options_.family_label, known));
    }
    const double macs = f.value / 2 / sms_ / clock_hz_;
    const std::string how =
        fmt::format("{} dense / 2 / {} / {} = {} multiply-accumulates per cycle per {}", f.text,
                    per, clock_.text, short_number(macs), unit_);
    std::string c = fmt::format("{} ({})", how, given_comment("tensor." + it->first));
    if (it->first == "tf32")
      c += "; tf32: fp32 operands rounded to tf32 on the tensor cores (cuBLAS with TF32 allowed)";
    tensor_.push_back({it->first, Value{macs, short_number(macs), Unit::number, c, "given: " + how},
                       granule->second});
  }

  // Edges. L2 to the SMs: one pool, the rule's bytes per cycle per SM over every SM.
  const FamilyRule& l2_rule = gen_.rule("l2_bandwidth_per_sm");
  const double l2_bytes_per_s = l2_rule.value * sms_ * clock_hz_;
  const std::string l2_how =
      fmt::format("{} per {} x {} x {}", l2_rule.text, unit_, per, clock_.text);
  l2_edge_ = Value{l2_bytes_per_s, with_si_prefix(l2_bytes_per_s, "B/s", 4), Unit::bandwidth,
                   fmt::format("{} (rule ({}): {})", l2_how, gen_.name, l2_rule.source),
                   fmt::format("rule: {} ({})", l2_how, l2_rule.source)};
  shared_edge_ = rule("shared_memory_bandwidth", Unit::per_cycle);
  if (!tensor_.empty()) matrix_feed_ = rule("matrix_feed", Unit::per_cycle);
  vector_feed_ = rule("vector_feed", Unit::per_cycle);
}

const CalibrationEntry* GpuGraphWriter::entry_for(const std::string& path) const {
  if (!options_.calibration) return nullptr;
  for (const CalibrationEntry& e : options_.calibration->entries)
    if (e.path == path) return &e;
  return nullptr;
}

Written GpuGraphWriter::written(const Value& v, const std::string& path) const {
  Written w{v.text, v.comment, v.provenance};
  if (!calibrated_ || path.empty()) return w;
  const ParameterPath p = parse_parameter_path(path, *base_, "generated graph");
  const double before = parameter_value(*base_, p), after = parameter_value(*calibrated_, p);
  if (same_value(before, after)) return w;
  const CalibrationEntry* e = entry_for(path);
  const std::string label = options_.calibration_label;
  if (p.field == ParameterField::node_efficiency || (e && e->factor)) {
    const double factor = p.field == ParameterField::node_efficiency ? after : after / before;
    const std::string x = short_number(factor, 6);
    w.text = v.unit == Unit::number ? short_number(v.si * factor, 6)
                                    : quantity_text(v.unit, v.si * factor, clock_hz_);
    w.comment =
        fmt::format("{} x {} ({}); {} fitted: calibration {}", x, v.text, v.comment, x, label);
    w.provenance = fmt::format("{}; calibration: {} ({})", v.provenance, x, label);
  } else {
    w.text = quantity_text(v.unit, after, clock_hz_);
    w.comment =
        fmt::format("fitted: calibration {}, in place of {} ({})", label, v.text, v.comment);
    w.provenance = fmt::format("calibration: {} ({}) in place of {} ({})", w.text, label, v.text,
                               v.provenance);
  }
  return w;
}

// `# ` lines wrapped at 100 columns.
void GpuGraphWriter::comment(std::string& y, int indent, const std::string& text) const {
  const std::string lead = std::string(static_cast<size_t>(indent), ' ') + "# ";
  const size_t width = 100 - lead.size();
  std::string line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      y += lead + line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty()) y += lead + line + "\n";
}

void GpuGraphWriter::figure(std::string& y, int indent, const std::string& key, const Value& v,
                            const std::string& path, const std::string& name,
                            const std::string& note) {
  const Written w = written(v, path);
  comment(y, indent, w.comment + note);
  y += std::string(static_cast<size_t>(indent), ' ') + key + ": " + w.text + "\n";
  if (collect_) figures_.push_back({name, w.text, w.provenance});
}

std::string GpuGraphWriter::kernel_path(const std::string& kernel) const {
  fs::path dir = fs::path(options_.graph_file).parent_path();
  if (dir.empty()) dir = ".";
  const fs::path file =
      fs::absolute(fs::path(options_.kernels_folder) / (kernel + ".yaml")).lexically_normal();
  const fs::path rel = file.lexically_relative(fs::absolute(dir).lexically_normal());
  return rel.empty() ? file.generic_string() : rel.generic_string();
}

void GpuGraphWriter::operations(std::string& y, const std::string& node, bool matrix) {
  const std::string path = "node:" + node + ".efficiency";
  auto op = [&](const char* cls, const std::string& dtype, const Value& v,
                const std::string& granule, const Value* energy = nullptr) {
    const Written w = written(v, path);
    comment(y, 6, w.comment);
    std::string energy_text;
    if (energy) {
      const Written e = written(*energy, "node:" + node + ".energy_per_op");
      comment(y, 6, "energy_per_op: " + e.comment);
      energy_text = ", energy_per_op: " + e.text;
      if (collect_)
        figures_.push_back(
            {fmt::format("node:{} {} {} energy per op", node, cls, dtype), e.text, e.provenance});
    }
    y += fmt::format("      - {{class: {}, dtype: {}, ops_per_cycle: {}, granule: {}{}}}\n", cls,
                     dtype, w.text, granule, energy_text);
    if (collect_)
      figures_.push_back({fmt::format("node:{} {} {} per cycle per {}", node, cls, dtype, unit_),
                          w.text, w.provenance});
  };
  if (matrix) {
    for (const Tensor& t : tensor_) {
      const std::string granule =
          fmt::format("[{}, {}, {}]", t.granule[0], t.granule[1], t.granule[2]);
      op("matmul", graph_dtype(t.dtype), t.ops, granule);
      if (collect_)
        figures_.push_back({fmt::format("node:{} matmul {} granule", node, graph_dtype(t.dtype)),
                            granule, "rule: " + gen_.matrix_granule_source});
    }
    return;
  }
  const std::string lanes = fmt::format("[{}]", vector_granule_);
  // The first line of each rate says where it comes from; the next ones that it is the same.
  Value matmul = fp32_;
  matmul.comment = "FMA on the lanes (SIMT, as cuBLAS sgemm with TF32 off), " + fp32_.comment;
  op("matmul", "fp32", matmul, "[1, 1, 1]", &energy_);
  Value same = fp32_;
  same.comment =
      fmt::format("the same fp32 rate; granule {}: {}", lanes, gen_.rule("vector_granule").source);
  Value same_energy = energy_;
  same_energy.comment = "the same energy per fp32 operation";
  op("elementwise", "fp32", same, lanes, &same_energy);
  if (collect_)
    figures_.push_back({fmt::format("node:{} elementwise and reduction granule", node), lanes,
                        "rule: " + gen_.rule("vector_granule").source});
  same.comment = "the same fp32 rate";
  op("reduction", "fp32", same, lanes, &same_energy);
  op("elementwise", "fp16", fp16_, lanes);
  same = fp16_;
  same.comment = "the same fp16 rate";
  op("reduction", "fp16", same, lanes);
}

void GpuGraphWriter::edge(std::string& y, const std::string& from, const std::string& to,
                          const Value& v, const std::string& extra) {
  const std::string path = fmt::format("edge:{}->{}.bandwidth", from, to);
  const Written w = written(v, path);
  comment(y, 2, w.comment);
  y += fmt::format("  - {{from: {}, to: {}, bandwidth: {}{}}}\n", from, to, w.text, extra);
  if (collect_) figures_.push_back({path, w.text, w.provenance});
}

void GpuGraphWriter::templates(std::string& y) {
  const bool matrix = !tensor_.empty();
  std::string block;
  for (const auto& [key, menu] : gen_.mapping_templates) {
    std::vector<std::string> chosen;
    for (const KernelChoice& c : menu)
      if (c.when == KernelCondition::always || (c.when == KernelCondition::matrix) == matrix)
        chosen.push_back(c.kernel);
    if (chosen.empty()) continue;
    if (chosen.size() == 1) {
      block += fmt::format("  {}: {}\n", key, kernel_path(chosen.front()));
    } else {
      block += fmt::format("  {}:\n", key);
      for (const std::string& k : chosen) block += fmt::format("    - {}\n", kernel_path(k));
    }
    std::string names;
    for (const std::string& k : chosen) names += (names.empty() ? "" : ", ") + k;
    if (collect_) {
      figures_.push_back(
          {"mapping_templates." + key, names,
           fmt::format("rule: the {} kernel menu of {}", gen_.name, options_.family_label)});
      for (const std::string& k : chosen)
        if (std::find(kernels_.begin(), kernels_.end(), k) == kernels_.end()) kernels_.push_back(k);
    }
  }
  if (block.empty()) return;
  y += "# The kernels the libraries run, per class or operator type (docs/gpus.md, \"Kernel "
       "menus\"): the\n# mapper predicts each and takes the fastest whose unit runs the data "
       "type.\nmapping_templates:\n" +
       block;
}

std::string GpuGraphWriter::header() const {
  const std::string product = spec_.product.empty() ? spec_.name : spec_.product;
  std::string h = fmt::format(
      "{}: generated by `tilescope profiles new gpu` from {} and the {} rules of {}; "
      "calibration: {}. Regenerate rather than edit (the bundled graphs: scripts/gpu-profiles; "
      "docs/formats.md, \"kind: gpu_spec\").\n",
      product, options_.spec_label, gen_.name, options_.family_label,
      options_.calibration ? options_.calibration_label : std::string("none"));
  h += "Each figure's comment says where it comes from: given (the specification, with its "
       "source) or rule (the generation's rule, with its source), with the arithmetic where a "
       "figure is worked out from them; a calibrated figure shows both values and the fitted "
       "factor.\n";
  if (!gen_.description.empty()) h += gen_.description + "\n";
  if (!spec_.notes.empty()) h += spec_.notes + "\n";
  const GpuNodeNames& n = family_.nodes;
  h += fmt::format(
      "One {}'s {}, {}, {}{} are one instance each of those nodes; the {}'s L1 cache is not "
      "modelled apart from its shared memory. B/cycle rates are at the graph clock (every node "
      "runs at it).",
      unit_, n.shared, n.registers, tensor_.empty() ? "" : n.matrix + " and ",
      tensor_.empty() ? "and " + n.vector : n.vector, unit_);
  if (tensor_.empty()) h += " No tensor (matrix) cores: the spec gives no tensor rate.";
  return h;
}

std::string GpuGraphWriter::emit(bool final_pass) {
  collect_ = final_pass;
  figures_.clear();
  kernels_.clear();
  const GpuNodeNames& n = family_.nodes;
  std::string y;
  {
    const std::string text = header();
    size_t start = 0;
    while (start < text.size()) {
      const size_t end = std::min(text.find('\n', start), text.size());
      comment(y, 0, text.substr(start, end - start));
      start = end + 1;
    }
  }
  const std::string product = spec_.product.empty() ? spec_.name : spec_.product;
  std::string memory = spec_.memory_type.empty() ? std::string() : spec_.memory_type + " ";
  const std::string description = fmt::format(
      "{}, {:.0f} {}s, {}, {}{} (generated by tilescope profiles new gpu from its specification)",
      product, sms_, unit_, clock_.text, memory, memory_bandwidth_.text);
  YAML::Emitter quoted;
  quoted << YAML::DoubleQuoted << description;
  y += fmt::format("version: 1\nkind: architecture\nname: {}-{}\ndescription: {}\n", family_.vendor,
                   spec_.name, quoted.c_str());
  figure(y, 0, "clock", clock_, "clock", "clock", "; the boost clock");
  figure(y, 0, "launch_overhead", launch_, "launch_overhead", "launch_overhead");
  if (!power_.text.empty()) {
    figure(y, 0, "power", power_, "power", "power",
           "; the board's limit: with the lanes' energy_per_op, it caps the rate they sustain "
           "(docs/analysis.md, \"Power limit\")");
  }
  {
    // Per operator type: the family's, and any a calibration adds.
    std::map<std::string, Value> per_type;
    for (const auto& [type, r] : gen_.launch_overheads)
      per_type[type] =
          Value{r.value, r.text, Unit::duration, fmt::format("rule ({}): {}", gen_.name, r.source),
                "rule: " + r.source};
    if (calibrated_)
      for (const auto& [type, seconds] : calibrated_->launch_overheads)
        if (!per_type.count(type))
          per_type[type] = Value{launch_.si, launch_.text, Unit::duration,
                                 "the graph's launch_overhead", launch_.provenance};
    if (!per_type.empty()) y += "launch_overheads:\n";
    for (const auto& [type, v] : per_type)
      figure(y, 2, type, v, "launch_overhead:" + type, "launch_overhead:" + type);
  }
  y += "nodes:\n";
  y += fmt::format("  - name: {}\n    type: memory\n", n.memory);
  figure(y, 4, "capacity", memory_capacity_, "node:" + n.memory + ".capacity",
         "node:" + n.memory + ".capacity");
  figure(y, 4, "bandwidth", memory_bandwidth_, "node:" + n.memory + ".bandwidth",
         "node:" + n.memory + ".bandwidth",
         "; one port for reads and writes together, as a datasheet gives it");
  y += fmt::format("  - name: {}\n    type: memory\n", n.l2);
  figure(y, 4, "capacity", l2_, "node:" + n.l2 + ".capacity", "node:" + n.l2 + ".capacity");
  // The SM count's source once, on the first node that has an instance per SM.
  Value first_per_sm = instances_;
  first_per_sm.comment = fmt::format("one per {}, sms: {}", unit_, instances_.comment);
  Value per_sm = instances_;
  per_sm.comment = fmt::format("one per {}: sms, as on {}", unit_, n.shared);
  auto per_sm_memory = [&](const std::string& name, const Value& capacity, const char* what) {
    y += fmt::format("  - name: {}   # {}, one instance per {}\n    type: memory\n", name, what,
                     unit_);
    figure(y, 4, "capacity", capacity, "node:" + name + ".capacity", "node:" + name + ".capacity");
    figure(y, 4, "instances", name == n.shared ? first_per_sm : per_sm, "",
           "node:" + name + ".instances");
  };
  per_sm_memory(n.shared, shared_, "shared memory");
  comment(y, 4,
          "The block scheduler gives each " + unit_ +
              " the next thread block of the grid as soon as one ends: waves are counted over "
              "the whole grid.");
  y += "    dispatch: dynamic\n";
  comment(y, 4,
          "A thread block computes whole fragments where the problem ends inside it (tails "
          "zero-filled on load, masked on store): its work is the block's whole extent.");
  y += "    tails: padded\n";
  per_sm_memory(n.registers, registers_, "register file");
  auto compute = [&](const std::string& name, const char* what, bool matrix) {
    y += fmt::format("  - name: {}   # {} of one {} as one instance\n    type: compute\n", name,
                     what, unit_);
    figure(y, 4, "instances", per_sm, "", "node:" + name + ".instances");
    figure(y, 4, "min_kernel_time", min_kernel_time_, "node:" + name + ".min_kernel_time",
           "node:" + name + ".min_kernel_time");
    y += "    operations:\n";
    operations(y, name, matrix);
  };
  if (!tensor_.empty()) compute(n.matrix, "the tensor (matrix) cores", true);
  compute(n.vector, "the fp32/fp16 lanes", false);
  y += "edges:\n";
  const std::string shared_pool = ", sharing: shared";
  edge(y, n.memory, n.l2, memory_bandwidth_, shared_pool);
  edge(y, n.l2, n.memory, memory_bandwidth_, shared_pool);
  edge(y, n.l2, n.shared, l2_edge_, shared_pool + ", multicast: false");
  edge(y, n.shared, n.l2, l2_edge_, shared_pool + ", multicast: false");
  edge(y, n.shared, n.registers, shared_edge_, "");
  edge(y, n.registers, n.shared, shared_edge_, "");
  if (!tensor_.empty()) {
    edge(y, n.registers, n.matrix, matrix_feed_, "");
    edge(y, n.matrix, n.registers, matrix_feed_, "");
  }
  edge(y, n.registers, n.vector, vector_feed_, "");
  edge(y, n.vector, n.registers, vector_feed_, "");
  if (final_pass) templates(y);
  return y;
}

std::string GpuGraphWriter::spec_as_used() const {
  const std::string header = fmt::format(
      "The specification {}-{} was generated from, as used: the figures with a comment were not "
      "given and come from the {} rules of {} (or from the given ones, as the comment says).",
      family_.vendor, spec_.name, gen_.name, options_.family_label);
  return gpu_spec_yaml(spec_, spec_rules_, header);
}

GeneratedGpu GpuGraphWriter::generate() {
  resolve();
  // First the graph without its menus, read back by the loader: that checks what is written and
  // gives the graph the calibration's paths resolve against.
  const std::string file = options_.graph_file.empty() ? "generated graph" : options_.graph_file;
  base_ = parse_architecture(emit(false), file);
  calibrated_ = *base_;
  if (options_.calibration) {
    // One calibration serves every generation of the vendor: what it says of the tensor cores
    // does not apply to a graph without them (Pascal), and is left out, with a note.
    GraphCalibration applicable = *options_.calibration;
    if (tensor_.empty()) {
      const std::string& m = family_.nodes.matrix;
      std::erase_if(applicable.entries, [&](const CalibrationEntry& e) {
        const bool tensor = e.path.starts_with("node:" + m + ".") ||
                            e.path.find("->" + m + ".") != std::string::npos ||
                            e.path.starts_with("edge:" + m + "->");
        if (tensor)
          notes_.push_back(
              fmt::format("calibration entry {} (line {}) left out: this graph has no "
                          "{}",
                          e.path, e.where.line, m));
        return tensor;
      });
    }
    apply_calibration(*calibrated_, applicable);
  }
  GeneratedGpu out;
  out.graph_yaml = emit(true);
  out.graph_name = family_.vendor + "-" + spec_.name;
  out.spec_yaml = spec_as_used();
  out.figures = std::move(figures_);
  out.kernels = kernels_;
  out.notes = notes_;
  return out;
}

}  // namespace

GeneratedGpu generate_gpu_graph(const GpuSpec& spec, const GpuFamily& family,
                                const GpuGraphOptions& options) {
  if (spec.vendor != family.vendor)
    throw InputError(spec.vendor_where,
                     fmt::format("vendor '{}' does not match the family {} (vendor {}); expected "
                                 "`vendor: {}`, or that vendor's family",
                                 spec.vendor, options.family_label, family.vendor, family.vendor));
  check_complete_spec(spec);
  const GpuGeneration* gen = family.generation(spec.generation);
  if (!gen)
    throw InputError(
        spec.generation_where,
        fmt::format("unknown {} generation '{}'; expected one of: {} ({})", family.vendor,
                    spec.generation, family.generation_names(), options.family_label));
  return GpuGraphWriter(spec, family, *gen, options).generate();
}

}  // namespace ts
