#pragma once
// The pieces every headless report is written from (the run report of ReportHtml.cpp and the
// architecture comparison of ReportComparison.cpp): escaping, table rows, figures placed at a
// size that keeps their labels readable on A4, the summary box and table of contents that open
// every report, the style sheet, and what the PDF's rich text needs done to the HTML.
#include <string>
#include <utility>
#include <vector>

#include "views/ReportDocument.hpp"

namespace ts::views {

std::string html_escape(const std::string& text);

// One table row, every cell escaped; `tag` "th" for a header row.
std::string html_row(const std::vector<std::string>& texts, const char* tag = "td");

// A section the table of contents lists: its anchor and its heading.
struct ReportSection {
  std::string anchor, heading;
};

// What opens every report: a boxed table of the figures a reader wants first (the device, the
// counts, the agreement, the verdict), then the table of contents, whose entries link to the
// sections' anchors (in the HTML; the PDF keeps them as a list).
std::string summary_box(const std::vector<std::pair<std::string, std::string>>& facts);
std::string table_of_contents(const std::vector<ReportSection>& sections);

// The <head> with the report's style; `title` escaped here.
std::string report_head(const std::string& title);

// Figures as <img>, inline base64 PNG in HTML, the document's resource "figure:NAME" in a PDF.
class ReportFigurePlacer {
 public:
  ReportFigurePlacer(const ReportFigures& figures, ReportFormat format)
      : figures_(figures), format_(format) {}
  // The figure's <div>, or "" when it was not drawn. `share`: the part of the text width it
  // may take in HTML (0.5 for two side by side). In a PDF every figure may take the whole text
  // width, never less, so that plots drawn at most kMaxPdfPlotWidth wide keep their 9 pt labels
  // at 7 pt or more on A4.
  std::string figure(const QString& name, double share = 1.0) const;

 private:
  const ReportFigures& figures_;
  ReportFormat format_;
};

// The text width of an A4 page with 15 mm margins, in CSS pixels (96 per inch), less a cell's
// padding: 656 px.
inline constexpr double kPdfTextWidth = (210.0 - 30.0) / 25.4 * 96 - 24;
// The widest a plot is drawn (ReportFigures) so that the PDF shrinks it by at most 7 pt / 9 pt
// and its labels stay readable: 656 / (7 / 9) = 843 px.
inline constexpr int kMaxPdfPlotWidth = 843;
// The text height of a portrait A4 page in CSS pixels, and the part of it a figure may take
// with room left for its caption (three lines and their margins): a figure never goes over a
// page break (views/ReportPdf), so none may be taller than a page.
inline constexpr double kPdfTextHeight = (297.0 - 30.0) / 25.4 * 96;
inline constexpr double kPdfMaxFigureHeight = kPdfTextHeight - 110;
// The tallest a plot is drawn at kMaxPdfPlotWidth so that, shrunk to kPdfTextWidth, it still
// fits kPdfMaxFigureHeight: 1155 px.
inline constexpr int kMaxPdfPlotHeight =
    static_cast<int>(kPdfMaxFigureHeight * kMaxPdfPlotWidth / kPdfTextWidth);

// For Qt's rich text, which paints the PDF: tables of these classes take the page's width, and
// in tables of the classes in `no_break_classes` every hyphen is a non-breaking one (U+2011),
// since Qt breaks a line after a hyphen ("HBM-" / ">L2", "(double-" / "buffered)").
void prepare_html_for_pdf(std::string& html, const std::vector<std::string>& full_width_classes,
                          const std::vector<std::string>& no_break_classes);

}  // namespace ts::views
