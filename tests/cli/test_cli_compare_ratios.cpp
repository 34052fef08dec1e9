// Speed-ups below 1 read as ratios: the H200 against the Ascend 910B3 on BERT-large (the Ascend
// is the slower chip, so every speed-up of B over A is below 1) prints "0.305x", never an SI
// prefix such as "305 mx", in `compare`'s table and in the report's. Each printed ratio is the
// JSON's, rounded to three significant figures.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

const std::vector<std::string> kGraphs = {"--arch", "samples/arch/nvidia-h200.yaml", "--arch",
                                          "samples/arch/ascend910b3.yaml"};
const std::vector<std::string> kRest = {"--workload", "samples/workloads/bert-large.yaml",
                                        "--budget", "2000"};

std::vector<std::string> command(std::vector<std::string> head,
                                 const std::vector<std::string>& tail = {}) {
  for (const auto* part : {&kGraphs, &kRest, &tail})
    head.insert(head.end(), part->begin(), part->end());
  return head;
}

// A number followed by a decimal prefix and an x ("273 mx", "1.2kx"): what must never show.
const std::regex kPrefixedRatio(R"([0-9](\s?)[fpnumkMGTPE]x\b)");
const std::regex kRatio(R"(^([0-9]+(\.[0-9]+)?)x$)");

// Three significant figures of `value`, as a ratio prints them, compared as numbers.
bool same_to_three_figures(double printed, double value) {
  return std::abs(printed - value) <=
         0.5 * std::pow(10.0, std::floor(std::log10(value)) - 2) * 1.0001;
}

}  // namespace

TEST_CASE(
    "compare of a slower chip prints speed-ups below 1 as 0.xxx x, in the table and "
    "the report",
    "[cli][compare][report]") {
  const RunResult js = run_tilescope(command({"compare"}, {"--format", "json"}));
  INFO(js.err);
  REQUIRE(js.status == 0);
  const auto doc = nlohmann::json::parse(js.out);
  // The speed-up of B over A per operator, in the order of the operators.
  std::vector<std::pair<std::string, double>> speedups;
  for (const auto& op : doc.at("operators"))
    for (const auto& on : op.at("on"))
      if (on.at("graph") == "B") speedups.emplace_back(op.at("name"), on.at("speedup"));
  REQUIRE(speedups.size() == 13);

  const RunResult table = run_tilescope(command({"compare"}));
  INFO(table.out);
  REQUIRE(table.status == 0);
  CHECK_FALSE(std::regex_search(table.out, kPrefixedRatio));
  size_t checked = 0, below_one = 0;
  for (const auto& [name, speedup] : speedups) {
    for (const std::string& line : split_lines(table.out)) {
      if (line.rfind(name + " ", 0) != 0) continue;
      // operator, shape (with spaces), A time, B time, B speed-up, ...: the cell ending in x.
      std::smatch m;
      REQUIRE(std::regex_search(line, m, std::regex(R"(\s([0-9]+(\.[0-9]+)?)x\s)")));
      INFO(line);
      CHECK(same_to_three_figures(std::stod(m[1].str()), speedup));
      ++checked;
      if (speedup < 1) {
        ++below_one;
        CHECK(m[1].str().rfind("0.", 0) == 0);
      }
    }
  }
  CHECK(checked == speedups.size());
  CHECK(below_one == speedups.size());  // the 910B3 is slower on every operator

  // The report's comparison table: the same ratios, no prefix in any cell.
  TempDir dir;
  const std::string out = dir / "compare.html";
  const RunResult report = run_tilescope(command({"report", "--compare"}, {"--out", out}));
  INFO(report.err);
  REQUIRE(report.status == 0);
  const std::string html = read_text(out);
  // (In the cells' text: the page's CSS has "10px".)
  CHECK_FALSE(std::regex_search(html, std::regex(R"(>\s*[0-9.]+\s?[fpnumkMGTPE]x\s*<)")));
  std::vector<double> cells;  // every ratio in a cell of its own
  const std::regex cell(R"(>([0-9]+(\.[0-9]+)?)x<)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator();
       ++it)
    cells.push_back(std::stod((*it)[1].str()));
  for (const auto& [name, speedup] : speedups) {
    INFO(name << " " << speedup);
    CHECK(std::any_of(cells.begin(), cells.end(),
                      [&](double c) { return same_to_three_figures(c, speedup); }));
  }
}
