#pragma once
// A headless report as one document: the HTML text (self-contained, figures inline as base64
// PNG, nothing fetched from anywhere) or a PDF painted by Qt's PDF writer from the same text;
// and the figures as files beside it. Every file is written to a temporary name and renamed
// into place, so that a failure leaves the old file or none, never half of one.
#include <functional>
#include <string>

#include "report/ReportContent.hpp"
#include "views/ReportFigures.hpp"

namespace ts::views {

enum class ReportFormat { html, pdf };

// The format the output's extension names (.html, .htm, .pdf); throws InputError on "--out"
// for any other.
ReportFormat report_format(const std::string& out_path);

// `pdf`: images are named "figure:NAME" for the QTextDocument's resources, widths fit an A4
// page, and the machine-readable data block is left out.
std::string report_html(const ReportContent& content, const ReportFigures& figures,
                        ReportFormat format = ReportFormat::html);

// Writes html(ReportFormat::html) as it is, or paints html(ReportFormat::pdf) on A4 pages with
// the figures as the document's resources, `title` and `creator` in the PDF's metadata; by the
// extension of `out_path`. Throws InputError naming the file when it cannot be written.
void write_report_document(const std::function<std::string(ReportFormat)>& html,
                           const ReportFigures& figures, const std::string& title,
                           const std::string& creator, const std::string& out_path);

// Throws InputError naming the file when it cannot be written.
void write_report(const ReportContent& content, const ReportFigures& figures,
                  const std::string& out_path);
// NAME.png and NAME.svg for every figure; the folder is made when missing. Returns the paths.
std::vector<std::string> write_report_figures(const ReportFigures& figures, const std::string& dir);

}  // namespace ts::views
