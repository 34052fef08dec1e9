#include "training/SimulationTimeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/InputError.hpp"
#include "common/QuantityFormat.hpp"
#include "training/ChromeTrace.hpp"
#include "training/SimulationJson.hpp"

namespace ts {

double SimulationTimeline::end_s() const {
  double end = 0;
  for (const auto& t : tracks)
    for (const auto& s : t.spans) end = std::max(end, s.start_s + s.duration_s);
  return end;
}

SimulationTimeline load_simulation_timeline(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "cannot read the file");
  std::stringstream text;
  text << in.rdbuf();
  return parse_simulation_timeline(text.str(), path);
}

namespace {

// "38.3 % / 51.1 % of 312 TFLOP/s per GPU (datasheet peak)"; files written before the peak was
// recorded give the fractions alone.
std::string mfu_text(const nlohmann::json& summary) {
  std::string text = fmt::format("{:.1f} % / {:.1f} %", summary.value("mfu", 0.0) * 100,
                                 summary.value("hfu", 0.0) * 100);
  if (const double tflops = summary.value("peak_tflops_per_gpu", 0.0); tflops > 0)
    text += " of " + format_quantity(tflops * 1e12, "FLOP/s") + " per GPU (datasheet peak)";
  return text;
}

}  // namespace

SimulationTimeline parse_simulation_timeline(const std::string& text, const std::string& file) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann gives a byte offset: turn it into a line and column.
    const size_t at = std::min(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    const size_t start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const int column = static_cast<int>(at - (start == std::string::npos ? 0 : start + 1));
    throw InputError({file, line, std::max(1, column)},
                     "not JSON (expected the output of `tilescope simulate --out` or a Chrome "
                     "trace): " +
                         std::string(e.what()));
  }
  SimulationTimeline out;
  const nlohmann::json* trace = &j;
  // `simulate --out`: a Chrome trace with the summary beside traceEvents (schema 2), or nested
  // under `timeline` (schema 1); `--timeline`: the trace alone.
  if (j.is_object() && (j.contains("timeline") || j.contains("summary"))) {
    if (j.contains("timeline")) trace = &j["timeline"];
    out.title = fmt::format("{} with {} on {} ({} GPUs)", j.value("model", "?"),
                            j.value("strategy", "?"), j.value("cluster", "?"), j.value("gpus", 0));
    if (j.contains("summary")) {
      const auto& s = j["summary"];
      out.iteration_s = s.value("iteration_s", 0.0);
      auto gib = [&](const char* key, const char* what) {
        return fmt::format("{:.2f} GiB per GPU ({})", s.value(key, 0.0), what);
      };
      out.facts = {{"tokens/s", fmt::format("{:.0f}", s.value("tokens_per_s", 0.0))},
                   {"MFU / HFU", mfu_text(s)},
                   {"pipeline bubble",
                    fmt::format("{:.1f} % of busy time", s.value("bubble_fraction", 0.0) * 100)}};
      // Files written before the memory figures were added have none: leave them out.
      if (s.contains("model_state_gib_per_gpu"))
        out.facts.emplace_back("model state",
                               gib("model_state_gib_per_gpu", "weights, gradients, optimizer"));
      if (s.contains("activation_gib_per_gpu"))
        out.facts.emplace_back("activations",
                               gib("activation_gib_per_gpu", "first pipeline stage"));
      if (s.contains("peak_memory_gib_per_gpu"))
        out.facts.emplace_back("peak memory",
                               gib("peak_memory_gib_per_gpu", "over the iteration as run"));
      if (s.value("out_of_memory", false))
        out.facts.emplace_back("OUT OF MEMORY",
                               fmt::format("{:.2f} GiB needed, the device has {:.2f} GiB",
                                           s.value("peak_memory_gib_per_gpu", 0.0),
                                           s.value("device_memory_gib", 0.0)));
      out.summary.push_back(fmt::format("iteration {:.3f} s", out.iteration_s));
      for (const auto& [what, value] : out.facts) out.summary.push_back(what + " " + value);
      if (s.contains("breakdown"))
        for (const auto& part : s["breakdown"])
          out.breakdown.emplace_back(part.value("what", "?"), part.value("s", 0.0));
    }
  }
  if (!trace->is_object() || !trace->contains("traceEvents") || !(*trace)["traceEvents"].is_array())
    throw InputError({file, 1, 1},
                     "no `traceEvents` array (expected the output of `tilescope "
                     "simulate --out` or `--timeline`)");
  std::map<int64_t, TimelineTrack> tracks;
  std::map<std::string, TimelineCounter> counters;
  for (const auto& e : (*trace)["traceEvents"]) {
    const int64_t tid = e.value("tid", int64_t{0});
    const std::string ph = e.value("ph", "");
    if (ph == "M" && e.value("name", "") == "thread_name" && e.contains("args"))
      tracks[tid].name = e["args"].value("name", "");
    else if (ph == "X")
      // Chrome traces count microseconds.
      tracks[tid].spans.push_back(
          {e.value("name", ""), e.value("ts", 0.0) * 1e-6, e.value("dur", 0.0) * 1e-6});
    else if (ph == "C" && e.contains("args") && e["args"].is_object() && !e["args"].empty()) {
      // A counter event carries its series as arguments; the simulator writes one ("GiB").
      const auto arg = e["args"].begin();
      if (!arg.value().is_number()) continue;
      TimelineCounter& c = counters[e.value("name", "")];
      c.name = e.value("name", "");
      c.unit = arg.key();
      c.samples.emplace_back(e.value("ts", 0.0) * 1e-6, arg.value().get<double>());
    }
  }
  for (auto& [name, counter] : counters) {
    std::stable_sort(counter.samples.begin(), counter.samples.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    out.counters.push_back(std::move(counter));
  }
  for (auto& [tid, track] : tracks) {
    if (track.spans.empty()) continue;
    if (track.name.empty()) track.name = unnamed_track_name(tid);
    out.tracks.push_back(std::move(track));
  }
  if (out.iteration_s == 0) out.iteration_s = out.end_s();
  if (out.title.empty()) out.title = file;
  return out;
}

double TimelineCounter::peak() const {
  double peak = 0;
  for (const auto& [time, value] : samples) peak = std::max(peak, value);
  return peak;
}

std::string span_category(const TimelineSpan& span, const std::string& track) {
  const std::string& l = span.label;
  if (is_link_track(track)) return "pipeline transfer";
  auto starts = [&](const char* p) { return l.rfind(p, 0) == 0; };
  if (starts("issue ")) return "host";
  if (starts("F ")) return "forward";
  if (starts("B ")) return "backward";
  if (starts("R ")) return "recompute";
  if (l.find("all-reduce") != std::string::npos || l.find("allreduce") != std::string::npos ||
      l.find("reduce-scatter") != std::string::npos || l.find("all-gather") != std::string::npos)
    return "collective";
  if (l.find("optim") != std::string::npos) return "optimizer";
  return "other";
}

}  // namespace ts
