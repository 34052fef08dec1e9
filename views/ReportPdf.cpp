#include "views/ReportPdf.hpp"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextOption>
#include <QTextTable>
#include <QUrl>
#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <stdexcept>
#include <utility>

namespace ts::views {
namespace {

bool blank(const std::string& text) {
  for (unsigned char ch : text)
    if (!std::isspace(ch)) return false;
  return true;
}

std::unique_ptr<QTextDocument> make_document(const std::string& html,
                                             const ReportFigures& figures) {
  auto document = std::make_unique<QTextDocument>();
  // Lines break between words only, never inside one: Qt's default also breaks anywhere, which
  // split a mapping tree's "tile L1" into "t" and "ile L1" in a narrow column. A column is now
  // at least as wide as its longest word.
  QTextOption wrap = document->defaultTextOption();
  wrap.setWrapMode(QTextOption::WordWrap);
  document->setDefaultTextOption(wrap);
  for (const ReportFigure& f : figures.figures)
    document->addResource(QTextDocument::ImageResource, QUrl("figure:" + f.name), f.image);
  document->setHtml(QString::fromStdString(html));
  return document;
}

// What must not be cut by a page break, as [top, bottom] in the document's pixels: every line of
// text (a figure is an inline image, so a line too), every table row, a figure with the caption
// under it, and a heading with the first line after it.
std::vector<std::pair<double, double>> unbreakable_spans(QTextDocument& document) {
  QAbstractTextDocumentLayout* layout = document.documentLayout();
  std::vector<std::pair<double, double>> spans;
  std::map<std::pair<const QTextTable*, int>, std::pair<double, double>> rows;
  const auto first_line_bottom = [&](const QTextBlock& block) {
    const QRectF r = layout->blockBoundingRect(block);
    const QTextLayout* text = block.layout();
    return text && text->lineCount() > 0 ? r.top() + text->lineAt(0).rect().bottom() : r.bottom();
  };
  for (QTextBlock block = document.begin(); block.isValid(); block = block.next()) {
    const QRectF r = layout->blockBoundingRect(block);
    if (const QTextLayout* text = block.layout())
      for (int i = 0; i < text->lineCount(); ++i) {
        const QRectF line = text->lineAt(i).rect().translated(r.topLeft());
        spans.emplace_back(line.top(), line.bottom());
      }
    const QTextCursor at(block);
    if (const QTextTable* table = at.currentTable()) {
      // (Its cells' text: spans of neighbouring rows must not overlap, or a cut moved to the
      // top of one row would be inside the row above, and so on up the table.)
      auto [it, added] =
          rows.try_emplace({table, table->cellAt(at).row()}, std::pair{r.top(), r.bottom()});
      if (!added) {
        it->second.first = std::min(it->second.first, r.top());
        it->second.second = std::max(it->second.second, r.bottom());
      }
    }
    const QTextBlock next = block.next();
    if (!next.isValid()) continue;
    if (block.blockFormat().headingLevel() > 0)
      spans.emplace_back(r.top(), first_line_bottom(next));
    for (auto f = block.begin(); !f.atEnd(); ++f)
      if (f.fragment().charFormat().isImageFormat() &&
          f.fragment().charFormat().toImageFormat().name().startsWith("figure:")) {
        spans.emplace_back(r.top(), layout->blockBoundingRect(next).bottom());
        break;
      }
  }
  for (const auto& [key, span] : rows) spans.push_back(span);
  return spans;
}

// Where each page ends: as low as a page reaches, moved up to the top of whatever it would cut.
// Something taller than a page (a long mapping tree's row cannot be) is cut where the page ends.
std::vector<double> page_ends(QTextDocument& document, double page_height) {
  const std::vector<std::pair<double, double>> spans = unbreakable_spans(document);
  const double end = document.documentLayout()->documentSize().height();
  std::vector<double> ends;
  for (double top = 0; top < end - 0.5;) {
    double cut = top + page_height;
    for (bool moved = true; moved && cut < end;) {
      moved = false;
      for (const auto& [from, to] : spans)
        if (from < cut - 0.01 && to > cut + 0.01 && from > top + 0.5) {
          cut = from;
          moved = true;
        }
    }
    cut = std::min(cut, end);
    ends.push_back(cut);
    top = cut;
  }
  if (ends.empty()) ends.push_back(std::max(end, 1.0));  // still one (blank) page
  return ends;
}

}  // namespace

std::vector<PdfPart> split_pdf_parts(const std::string& html) {
  const std::string body_open = "<body>", body_close = "</body>";
  const size_t open = html.find(body_open);
  const size_t close = html.rfind(body_close);
  if (open == std::string::npos || close == std::string::npos || close < open)
    return {PdfPart{html, false}};
  const std::string head = html.substr(0, open + body_open.size());
  const std::string tail = html.substr(close);
  const std::string body = html.substr(open + body_open.size(), close - open - body_open.size());
  std::vector<PdfPart> parts;
  auto add = [&](size_t from, size_t to, bool landscape) {
    const std::string text = body.substr(from, to - from);
    if (!blank(text)) parts.push_back(PdfPart{head + text + tail, landscape});
  };
  const std::string begin = kPdfLandscapeBegin, end = kPdfLandscapeEnd;
  size_t at = 0;
  while (at < body.size()) {
    const size_t turn = body.find(begin, at);
    if (turn == std::string::npos) {
      add(at, body.size(), false);
      break;
    }
    add(at, turn, false);
    const size_t from = turn + begin.size();
    const size_t back = body.find(end, from);
    add(from, back == std::string::npos ? body.size() : back, true);
    if (back == std::string::npos) break;
    at = back + end.size();
  }
  if (parts.empty()) parts.push_back(PdfPart{html, false});  // still one (blank) page
  return parts;
}

QByteArray paint_report_pdf(const std::string& html, const ReportFigures& figures,
                            const std::string& title, const std::string& creator) {
  QByteArray pdf;
  QBuffer buffer(&pdf);
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter writer(&buffer);
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
  writer.setTitle(QString::fromStdString(title));
  writer.setCreator(QString::fromStdString(creator));
  QPainter painter;
  bool first_page = true;
  for (const PdfPart& part : split_pdf_parts(html)) {
    // A new layout applies from the next page: set before the painter begins, or just before
    // newPage() (QPagedPaintDevice::setPageLayout).
    writer.setPageOrientation(part.landscape ? QPageLayout::Landscape : QPageLayout::Portrait);
    if (first_page) {
      if (!painter.begin(&writer)) throw std::runtime_error("cannot paint the PDF");
    } else {
      writer.newPage();
    }
    const std::unique_ptr<QTextDocument> document = make_document(part.html, figures);
    // Laid out as one long page at the text area's width in CSS pixels (96 per inch), so that
    // the figures' widths mean what they say, and cut into pages here rather than by Qt's
    // pagination, which breaks a table row inside its cells (a row's first lines at the foot
    // of one page, the rest, and half a line twice, at the head of the next) and a figure
    // anywhere. Painted scaled to the text area in the writer's pixels.
    const QRectF text_area = writer.pageLayout().paintRect(QPageLayout::Point);
    const QSizeF page = text_area.size() * (96.0 / 72.0);
    document->setTextWidth(page.width());
    const double scale_x = writer.width() / page.width(), scale_y = writer.height() / page.height();
    double top = 0;
    bool first_of_part = true;
    for (const double end : page_ends(*document, page.height())) {
      if (!first_of_part) writer.newPage();
      first_of_part = false;
      first_page = false;
      // As QTextDocument::print() paints a page: the document moved up by the pages before it,
      // clipped to this one, in black on the paper whatever the desktop's palette.
      const QRectF view(0, top, page.width(), end - top);
      top = end;
      painter.save();
      painter.scale(scale_x, scale_y);
      painter.translate(0, -view.top());
      painter.setClipRect(view);
      QAbstractTextDocumentLayout::PaintContext context;
      // Qt draws every line that touches the clip, edges included: a line ending exactly at the
      // cut would be drawn, unseen, on the next page too, and its text found twice. A pixel in
      // from each cut is inside no line but the page's own.
      context.clip = view.adjusted(0, 1, 0, -1);
      context.palette.setColor(QPalette::Text, Qt::black);
      document->documentLayout()->draw(&painter, context);
      painter.restore();
    }
  }
  if (painter.isActive()) painter.end();
  buffer.close();
  return pdf;
}

}  // namespace ts::views
