#include "views/ReportDocument.hpp"

#include <QByteArray>
#include <algorithm>
#include <filesystem>

#include "common/AtomicFile.hpp"
#include "common/InputError.hpp"
#include "views/ReportPdf.hpp"

namespace ts::views {
namespace {

// Outputs are rendered in memory and written by the one atomic writer (common/AtomicFile),
// which checks every write and the final flush: a PDF cut short by a full disk is an error,
// never a success.
void write_bytes(const std::string& path, const QByteArray& bytes) {
  write_file_atomically(path, std::string(bytes.constData(), static_cast<size_t>(bytes.size())));
}

}  // namespace

ReportFormat report_format(const std::string& out_path) {
  std::string ext = std::filesystem::path(out_path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (ext == ".html" || ext == ".htm") return ReportFormat::html;
  if (ext == ".pdf") return ReportFormat::pdf;
  throw InputError(SourceLocation{"--out", 0, 0},
                   "'" + out_path +
                       "': the report is written as HTML or PDF; expected a file "
                       "name ending in .html or .pdf");
}

void write_report_document(const std::function<std::string(ReportFormat)>& html,
                           const ReportFigures& figures, const std::string& title,
                           const std::string& creator, const std::string& out_path) {
  const ReportFormat format = report_format(out_path);
  if (format == ReportFormat::html) {
    write_file_atomically(out_path, html(format));
  } else {
    // Qt's rich text paints the same HTML onto PDF pages; the figures are its resources.
    write_bytes(out_path, paint_report_pdf(html(format), figures, title, creator));
  }
}

void write_report(const ReportContent& content, const ReportFigures& figures,
                  const std::string& out_path) {
  write_report_document([&](ReportFormat format) { return report_html(content, figures, format); },
                        figures, "tilescope report: " + content.title, content.tool_version,
                        out_path);
}

std::vector<std::string> write_report_figures(const ReportFigures& figures,
                                              const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw InputError(SourceLocation{dir, 0, 0},
                     "cannot make the figures folder: " +
                         (error ? error.message() : std::string("not a folder")));
  std::vector<std::string> written;
  for (const ReportFigure& f : figures.figures)
    for (const auto& [ext, bytes] : {std::pair{".png", &f.png}, std::pair{".svg", &f.svg}}) {
      const std::string path = (std::filesystem::path(dir) / (f.name.toStdString() + ext)).string();
      write_bytes(path, *bytes);
      written.push_back(path);
    }
  return written;
}

}  // namespace ts::views
