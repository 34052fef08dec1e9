// views/ReportPdf: a report's HTML cut at the landscape markers into documents of their own, and
// painted on one PDF with portrait and landscape pages in that order.
#include <QRegularExpression>
#include <string>

#include "GuiTestSupport.hpp"
#include "views/ReportPdf.hpp"

using ts::views::kPdfLandscapeBegin;
using ts::views::kPdfLandscapeEnd;

namespace {

const std::string kHead = "<html><head><title>t</title></head><body>";
const std::string kTail = "</body></html>";

}  // namespace

TEST_CASE("a report's HTML is cut into portrait and landscape parts at the markers",
          "[views][report]") {
  const std::string html = kHead + "<p>summary</p>" + kPdfLandscapeBegin + "<table>tree</table>" +
                           kPdfLandscapeEnd + "<p>graph</p>" + kTail;
  const auto parts = ts::views::split_pdf_parts(html);
  REQUIRE(parts.size() == 3);
  // Each part is a whole document: the report's head, its own piece of the body, the end.
  CHECK(parts[0].html == kHead + "<p>summary</p>" + kTail);
  CHECK(parts[1].html == kHead + "<table>tree</table>" + kTail);
  CHECK(parts[2].html == kHead + "<p>graph</p>" + kTail);
  CHECK_FALSE(parts[0].landscape);
  CHECK(parts[1].landscape);
  CHECK_FALSE(parts[2].landscape);

  // Nothing but white space after the trees: no blank portrait page at the end.
  const auto ending = ts::views::split_pdf_parts(kHead + "<p>a</p>" + kPdfLandscapeBegin +
                                                 "<p>b</p>" + kPdfLandscapeEnd + "\n " + kTail);
  REQUIRE(ending.size() == 2);
  CHECK(ending[1].landscape);
  // A begin without an end: the rest is landscape.
  const auto open =
      ts::views::split_pdf_parts(kHead + "<p>a</p>" + kPdfLandscapeBegin + "<p>b</p>" + kTail);
  REQUIRE(open.size() == 2);
  CHECK(open[1].html == kHead + "<p>b</p>" + kTail);
  CHECK(open[1].landscape);
  // No markers: one portrait document, the HTML as it is.
  const auto plain = ts::views::split_pdf_parts(kHead + "<p>a</p>" + kTail);
  REQUIRE(plain.size() == 1);
  CHECK(plain[0].html == kHead + "<p>a</p>" + kTail);
  CHECK_FALSE(plain[0].landscape);
}

TEST_CASE("the parts are painted on A4 pages of their orientation, each from a new page",
          "[views][report]") {
  const std::string html = kHead + "<p>summary</p>" + kPdfLandscapeBegin + "<p>tree</p>" +
                           kPdfLandscapeEnd + "<p>graph</p>" + kTail;
  const QByteArray pdf = ts::views::paint_report_pdf(html, {}, "title", "creator");
  REQUIRE(pdf.startsWith("%PDF-"));
  // Every page object names its size: A4 is 595 x 842 pt upright, 842 x 595 on its side.
  const QRegularExpression media_box(R"(/MediaBox \[0 0 ([\d.]+) ([\d.]+)\])");
  std::string orientations;
  for (auto it = media_box.globalMatch(QString::fromLatin1(pdf)); it.hasNext();) {
    const auto m = it.next();
    orientations += m.captured(1).toDouble() > m.captured(2).toDouble() ? 'L' : 'P';
  }
  CHECK(orientations == "PLP");
}
