#include "views/MicroBatchRange.hpp"

#include <algorithm>
#include <cctype>
#include <limits>

namespace ts::views {
namespace {

// The number that follows `word` as a whole word of `text` ("mb" in "F mb12 c0"), or -1.
int number_after(const std::string& text, const std::string& word) {
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    if (at > 0 && text[at - 1] != ' ') continue;
    size_t end = at + word.size();
    int n = 0;
    bool digits = false;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) {
      n = n * 10 + (text[end++] - '0');
      digits = true;
    }
    if (digits && (end == text.size() || text[end] == ' ')) return n;
  }
  return -1;
}

}  // namespace

int span_micro_batch(const std::string& label) { return number_after(label, "mb"); }

int track_stage(const std::string& track) {
  // "stage 3 compute": the word after "stage" at the start of the name.
  if (track.rfind("stage ", 0) != 0) return -1;
  return number_after(track.substr(5), " ");
}

int stage_count(const SimulationTimeline& timeline) {
  int stages = 0;
  for (const TimelineTrack& t : timeline.tracks) stages = std::max(stages, track_stage(t.name) + 1);
  return stages;
}

int micro_batch_count(const SimulationTimeline& timeline) {
  int count = 0;
  for (const TimelineTrack& t : timeline.tracks)
    if (track_stage(t.name) >= 0)
      for (const TimelineSpan& s : t.spans) count = std::max(count, span_micro_batch(s.label) + 1);
  return count;
}

std::optional<TimeRange> micro_batch_range(const SimulationTimeline& timeline, int stage,
                                           int micro_batch) {
  double from = std::numeric_limits<double>::infinity();
  double to = -from;
  for (const TimelineTrack& t : timeline.tracks) {
    if (track_stage(t.name) != stage) continue;
    for (const TimelineSpan& s : t.spans)
      if (span_micro_batch(s.label) == micro_batch) {
        from = std::min(from, s.start_s);
        to = std::max(to, s.start_s + s.duration_s);
      }
  }
  if (!(to > from)) return std::nullopt;
  return TimeRange{from, to};
}

}  // namespace ts::views
