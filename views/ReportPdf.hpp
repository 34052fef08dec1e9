#pragma once
// A report's HTML painted on A4 pages by Qt's rich text, portrait by default and landscape
// between the two markers below: a mapping tree's table has eight columns, and on a portrait
// page its cells are narrower than their words. QTextDocument::print() paints one page size
// only, so each part is a document of its own, paginated at its orientation's text area and
// painted page by page as print() does, onto one PDF writer whose layout changes between them.
#include <QByteArray>
#include <string>
#include <vector>

#include "views/ReportFigures.hpp"

namespace ts::views {

// What a report's HTML puts around its landscape part (only in the PDF's text).
inline constexpr char kPdfLandscapeBegin[] = "<!--tilescope:landscape-->";
inline constexpr char kPdfLandscapeEnd[] = "<!--tilescope:portrait-->";

struct PdfPart {
  std::string html;  // a whole document: the head of the report and part of its body
  bool landscape = false;
};

// The report cut at the markers, in order; parts with nothing but white space are left out. An
// unmatched begin marker makes the rest landscape.
std::vector<PdfPart> split_pdf_parts(const std::string& html);

// The PDF's bytes: every part starts on a new page; 15 mm margins, `title` and `creator` in the
// metadata, the figures the documents' resources "figure:NAME".
QByteArray paint_report_pdf(const std::string& html, const ReportFigures& figures,
                            const std::string& title, const std::string& creator);

}  // namespace ts::views
