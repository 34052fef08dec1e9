// `tilescope report --compare`: two graphs and a workload as a report, no database. The HTML's
// per-operator table is `tilescope compare`'s table cell for cell and its data block is
// `compare --format json`; the PDF renders, opens with the summary box and the contents, keeps
// every word of its tables whole, and prints its figures large enough to read.
#include <QImage>
#include <QString>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;
using namespace ts::cli_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kGraphs = {"--arch", "samples/arch/nvidia-h100.yaml", "--arch",
                                          "samples/arch/nvidia-h200.yaml"};
const std::string kWorkload = "samples/workloads/bert-base.yaml";

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::string decode_entities(std::string text) {
  for (const auto& [entity, plain] : {std::pair<std::string, std::string>{"&nbsp;", " "},
                                      {"&gt;", ">"},
                                      {"&lt;", "<"},
                                      {"&quot;", "\""},
                                      {"&amp;", "&"}})
    for (size_t at = text.find(entity); at != std::string::npos; at = text.find(entity, at))
      text.replace(at, entity.size(), plain);
  return text;
}

// The cells of each row of the table with this id, tags stripped, entities decoded.
std::vector<std::vector<std::string>> compare_table_rows(const std::string& html,
                                                         const std::string& id) {
  const size_t start = html.find("id=\"" + id + "\"");
  REQUIRE(start != std::string::npos);
  const std::string table = html.substr(start, html.find("</table>", start) - start);
  std::vector<std::vector<std::string>> rows;
  const std::regex row("<tr[^>]*>([\\s\\S]*?)</tr>"), cell("<t[dh][^>]*>([\\s\\S]*?)</t[dh]>");
  for (std::sregex_iterator r(table.begin(), table.end(), row), end; r != end; ++r) {
    const std::string text = (*r)[1];
    std::vector<std::string> cells;
    for (std::sregex_iterator c(text.begin(), text.end(), cell); c != end; ++c)
      cells.push_back(decode_entities((*c)[1]));
    rows.push_back(cells);
  }
  return rows;
}

// A row of `compare`'s text table: columns are two or more spaces apart (no cell holds two).
std::vector<std::string> text_cells(const std::string& line) {
  std::vector<std::string> cells;
  const std::regex gap(" {2,}");
  for (std::sregex_token_iterator t(line.begin(), line.end(), gap, -1), end; t != end; ++t)
    if (!t->str().empty()) cells.push_back(*t);
  return cells;
}

std::map<std::string, size_t> word_counts(const std::string& text) {
  std::map<std::string, size_t> counts;
  std::istringstream words(text);
  for (std::string w; words >> w;) ++counts[w];
  return counts;
}

bool have(const char* tool) {
  return std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace

TEST_CASE("report --compare: the HTML table is compare's table and its data compare's JSON",
          "[cli][report][compare][slow]") {
  TempDir dir;
  const std::string out = dir / "compare.html";
  const RunResult r = run_tilescope(
      with({"report", "--compare"}, with(kGraphs, {"--workload", kWorkload, "--out", out})));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("report: " + out));
  const std::string html = read_text(out);

  // The summary box and the contents come first, before the first section.
  const size_t summary = html.find("id=\"summary\""), toc = html.find("id=\"toc\""),
               first = html.find("id=\"operators\"");
  REQUIRE(summary != std::string::npos);
  REQUIRE(toc != std::string::npos);
  CHECK(summary < toc);
  CHECK(toc < first);
  for (const char* anchor : {"#operators", "#time", "#speedup", "#graphs"})
    CHECK_THAT(html, Catch::Contains(std::string("href=\"") + anchor + "\""));

  // Every operator (and the total) says what `compare` prints in its row, cell for cell: name,
  // shape, the two times, the speed-up, the two bounds and where the bound moved. The report
  // has a row per graph (name and shape span them): A's row, then B's.
  const RunResult table =
      run_tilescope(with({"compare"}, with(kGraphs, {"--workload", kWorkload})));
  REQUIRE(table.status == 0);
  std::map<std::string, std::vector<std::string>> printed;
  bool in_rows = false;
  for (const std::string& line : split_lines(table.out)) {
    if (line.rfind("operator ", 0) == 0) {
      in_rows = true;
      continue;
    }
    if (!in_rows) continue;
    if (line.rfind("time: ", 0) == 0) break;
    const std::vector<std::string> cells = text_cells(line);
    printed[cells.front()] = cells;
  }
  const auto rows = compare_table_rows(html, "comparison-operators");
  REQUIRE(rows.size() == 1 + 2 * printed.size());  // a header, then two rows per operator
  REQUIRE(printed.size() > 5);
  for (size_t i = 1; i + 1 < rows.size(); i += 2) {
    const std::vector<std::string>& a = rows[i];
    const std::vector<std::string>& b = rows[i + 1];
    // name, shape, graph, time, speed-up, bound, moved; then graph, time, speed-up, bound, moved
    REQUIRE(a.size() == 7);
    REQUIRE(b.size() == 5);
    INFO(a[0]);
    CHECK(a[2] == "A");
    CHECK(b[0] == "B");
    CHECK(a[4] == "1.00x");  // A over itself
    CHECK(a[6].empty());     // a bound moves from A only on another graph
    REQUIRE(printed.count(a[0]) == 1);
    std::vector<std::string> expected;
    for (const std::string& c : {a[0], a[1], a[3], b[1], b[2], a[5], b[3], b[4]})
      if (!c.empty()) expected.push_back(c);
    CHECK(printed[a[0]] == expected);
  }

  // The data block is `compare --format json`, figure for figure.
  const std::string open = "<script type=\"application/json\" id=\"tilescope-comparison-data\">";
  const size_t at = html.find(open);
  REQUIRE(at != std::string::npos);
  const size_t from = at + open.size();
  std::string block = html.substr(from, html.find("</script>", from) - from);
  for (size_t s = block.find("<\\/"); s != std::string::npos; s = block.find("<\\/", s))
    block.replace(s, 3, "</");
  const RunResult js = run_tilescope(
      with({"compare"}, with(kGraphs, {"--workload", kWorkload, "--format", "json"})));
  REQUIRE(js.status == 0);
  CHECK(json::parse(block) == json::parse(js.out));

  // Both figures are inline PNGs that decode.
  for (const char* id : {"figure-comparison-time", "figure-comparison-speedup"}) {
    const size_t fig = html.find(std::string("id=\"") + id + "\"");
    REQUIRE(fig != std::string::npos);
    const std::string prefix = "src=\"data:image/png;base64,";
    const size_t src = html.find(prefix, fig) + prefix.size();
    const QImage image = QImage::fromData(QByteArray::fromBase64(QByteArray::fromStdString(
                                              html.substr(src, html.find('"', src) - src))),
                                          "PNG");
    CHECK_FALSE(image.isNull());
    CHECK(image.width() > 1000);  // drawn at twice its shown size
  }
}

TEST_CASE("report --compare PDF renders, opens with its summary, breaks no word of a table",
          "[cli][report][compare][slow]") {
  TempDir dir;
  const std::string html_out = dir / "compare.html", pdf_out = dir / "compare.pdf";
  for (const std::string& out : {html_out, pdf_out}) {
    const RunResult r = run_tilescope(
        with({"report", "--compare"}, with(kGraphs, {"--workload", kWorkload, "--out", out})));
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  REQUIRE(read_text(pdf_out).rfind("%PDF-", 0) == 0);
  if (!have("pdftotext") || !have("pdftoppm") || !have("pdfimages")) {
    WARN("poppler-utils is missing: the PDF is not looked at");
    return;
  }
  // Page 1 is drawn, not blank.
  const std::string page = dir / "page";
  REQUIRE(std::system(("pdftoppm -png -r 60 -f 1 -l 1 -singlefile '" + pdf_out + "' '" + page + "'")
                          .c_str()) == 0);
  const QImage image(QString::fromStdString(page + ".png"));
  REQUIRE_FALSE(image.isNull());
  size_t ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (qGray(image.pixel(x, y)) < 200) ++ink;
  CHECK(ink > static_cast<size_t>(image.width()) * static_cast<size_t>(image.height()) / 200);

  const std::string text_out = dir / "compare.txt";
  REQUIRE(std::system(("pdftotext -layout '" + pdf_out + "' '" + text_out + "'").c_str()) == 0);
  std::string text = read_text(text_out);
  // Non-breaking hyphens (U+2011) read back as "-".
  for (size_t at = text.find("\u2011"); at != std::string::npos; at = text.find("\u2011", at))
    text.replace(at, std::string("\u2011").size(), "-");
  // The summary box, then the contents, then the first section.
  const size_t total = text.find("total time"), contents = text.find("Contents"),
               first = text.find("Per operator", contents);
  REQUIRE(total != std::string::npos);
  REQUIRE(contents != std::string::npos);
  CHECK(total < contents);
  CHECK(contents < first);

  // Every word of every table cell is whole in the PDF: a word broken across lines ("edge:HBM-"
  // and ">L2") is missing from its text, so each must be there at least as often as the tables
  // have it.
  const std::string html = read_text(html_out);
  std::map<std::string, size_t> in_tables;
  for (const char* id : {"comparison-operators", "summary"})
    for (const auto& row : compare_table_rows(html, id))
      for (const std::string& cell : row)
        for (const auto& [word, count] : word_counts(cell)) in_tables[word] += count;
  REQUIRE(in_tables.count("edge:HBM->L2") + in_tables.count("edge:L2->SMEM") > 0);
  std::map<std::string, size_t> in_pdf = word_counts(text);
  for (const auto& [word, count] : in_tables) {
    INFO(word);
    CHECK(in_pdf[word] >= count);
  }

  // Figures printed at no less than 3/4 of their drawn size: a 9 pt label stays at 7 pt or
  // more. Drawn at 2 pixels per CSS pixel (96 per inch), a figure at its size has 192 pixels
  // per inch; shrunk to 3/4, 256.
  const std::string list = dir / "images.txt";
  REQUIRE(std::system(("pdfimages -list '" + pdf_out + "' > '" + list + "'").c_str()) == 0);
  size_t images = 0;
  for (const std::string& line : split_lines(read_text(list))) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    // page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
    if (f.size() < 14 || f[2] != "image") continue;
    ++images;
    INFO(line);
    CHECK(std::stod(f[12]) <= 256.5);
  }
  CHECK(images >= 2);
}

// A decode step's report says its time per token on each graph in the summary box, the figure
// predict prints (the same forward_pass); other workloads have no such line.
TEST_CASE("report --compare of a decode step: time per token in the summary",
          "[cli][report][compare][llm][slow]") {
  TempDir dir;
  const std::string out = dir / "decode.html";
  const std::string decode = "samples/workloads/llm/llama2-7b-decode.yaml";
  const RunResult r =
      run_tilescope(with({"report", "--compare"},
                         with(kGraphs, {"--workload", decode, "--budget", "2000", "--out", out})));
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::string line;
  for (const auto& row : compare_table_rows(read_text(out), "summary"))
    if (row.size() == 2 && row[0] == "time per token") line = row[1];
  REQUIRE_FALSE(line.empty());
  // predict's own figure on each graph, at the same budget: "time per token: 3224.657 us ..."
  for (const auto& [label, arch] :
       {std::pair<std::string, std::string>{"A", "samples/arch/nvidia-h100.yaml"},
        {"B", "samples/arch/nvidia-h200.yaml"}}) {
    const RunResult p =
        run_tilescope({"predict", "--arch", arch, "--workload", decode, "--budget", "2000"});
    REQUIRE(p.status == 0);
    const std::smatch m = [&] {
      std::smatch found;
      std::regex_search(p.out, found, std::regex("time per token: ([0-9.]+) us"));
      return found;
    }();
    REQUIRE(m.size() == 2);
    INFO(line);
    CHECK_THAT(line, Catch::Contains(label + " " + m[1].str() + " us per token, "));
  }
  // Llama-2 7B at batch 1 reads its 13214154752 B of fp16 weights once per token: on the H200
  // (4.8 TB/s) no less than 2752.95 us, on the H100 (3.35 TB/s) no less than 3944.52 us.
  std::smatch a, b;
  REQUIRE(std::regex_search(line, a, std::regex("A ([0-9.]+) us per token")));
  REQUIRE(std::regex_search(line, b, std::regex("B ([0-9.]+) us per token")));
  CHECK(std::stod(a[1].str()) >= 13214154752.0 / 3.35e12 * 1e6);
  CHECK(std::stod(b[1].str()) >= 13214154752.0 / 4.8e12 * 1e6);

  // Not a decode step: no such line.
  const std::string bert = dir / "bert.html";
  REQUIRE(run_tilescope(
              with({"report", "--compare"},
                   with(kGraphs, {"--workload", kWorkload, "--budget", "2000", "--out", bert})))
              .status == 0);
  for (const auto& row : compare_table_rows(read_text(bert), "summary"))
    CHECK(row[0] != "time per token");
}

TEST_CASE("report --compare refuses bad input with exit status 2 and writes nothing",
          "[cli][report][compare]") {
  TempDir dir;
  const std::string out = dir / "compare.html";
  SECTION("one graph") {
    const RunResult r =
        run_tilescope({"report", "--compare", "--arch", "samples/arch/nvidia-h100.yaml",
                       "--workload", kWorkload, "--out", out});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("two architecture graphs or more"));
  }
  SECTION("a database beside --compare") {
    const RunResult r = run_tilescope(with({"report", "--compare", "--db", dir / "x.sqlite"},
                                           with(kGraphs, {"--workload", kWorkload, "--out", out})));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--db"));
  }
  SECTION("a workload that is not there") {
    const RunResult r = run_tilescope(with(
        {"report", "--compare"}, with(kGraphs, {"--workload", dir / "none.yaml", "--out", out})));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("none.yaml"));
  }
  SECTION("two graphs without --compare") {
    const RunResult r =
        run_tilescope(with({"report", "--db", dir / "x.sqlite"}, with(kGraphs, {"--out", out})));
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("--compare"));
  }
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("report --compare: an energy section where the graphs price the workload",
          "[cli][report][compare][energy]") {
  // Timeloop's weight- and output-stationary designs on their convolution: every energy and
  // area is given, so the report has the section, its table and the per-node figure; the
  // energies are compare's JSON's.
  TempDir dir;
  const std::string out = dir / "energy.html";
  const std::vector<std::string> graphs = {
      "--arch", "samples/arch/timeloop-simple_weight_stationary.yaml", "--arch",
      "samples/arch/timeloop-simple_output_stationary.yaml"};
  const std::string layer = "samples/workloads/timeloop-simple_weight_stationary.yaml";
  const RunResult r = run_tilescope(
      with({"report", "--compare"}, with(graphs, {"--workload", layer, "--out", out})));
  INFO(r.err);
  REQUIRE(r.status == 0);
  const std::string html = read_text(out);
  CHECK_THAT(html, Catch::Contains("<h2 id=\"energy\">Energy and area</h2>"));
  CHECK_THAT(html, Catch::Contains("comparison-energy"));  // the figure
  const auto rows = compare_table_rows(html, "comparison-energy-table");
  REQUIRE(rows.size() == 3);  // header, A, B
  const RunResult c =
      run_tilescope(with({"compare"}, with(graphs, {"--workload", layer, "--format", "json"})));
  REQUIRE(c.status == 0);
  const json doc = json::parse(c.out);
  for (size_t g = 0; g < 2; ++g) {
    INFO("graph " << g);
    CHECK(rows[g + 1][0] == doc["graphs"][g]["label"].get<std::string>());
    // "241 uJ" and 240,987,444 pJ: three significant figures of the same figure.
    const double pj = doc["graphs"][g]["total"]["energy_pj"].get<double>();
    const std::string cell = rows[g + 1][1];
    REQUIRE(cell.find("J") != std::string::npos);
    double value = std::stod(cell);
    if (cell.find("mJ") != std::string::npos)
      value *= 1e9;
    else if (cell.find("µJ") != std::string::npos || cell.find("uJ") != std::string::npos)
      value *= 1e6;
    CHECK(value == Approx(pj).epsilon(0.006));
    CHECK(rows[g + 1][2] == "0.9735 mm²");
  }

  // A GPU comparison has no energy section.
  const std::string gpu_out = dir / "gpu.html";
  const RunResult gpu = run_tilescope(
      with({"report", "--compare"}, with(kGraphs, {"--workload", "samples/workloads/vit-b16.yaml",
                                                   "--out", gpu_out, "--budget", "2000"})));
  REQUIRE(gpu.status == 0);
  CHECK_THAT(read_text(gpu_out), !Catch::Contains("id=\"energy\""));
}
