#include "profile/GpuSpec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>

#include "arch/Units.hpp"
#include "common/YamlSource.hpp"
#include "profile/Profile.hpp"

namespace ts {
namespace {

// The data types a datasheet gives tensor (matrix) rates for. Which of them a generation has is
// the family's business (its matrix granules); this is what the format can name.
constexpr std::string_view kTensorTypes[] = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4"};

bool is_tensor_type(std::string_view name) {
  return std::find(std::begin(kTensorTypes), std::end(kTensorTypes), name) !=
         std::end(kTensorTypes);
}

std::string tensor_type_list() {
  std::string list;
  for (std::string_view t : kTensorTypes) list += (list.empty() ? "" : ", ") + std::string(t);
  return list;
}

std::string_view quantity_words(SpecQuantity q) {
  switch (q) {
    case SpecQuantity::count:
      return "a positive whole number";
    case SpecQuantity::frequency:
      return "a frequency";
    case SpecQuantity::bytes:
      return "a size in bytes";
    case SpecQuantity::bandwidth:
      return "a bandwidth in bytes per second";
    case SpecQuantity::rate:
      return "a rate in operations per second (FLOP/s or OP/s)";
    case SpecQuantity::power:
      return "a power in watts";
  }
  return "";
}

std::optional<double> parse_quantity(SpecQuantity q, std::string_view text) {
  switch (q) {
    case SpecQuantity::count: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && end == text.data() + text.size() && v > 0)
        return static_cast<double>(v);
      return std::nullopt;
    }
    case SpecQuantity::frequency:
      return parse_frequency_hz(text);
    case SpecQuantity::bytes:
      return parse_bytes(text);
    case SpecQuantity::bandwidth: {
      // Per second only: a datasheet's bandwidth is not per cycle of a clock it has not named.
      auto b = parse_bandwidth(text);
      if (b && b->per == Bandwidth::Per::second) return b->value;
      return std::nullopt;
    }
    case SpecQuantity::rate:
      return parse_operations_per_second(text);
    case SpecQuantity::power:
      return parse_power_watts(text);
  }
  return std::nullopt;
}

// A figure from its text, or an InputError at `where` saying what was expected.
SpecFigure figure_from(const SpecFigureKey& key, std::string_view what, const std::string& text,
                       const SourceLocation& where) {
  const std::optional<double> v = parse_quantity(key.quantity, text);
  if (!v || !(*v > 0))
    throw InputError(
        where, fmt::format("expected {} for `{}` ({}) such as `{}`, got '{}'",
                           quantity_words(key.quantity), what, key.meaning, key.example, text));
  return SpecFigure{*v, text, where};
}

const SpecFigureKey kTensorKey{"tensor", SpecQuantity::rate, false,
                               "a dense tensor-core (matrix) rate", "121TFLOP/s"};

class SpecReader {
 public:
  SpecReader(const YamlSource& src, bool complete) : src_(src), complete_(complete) {}

  GpuSpec read() {
    src_.check_header("gpu_spec");
    const YAML::Node& root = src_.root();
    std::vector<std::string> keys{"version",    "kind",        "name",  "vendor", "product",
                                  "generation", "memory_type", "notes", "tensor", "sources"};
    for (const SpecFigureKey& k : spec_figure_keys()) keys.emplace_back(k.key);
    src_.check_keys(root, keys, "a gpu_spec");
    spec_.file = src_.file();
    spec_.where = src_.where(root);
    if (const YAML::Node n = root["name"]; n.IsDefined()) {
      spec_.name = src_.text(n, "name");
      spec_.name_where = src_.where(n);
      if (!is_profile_name(spec_.name) || spec_.name.find_first_not_of('.') == std::string::npos)
        src_.fail(n, "'" + spec_.name +
                         "' is not a variant name; expected letters, digits, '-', '_' and '.' "
                         "(it names profile:VENDOR/NAME and the graph's file)");
    }
    if (const YAML::Node v = root["vendor"]; v.IsDefined()) {
      spec_.vendor = src_.text(v, "vendor");
      spec_.vendor_where = src_.where(v);
    } else {
      spec_.vendor_where = spec_.where;
    }
    spec_.product = src_.text_or(root, "product", "");
    if (const YAML::Node g = root["generation"]; g.IsDefined()) {
      spec_.generation = src_.text(g, "generation");
      spec_.generation_where = src_.where(g);
    }
    spec_.memory_type = src_.text_or(root, "memory_type", "");
    spec_.notes = src_.text_or(root, "notes", "");
    for (const SpecFigureKey& k : spec_figure_keys())
      if (const YAML::Node v = root[std::string(k.key)]; v.IsDefined())
        spec_.figures[std::string(k.key)] = figure_at(k, k.key, v);
    if (const YAML::Node t = root["tensor"]; t.IsDefined()) read_tensor(t);
    if (const YAML::Node s = root["sources"]; s.IsDefined()) read_sources(s);
    if (complete_) check_complete_spec(spec_);
    return std::move(spec_);
  }

 private:
  SpecFigure figure_at(const SpecFigureKey& key, std::string_view what, const YAML::Node& v) {
    if (!v.IsScalar())
      src_.fail(v, fmt::format("expected {} for `{}` such as `{}`, got {}",
                               quantity_words(key.quantity), what, key.example, describe(v)));
    return figure_from(key, what, v.Scalar(), src_.where(v));
  }

  void read_tensor(const YAML::Node& t) {
    src_.expect_map(t, "`tensor` (data type: dense rate, e.g. `{fp16: 121TFLOP/s}`)");
    for (const auto& entry : t) {
      const YAML::Node& key = entry.first;
      const std::string dtype = key.IsScalar() ? key.Scalar() : std::string();
      if (!is_tensor_type(dtype))
        src_.fail(key, fmt::format("unknown tensor data type {}; expected one of: {}",
                                   describe(key), tensor_type_list()));
      if (spec_.tensor.count(dtype)) src_.fail(key, "duplicate tensor data type '" + dtype + "'");
      spec_.tensor[dtype] = figure_at(kTensorKey, "tensor." + dtype, entry.second);
    }
  }

  void read_sources(const YAML::Node& s) {
    src_.expect_map(s, "`sources` (figure: citation)");
    for (const auto& entry : s) {
      const YAML::Node& key = entry.first;
      const std::string name = key.IsScalar() ? key.Scalar() : std::string();
      const bool known = spec_figure_key(name) != nullptr || name == "tensor" ||
                         name == "generation" || name == "product" || name == "memory_type" ||
                         (name.starts_with("tensor.") && spec_.tensor.count(name.substr(7)));
      if (!known)
        src_.fail(key, fmt::format("`sources` names {}, which is no figure of this spec; expected "
                                   "a figure key (sms, clock, ...), generation, product, "
                                   "memory_type, tensor, or tensor.TYPE for a tensor rate given",
                                   describe(key)));
      if (spec_.sources.count(name)) src_.fail(key, "duplicate source for '" + name + "'");
      spec_.sources[name] = src_.text(entry.second, "sources." + name);
    }
  }

  const YamlSource& src_;
  bool complete_;
  GpuSpec spec_;
};

// A YAML scalar, quoted when a plain one would not read back (the emitter decides) or holds a
// `#`, which a reader would take for a comment.
std::string scalar(const std::string& text) {
  YAML::Emitter e;
  if (text.find('#') != std::string::npos) e << YAML::DoubleQuoted;
  e << text;
  return e.c_str();
}

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace

const std::vector<SpecFigureKey>& spec_figure_keys() {
  static const std::vector<SpecFigureKey> keys{
      {"sms", SpecQuantity::count, true, "the SMs (NVIDIA) or CUs (AMD) one kernel sees", "58"},
      {"clock", SpecQuantity::frequency, true, "the boost clock", "2040MHz"},
      {"memory_bandwidth", SpecQuantity::bandwidth, true, "the device memory's bandwidth",
       "300GB/s"},
      {"memory_capacity", SpecQuantity::bytes, true, "the device memory's size", "24GB"},
      {"l2", SpecQuantity::bytes, true, "the L2 cache's size", "48MiB"},
      {"shared_memory_per_sm", SpecQuantity::bytes, false,
       "the shared memory (LDS) one thread block may use per SM (CU)", "100KiB"},
      {"registers_per_sm", SpecQuantity::bytes, false, "the register file per SM (CU)", "256KiB"},
      {"fp32_cores_per_sm", SpecQuantity::count, false,
       "the fp32 lanes per SM (CU): an FMA each per cycle", "128"},
      {"fp32", SpecQuantity::rate, false, "the fp32 rate of the CUDA cores (vector lanes)",
       "30.3TFLOP/s"},
      {"fp16_vector", SpecQuantity::rate, false,
       "the fp16 rate of the CUDA cores (vector lanes), not of the tensor cores", "60.6TFLOP/s"},
      {"power", SpecQuantity::power, false, "the board power", "72W"},
  };
  return keys;
}

const SpecFigureKey* spec_figure_key(std::string_view key) {
  for (const SpecFigureKey& k : spec_figure_keys())
    if (k.key == key) return &k;
  return nullptr;
}

const SpecFigure* GpuSpec::figure(std::string_view key) const {
  const auto it = figures.find(std::string(key));
  return it == figures.end() ? nullptr : &it->second;
}

GpuSpec load_gpu_spec(const std::string& path, bool complete) {
  return SpecReader(YamlSource::load(path), complete).read();
}

GpuSpec parse_gpu_spec(const std::string& text, const std::string& file, bool complete) {
  return SpecReader(YamlSource::parse(text, file), complete).read();
}

void set_spec_figure(GpuSpec& spec, std::string_view key, const std::string& text,
                     const SourceLocation& where) {
  const SpecFigureKey* k = spec_figure_key(key);
  if (!k) throw InputError(where, fmt::format("'{}' is no figure of a gpu_spec", key));
  spec.figures[std::string(key)] = figure_from(*k, key, text, where);
}

void set_spec_tensor_rates(GpuSpec& spec, const std::string& text, const SourceLocation& where) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw InputError(where, fmt::format("'{}' is not TYPE=RATE; expected e.g. "
                                          "`fp16=121TFLOP/s,int8=242.5TOP/s`",
                                          item));
    const std::string dtype = item.substr(0, eq);
    if (!is_tensor_type(dtype))
      throw InputError(where, fmt::format("unknown tensor data type '{}'; expected one of: {}",
                                          dtype, tensor_type_list()));
    spec.tensor[dtype] = figure_from(kTensorKey, "tensor." + dtype, item.substr(eq + 1), where);
    start = comma + 1;
  }
}

std::string spec_flag(std::string_view key) {
  std::string flag = "--" + std::string(key);
  std::replace(flag.begin(), flag.end(), '_', '-');
  return flag;
}

void check_complete_spec(const GpuSpec& spec, bool flags) {
  auto missing = [&](std::string_view key, std::string_view meaning, std::string_view example) {
    const std::string in_file = fmt::format("`{}: {}`", key, example);
    const std::string on_line = fmt::format("`{} {}`", spec_flag(key), example);
    if (flags)
      throw InputError(
          SourceLocation{spec_flag(key), 0, 0},
          fmt::format(
              "missing {}; expected e.g. {}{}", meaning, on_line,
              spec.file.empty() ? std::string() : " (or " + in_file + " in " + spec.file + ")"));
    throw InputError(spec.where.file.empty() ? SourceLocation{spec.file, 1, 1} : spec.where,
                     fmt::format("missing `{}`, {}; expected e.g. {}", key, meaning, in_file));
  };
  if (spec.name.empty()) missing("name", "the variant name (profile:VENDOR/NAME)", "l4");
  if (spec.generation.empty())
    missing("generation", "the chip's generation, whose rules fill what is not given", "ada");
  for (const SpecFigureKey& k : spec_figure_keys())
    if (k.required && !spec.figure(k.key)) missing(k.key, k.meaning, k.example);
}

std::string gpu_spec_yaml(const GpuSpec& spec, const std::vector<SpecRuleLine>& rules,
                          const std::string& header) {
  std::vector<std::pair<std::string, std::string>> lines;  // text, comment
  auto line = [&](std::string text, std::string comment = {}) {
    lines.emplace_back(std::move(text), std::move(comment));
  };
  line("version: 1");
  line("kind: gpu_spec");
  line("name: " + scalar(spec.name));
  line("vendor: " + scalar(spec.vendor));
  if (!spec.product.empty()) line("product: " + scalar(spec.product));
  line("generation: " + scalar(spec.generation));
  if (!spec.memory_type.empty()) line("memory_type: " + scalar(spec.memory_type));
  if (!spec.notes.empty()) line("notes: " + scalar(spec.notes));
  for (const SpecFigureKey& k : spec_figure_keys()) {
    const std::string key(k.key);
    if (const SpecFigure* f = spec.figure(key)) {
      line(key + ": " + scalar(f->text));
      continue;
    }
    for (const SpecRuleLine& r : rules)
      if (r.key == key) line(key + ": " + scalar(r.text), one_line(r.comment));
  }
  if (!spec.tensor.empty()) {
    line("tensor:");
    for (const auto& [dtype, f] : spec.tensor) line("  " + dtype + ": " + scalar(f.text));
  }
  if (!spec.sources.empty()) {
    line("sources:");
    for (const auto& [key, text] : spec.sources) line("  " + key + ": " + scalar(one_line(text)));
  }
  std::string out;
  auto comment = [&](const std::string& text) {
    // `# ` lines wrapped at 100 columns.
    std::string line;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find(' ', start);
      if (end == std::string::npos) end = text.size();
      const std::string word = text.substr(start, end - start);
      if (!line.empty() && line.size() + 1 + word.size() > 98) {
        out += "# " + line + "\n";
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
      start = end + 1;
    }
    out += line.empty() ? "#\n" : "# " + line + "\n";
  };
  size_t start = 0;
  while (start < header.size()) {
    const size_t end = std::min(header.find('\n', start), header.size());
    comment(header.substr(start, end - start));
    start = end + 1;
  }
  for (const auto& [text, note] : lines) {
    if (!note.empty()) comment(note);
    out += text + "\n";
  }
  return out;
}

}  // namespace ts
