#pragma once
// A GPU as its datasheet describes it (`kind: gpu_spec`, docs/formats.md): what a user has before
// owning the chip. `tilescope profiles new gpu` turns it, with the vendor's generation rules
// (GpuFamily), into an architecture graph (GpuGraph).
//
// Figures are kept with the text they were written as and where (file:line:col, or the
// command-line flag), so that a rule applied later, or a figure that does not fit the
// generation, is reported at the figure.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

// One figure as given: its value in SI base units (Hz, B, B/s, FLOP/s, W, or a count) and its
// text as written, which the generated files repeat.
struct SpecFigure {
  double value = 0;
  std::string text;
  SourceLocation where;
};

// What a figure key holds, which says how its text is read.
enum class SpecQuantity { count, frequency, bytes, bandwidth, rate, power };

struct SpecFigureKey {
  std::string_view key;  // as in the file: `memory_bandwidth`
  SpecQuantity quantity;
  bool required;
  std::string_view meaning;  // for messages: "the number of SMs (CUs) one kernel sees"
  std::string_view example;  // "58"
};
// Every figure key of the format, in the order files are written.
const std::vector<SpecFigureKey>& spec_figure_keys();
const SpecFigureKey* spec_figure_key(std::string_view key);

struct GpuSpec {
  std::string file;      // the spec file it was read from; empty when built from flags
  SourceLocation where;  // the file's top-level map

  std::string name;  // the variant name: `l4` gives the graph nvidia-l4
  SourceLocation name_where;
  std::string vendor = "nvidia";  // which family's rules apply
  SourceLocation vendor_where;
  std::string product;  // `NVIDIA L4`; the name when empty
  std::string generation;
  SourceLocation generation_where;
  std::string memory_type;  // informative: `GDDR6`, `HBM3`
  std::string notes;        // informative, copied into the graph's header

  std::map<std::string, SpecFigure> figures;  // by key (spec_figure_keys)
  // Dense tensor (matrix) rates by the datasheet's data type name: fp16, bf16, tf32, fp8, int8,
  // int4, fp32 (AMD's fp32 matrix rate). Operations per second, a multiply-accumulate being two.
  std::map<std::string, SpecFigure> tensor;
  std::map<std::string, std::string> sources;  // figure key (or `tensor.fp16`) -> citation

  const SpecFigure* figure(std::string_view key) const;
};

// Reads a spec file. With `complete`, a missing required figure is an error at the file's map;
// without, the caller fills the rest (from flags) and calls check_complete_spec.
GpuSpec load_gpu_spec(const std::string& path, bool complete = true);
GpuSpec parse_gpu_spec(const std::string& text, const std::string& file, bool complete = true);

// A figure from text (a flag's value): throws InputError at `where` naming the key, the text and
// a valid example when the text is not a quantity of the key's kind.
void set_spec_figure(GpuSpec& spec, std::string_view key, const std::string& text,
                     const SourceLocation& where);
// `dtype=rate` items, comma-separated: `fp16=121TFLOP/s,int8=242.5TOP/s`.
void set_spec_tensor_rates(GpuSpec& spec, const std::string& text, const SourceLocation& where);

// Throws InputError for the first required figure (or name, generation) that is missing: at the
// file's map, or with `flags` at the flag that gives it (`--sms`, `--memory-bandwidth`), the
// message saying both ways.
void check_complete_spec(const GpuSpec& spec, bool flags = false);
// The command-line flag of a key: `memory_bandwidth` -> `--memory-bandwidth`.
std::string spec_flag(std::string_view key);

// The file's text: every field the spec holds (its sources under `sources:`), and a line for
// each figure in `rules` that the spec does not hold, with its comment (`rule (ada): ...`);
// `header` lines become `# ` comments at the top. parse_gpu_spec reads it back.
struct SpecRuleLine {
  std::string key;
  std::string text;
  std::string comment;
};
std::string gpu_spec_yaml(const GpuSpec& spec, const std::vector<SpecRuleLine>& rules = {},
                          const std::string& header = {});

}  // namespace ts
