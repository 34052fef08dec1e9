#pragma once
// Which rows a timeline draws at a given zoom. A pipeline's link tracks carry transfers of a
// fraction of a millisecond: at an iteration's scale (seconds over a thousand pixels) not one of
// them is a pixel wide, so their rows would look empty (16 of 24 rows for GPT-3 175B on Selene).
// Such link tracks fold into one thin row that says how many it stands for; zooming in until a
// transfer is a pixel wide brings each back. Plain values, so that reports lay out the same rows.
#include <string>
#include <vector>

#include "training/SimulationTimeline.hpp"

namespace ts::views {

struct TimelineRow {
  int track = -1;  // index in SimulationTimeline::tracks; -1 on the folded row
  int folded = 0;  // on the folded row: how many link tracks it stands for
};

// A span narrower than this draws nothing one can see or point at.
constexpr double kMinVisibleSpanPixels = 1.0;

// Whether `track` has a span in [from_s, to_s] at least kMinVisibleSpanPixels wide at
// `pixels_per_s` (the part inside the range counts).
bool track_visible_in(const TimelineTrack& track, double from_s, double to_s, double pixels_per_s);

// The rows, top to bottom: every track in order, except link tracks (is_link_track) not visible
// in the range, which are left out and stand as one folded row where the first of them was.
// `unfold_links`: every link track keeps its row (what "show all link tracks" asks for).
std::vector<TimelineRow> timeline_rows(const SimulationTimeline& timeline, double from_s,
                                       double to_s, double pixels_per_s, bool unfold_links);

// The chart's y axis in row units, row 0 at the top: a track's row is 1 high, the folded row
// half as high (thin: it only says what it hides). The rows fill [0, rows_height(rows)].
double rows_height(const std::vector<TimelineRow>& rows);
double row_centre(const std::vector<TimelineRow>& rows, size_t row);
double row_half_height(const TimelineRow& row);
// The row whose band holds `y`, or -1.
int row_at(const std::vector<TimelineRow>& rows, double y);

// "16 link tracks folded" (the row's tooltip says why)
std::string folded_row_label(int folded);

}  // namespace ts::views
