#include "views/ReportPdf.hpp"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <QTextOption>
#include <QUrl>
#include <cctype>
#include <memory>
#include <stdexcept>

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
    // Paginated at the page's text area in CSS pixels (96 per inch), so that the figures'
    // widths mean what they say; painted scaled to the text area in the writer's pixels.
    const QRectF text_area = writer.pageLayout().paintRect(QPageLayout::Point);
    const QSizeF page = text_area.size() * (96.0 / 72.0);
    document->setPageSize(page);
    const double scale_x = writer.width() / page.width(), scale_y = writer.height() / page.height();
    for (int p = 0; p < document->pageCount(); ++p) {
      if (p > 0) writer.newPage();
      first_page = false;
      // As QTextDocument::print() paints a page: the document moved up by the pages before it,
      // clipped to this one, in black on the paper whatever the desktop's palette.
      const QRectF view(0, p * page.height(), page.width(), page.height());
      painter.save();
      painter.scale(scale_x, scale_y);
      painter.translate(0, -view.top());
      painter.setClipRect(view);
      QAbstractTextDocumentLayout::PaintContext context;
      context.clip = view;
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
