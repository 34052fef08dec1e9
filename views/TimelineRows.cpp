#include "views/TimelineRows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "training/SimulationJson.hpp"

namespace ts::views {

bool track_visible_in(const TimelineTrack& track, double from_s, double to_s, double pixels_per_s) {
  for (const TimelineSpan& s : track.spans) {
    const double start = std::max(s.start_s, from_s);
    const double end = std::min(s.start_s + s.duration_s, to_s);
    if (end > start && (end - start) * pixels_per_s >= kMinVisibleSpanPixels) return true;
  }
  return false;
}

std::vector<TimelineRow> timeline_rows(const SimulationTimeline& timeline, double from_s,
                                       double to_s, double pixels_per_s, bool unfold_links) {
  std::vector<TimelineRow> rows;
  size_t folded_at = 0;
  int folded = 0;
  for (size_t t = 0; t < timeline.tracks.size(); ++t) {
    const TimelineTrack& track = timeline.tracks[t];
    if (!unfold_links && is_link_track(track.name) &&
        !track_visible_in(track, from_s, to_s, pixels_per_s)) {
      if (folded++ == 0) folded_at = rows.size();
      continue;
    }
    rows.push_back({static_cast<int>(t), 0});
  }
  if (folded > 0)
    rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(folded_at), TimelineRow{-1, folded});
  return rows;
}

double row_half_height(const TimelineRow& row) { return row.track < 0 ? 0.25 : 0.5; }

double rows_height(const std::vector<TimelineRow>& rows) {
  double h = 0;
  for (const TimelineRow& r : rows) h += 2 * row_half_height(r);
  return h;
}

double row_centre(const std::vector<TimelineRow>& rows, size_t row) {
  // From the bottom: the rows below `row` and half of its own.
  double y = 0;
  for (size_t r = rows.size(); r-- > row + 1;) y += 2 * row_half_height(rows[r]);
  return y + row_half_height(rows[row]);
}

int row_at(const std::vector<TimelineRow>& rows, double y) {
  for (size_t r = 0; r < rows.size(); ++r)
    if (std::abs(y - row_centre(rows, r)) <= row_half_height(rows[r])) return static_cast<int>(r);
  return -1;
}

std::string folded_row_label(int folded) {
  return fmt::format("{} link track{} folded", folded, folded == 1 ? "" : "s");
}

}  // namespace ts::views
