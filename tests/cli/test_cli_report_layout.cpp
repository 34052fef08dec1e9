// `tilescope report` as a reader meets it: a simulation's or a sweep's report needs no results
// database; on paper a figure is whole on one page with its caption, and no table row is printed
// twice across a page break; microseconds are written "us" throughout, as the CLI and the
// quantity formatter write them.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;
using namespace ts::cli_test;

namespace {

bool have_poppler_for_layout() {
  return std::system(
             "command -v pdftotext >/dev/null 2>&1 && command -v pdfimages >/dev/null "
             "2>&1") == 0;
}

// The PDF's text, one string per page (pdftotext ends each page with a form feed); its
// non-breaking hyphens (the tree tables') read back as "-".
std::vector<std::string> layout_pdf_pages(const TempDir& dir, const std::string& pdf) {
  const std::string text = dir / "pages.txt";
  REQUIRE(std::system(("pdftotext -layout '" + pdf + "' '" + text + "'").c_str()) == 0);
  std::string all = read_text(text);
  const std::string non_breaking_hyphen = "\u2011";
  for (size_t at = all.find(non_breaking_hyphen); at != std::string::npos;
       at = all.find(non_breaking_hyphen, at))
    all.replace(at, non_breaking_hyphen.size(), "-");
  std::vector<std::string> pages;
  for (size_t from = 0, end; (end = all.find('\f', from)) != std::string::npos; from = end + 1)
    pages.push_back(all.substr(from, end - from));
  return pages;
}

// The images of the PDF (pdfimages -list): the page each is on and its width in pixels.
std::vector<std::pair<int, int>> layout_pdf_images(const TempDir& dir, const std::string& pdf) {
  const std::string list = dir / "images.txt";
  REQUIRE(std::system(("pdfimages -list '" + pdf + "' > '" + list + "'").c_str()) == 0);
  std::vector<std::pair<int, int>> images;
  for (const std::string& line : split_lines(read_text(list))) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.size() >= 4 && f[2] == "image") images.emplace_back(std::stoi(f[0]), std::stoi(f[3]));
  }
  return images;
}

size_t occurrences_in_report(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::string simulate_gpt3_for_report(const TempDir& dir) {
  const std::string sim = dir / "sim.json";
  const RunResult r =
      run_tilescope({"simulate", "--model", "samples/dist/models/gpt3-175b.yaml", "--strategy",
                     "samples/dist/strategies/gpt3-175b-full.yaml", "--cluster",
                     "samples/dist/clusters/selene.yaml", "--out", sim});
  INFO(r.err);
  REQUIRE(r.status == 0);
  return sim;
}

}  // namespace

TEST_CASE("report --simulation and --sweep need no results database", "[cli][report][slow]") {
  TempDir dir;
  const std::string sim = simulate_gpt3_for_report(dir);
  const RunResult html = run_tilescope({"report", "--simulation", sim, "--out", dir / "sim.html"});
  INFO(html.err);
  REQUIRE(html.status == 0);
  const std::string page = read_text(dir / "sim.html");
  CHECK_THAT(page, Catch::Contains("id=\"simulation\""));
  CHECK_THAT(page, Catch::Contains("id=\"figure-timeline\""));
  CHECK_THAT(page, !Catch::Contains("What was measured"));  // no run, no run's sections

  const std::string workload = dir / "ffn.yaml", points = dir / "points.sqlite";
  std::ofstream(workload) << "version: 1\nkind: workload\nname: ffn\noperators:\n"
                             "  - {name: ffn_down, type: gemm, M: 512, N: 512, K: 512}\n";
  const RunResult sweep =
      run_tilescope({"sweep", "--arch", "samples/arch/nvidia-h100.yaml", "--workload", workload,
                     "--budget", "20", "--db", points, "--vary", "node:L2.capacity=25MiB,50MiB"});
  INFO(sweep.err);
  REQUIRE(sweep.status == 0);
  const RunResult both =
      run_tilescope({"report", "--sweep", points, "--simulation", sim, "--out", dir / "both.html"});
  INFO(both.err);
  REQUIRE(both.status == 0);
  const std::string both_page = read_text(dir / "both.html");
  CHECK_THAT(both_page, Catch::Contains("id=\"sweep\""));
  CHECK_THAT(both_page, Catch::Contains("id=\"simulation\""));

  // What reads a run still needs its database, said in one line.
  const RunResult gate = run_tilescope(
      {"report", "--simulation", sim, "--fail-if", "mape>0.1", "--out", dir / "gate.html"});
  CHECK(gate.status == 2);
  CHECK(gate.err == "--fail-if: reads a run: give its results database with --db\n");
  const RunResult nothing = run_tilescope({"report", "--out", dir / "nothing.html"});
  CHECK(nothing.status == 2);
  CHECK_THAT(nothing.err, Catch::Contains("--simulation, --sweep"));
}

TEST_CASE("report PDF keeps each figure on one page and prints no table row twice",
          "[cli][report][slow]") {
  TempDir dir;
  const std::string sim = simulate_gpt3_for_report(dir);
  const std::string db = dir / "gemm.sqlite";
  REQUIRE(run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db", db, "--op",
                         "gemm", "--scope", "device"})
              .status == 0);
  const std::string html_out = dir / "run.html", pdf_out = dir / "run.pdf";
  for (const std::string& out : {html_out, pdf_out}) {
    const RunResult r =
        run_tilescope({"report", "--db", db, "--arch", "samples/arch/nvidia-h100.yaml",
                       "--simulation", sim, "--out", out});
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
  // One spelling of microseconds, the formatter's: the tables' "predicted us", the trees' "ns".
  const std::string html = read_text(html_out);
  CHECK_THAT(html, Catch::Contains("predicted us"));
  CHECK(html.find("\u00b5") == std::string::npos);
  CHECK(html.find("\u03bc") == std::string::npos);

  if (!have_poppler_for_layout()) {
    WARN("pdftotext or pdfimages is missing (poppler-utils): the PDF is not looked at");
    return;
  }
  const std::vector<std::string> pages = layout_pdf_pages(dir, pdf_out);
  const std::vector<std::pair<int, int>> images = layout_pdf_images(dir, pdf_out);
  // Every figure is painted once, on one page (a figure split across a break is listed on each
  // page it touches), and its caption is on that page: the timeline is drawn 1686 px wide.
  CHECK(images.size() == 4);  // correlation, matmul, the graph, the timeline
  size_t timelines = 0;
  for (const auto& [page, width] : images) {
    REQUIRE(page >= 1);
    REQUIRE(static_cast<size_t>(page) <= pages.size());
    if (width != 1686) continue;
    ++timelines;
    CHECK_THAT(pages[static_cast<size_t>(page - 1)], Catch::Contains("The simulated iteration"));
  }
  CHECK(timelines == 1);
  for (const char* caption :
       {"Predicted against measured, every compared", "The architecture graph nvidia-h100"}) {
    INFO(caption);
    bool beside_an_image = false;
    for (const auto& [page, width] : images)
      beside_an_image |= pages[static_cast<size_t>(page - 1)].find(caption) != std::string::npos;
    CHECK(beside_an_image);
  }

  // The mapping trees' rows: each tree node's row is in the PDF as often as in the HTML, not
  // once more where a row met a page break.
  std::string pdf_text;
  for (const std::string& p : pages) pdf_text += p;
  for (const char* word : {"tile RF", "tile SMEM", "op TensorCore", "(double-buffered)"}) {
    INFO(word);
    const size_t in_html = occurrences_in_report(html, word);
    CHECK(in_html > 0);
    CHECK(occurrences_in_report(pdf_text, word) == in_html);
  }
  // No page starts with the last line of the page before.
  for (size_t p = 1; p < pages.size(); ++p) {
    std::vector<std::string> before, after;
    for (const std::string& line : split_lines(pages[p - 1]))
      if (line.find_first_not_of(' ') != std::string::npos) before.push_back(line);
    for (const std::string& line : split_lines(pages[p]))
      if (line.find_first_not_of(' ') != std::string::npos) after.push_back(line);
    if (before.empty() || after.empty()) continue;
    INFO("page " << p + 1);
    CHECK(before.back() != after.front());
  }
}

TEST_CASE("no program writes microseconds other than as us", "[cli][report]") {
  // Every face prints through format_quantity ("12.3 us") or names the unit in a header or an
  // axis: a "µs" or "μs" in the sources of the programs would be a second spelling on screen.
  size_t files = 0;
  for (const char* folder : {"app", "views", "core", "collectors"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root_path(folder))) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".cu")) continue;
      ++files;
      const std::string text = read_text(entry.path().string());
      INFO(entry.path().string());
      CHECK(text.find("\u00b5s") == std::string::npos);
      CHECK(text.find("\u03bcs") == std::string::npos);
      CHECK(text.find("\u00b5J") == std::string::npos);
    }
  CHECK(files > 100);
}
