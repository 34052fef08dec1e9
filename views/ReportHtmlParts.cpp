#include "views/ReportHtmlParts.hpp"

#include <fmt/format.h>

namespace ts::views {
namespace {

const char* kStyle = R"(<style>
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 10pt; color: #111;
       max-width: 1100px; margin: 1em auto; padding: 0 1em; }
h1 { font-size: 17pt; } h2 { font-size: 14pt; margin-top: 1.6em; } h3 { font-size: 11pt; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #bbb; padding: 2px 6px; text-align: left; vertical-align: top; }
th { background: #eee; }
table.summary { border: 2px solid #4a6a8a; background: #f3f6fa; margin: 0.8em 0; }
table.summary th { background: #dde6ef; width: 28%; }
table.stats td, table.ops td, table.compare td { font-family: "DejaVu Sans Mono", monospace; }
table.ops td, table.ops th { font-size: 7.5pt; }
table.compare td, table.compare th { font-size: 8pt; }
table.compare tr.first td { border-top: 2px solid #888; }
table.tree td { font-family: "DejaVu Sans Mono", monospace; font-size: 7pt; }
table.side td { border: none; }
tr.failing td { color: #c0392b; }
ol.toc { margin: 0.3em 0 1em 0; }
.caption { font-size: 9pt; color: #444; }
.note { color: #8a4b00; }
.crossed { color: #c0392b; font-weight: bold; }
</style>
)";

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  return out;
}

std::string html_row(const std::vector<std::string>& texts, const char* tag) {
  std::string out = "<tr>";
  for (const std::string& t : texts) out += fmt::format("<{0}>{1}</{0}>", tag, html_escape(t));
  return out + "</tr>\n";
}

std::string summary_box(const std::vector<std::pair<std::string, std::string>>& facts) {
  // Qt's rich text (the PDF) reads the colours from attributes, browsers from the style sheet.
  std::string out =
      "<table class=\"summary\" id=\"summary\" border=\"2\" cellpadding=\"4\" "
      "bgcolor=\"#f3f6fa\">\n";
  for (const auto& [what, value] : facts)
    out += fmt::format("<tr><th bgcolor=\"#dde6ef\">{}</th><td>{}</td></tr>\n", html_escape(what),
                       html_escape(value));
  return out + "</table>\n";
}

std::string table_of_contents(const std::vector<ReportSection>& sections) {
  std::string out = "<h2 id=\"contents\">Contents</h2>\n<ol class=\"toc\" id=\"toc\">\n";
  for (const ReportSection& s : sections)
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>\n", html_escape(s.anchor),
                       html_escape(s.heading));
  return out + "</ol>\n";
}

std::string report_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
         html_escape(title) + "</title>\n" + kStyle + "</head>\n";
}

std::string ReportFigurePlacer::figure(const QString& name, double share) const {
  const ReportFigure* f = figures_.find(name);
  if (!f) return {};
  // The PNGs have twice the pixels they are shown with.
  double w = f->image.width() / 2.0, h = f->image.height() / 2.0;
  const double max_width = format_ == ReportFormat::pdf ? kPdfTextWidth : 1000 * share - 24;
  if (w > max_width) {
    h *= max_width / w;
    w = max_width;
  }
  // On paper a figure is kept on one page with its caption: one taller is shrunk to fit.
  if (format_ == ReportFormat::pdf && h > kPdfMaxFigureHeight) {
    w *= kPdfMaxFigureHeight / h;
    h = kPdfMaxFigureHeight;
  }
  const std::string src = format_ == ReportFormat::pdf
                              ? "figure:" + f->name.toStdString()
                              : "data:image/png;base64," + f->png.toBase64().toStdString();
  return fmt::format(
      "<div class=\"figure\" id=\"figure-{0}\"><img src=\"{1}\" width=\"{2}\" height=\"{3}\" "
      "alt=\"{4}\"><p class=\"caption\">{4}</p></div>\n",
      html_escape(f->name.toStdString()), src, static_cast<int>(w), static_cast<int>(h),
      html_escape(f->caption.toStdString()));
}

void prepare_html_for_pdf(std::string& h, const std::vector<std::string>& full_width_classes,
                          const std::vector<std::string>& no_break_classes) {
  // Qt's rich text sizes a table to its content unless told otherwise: use the page's width.
  for (const std::string& cls : full_width_classes) {
    const std::string from = fmt::format("<table class=\"{}\"", cls);
    const std::string to = fmt::format("<table width=\"100%\" class=\"{}\"", cls);
    for (size_t at = h.find(from); at != std::string::npos; at = h.find(from, at + to.size()))
      h.replace(at, from.size(), to);
  }
  // Inside the table, after its opening tag (whose id may hold a hyphen); cells hold no tag
  // with a hyphen.
  for (const std::string& cls : no_break_classes) {
    const std::string tag = fmt::format("class=\"{}\"", cls);
    for (size_t at = h.find(tag); at != std::string::npos; at = h.find(tag, at + 1)) {
      const size_t open = h.rfind("<table", at), body = h.find('>', at);
      if (open == std::string::npos || h.find('>', open) < at || body == std::string::npos)
        continue;  // the class of another element
      size_t end = h.find("</table>", body);
      for (size_t dash = h.find('-', body); dash < end; dash = h.find('-', dash + 1)) {
        h.replace(dash, 1, "&#8209;");
        end += 6;  // the entity is seven characters where the hyphen was one
      }
    }
  }
}

}  // namespace ts::views
