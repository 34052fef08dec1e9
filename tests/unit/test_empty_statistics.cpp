// Figures over no points, and correlations that are undefined, have no value (never 0), and a
// gate on such a figure is not checked, never passed: issue 18, "honest statistics and gates".
// Every expectation is worked out by hand in the comments from the few points written inline.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "InputErrorCapture.hpp"
#include "correlate/AccuracyGate.hpp"
#include "correlate/Correlation.hpp"
#include "correlate/CorrelationFolds.hpp"
#include "correlate/CorrelationJson.hpp"
#include "correlate/FigureText.hpp"
#include "correlate/RunComparison.hpp"
#include "correlate/Statistics.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

ComparedPoint point(const std::string& name, double flops, double predicted_us,
                    double measured_us) {
  ComparedPoint p;
  p.suite = "s";
  p.op_name = name;
  p.op_class = "matmul";
  p.shape = "M=64";
  p.implementation = "tiled";
  p.mapping = "tiled";
  p.flops = flops;
  p.predicted_s = predicted_us * 1e-6;
  p.measured_s = measured_us * 1e-6;
  return p;
}

void check_no_figure(const AgreementStats& s) {
  CHECK(s.count == 0);
  CHECK_FALSE(s.pearson);
  CHECK_FALSE(s.spearman);
  CHECK_FALSE(s.kendall);
  CHECK_FALSE(s.mape);
  CHECK_FALSE(s.log_rmse);
}

}  // namespace

TEST_CASE("agreement over no pairs has no figure, not 0", "[statistics][empty]") {
  check_no_figure(agreement({}, {}));
  // Pairs that are all left out (a zero, a negative, an infinity, a NaN) are no pairs either.
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  check_no_figure(agreement({0, -1, inf, nan}, {1, 1, 1, 1}));
}

TEST_CASE("a constant side leaves the correlations undefined but the errors defined",
          "[statistics][empty]") {
  // p = 2, 2, 2 against m = 1, 2, 4: no ranking to compare, so no correlation.
  // MAPE = (|2-1|/1 + 0/2 + |2-4|/4) / 3 = (1 + 0 + 0.5) / 3 = 0.5.
  // log-RMSE = sqrt(((ln 2)^2 + 0 + (ln 0.5)^2) / 3) = ln 2 * sqrt(2/3).
  const AgreementStats s = agreement({2, 2, 2}, {1, 2, 4});
  CHECK(s.count == 3);
  CHECK_FALSE(s.pearson);
  CHECK_FALSE(s.spearman);
  CHECK_FALSE(s.kendall);
  CHECK(s.mape.value() == Approx(0.5));
  CHECK(s.log_rmse.value() == Approx(std::log(2.0) * std::sqrt(2.0 / 3.0)));
}

TEST_CASE("an empty size group has no figure; the others keep theirs", "[correlate][empty]") {
  // Thresholds 10 and 100 FLOPs; both points are small (1 and 2 FLOPs), so medium and large hold
  // none. Small: p = 10, 20 us against m = 10, 40 us: MAPE = (0 + 0.5) / 2 = 0.25, and with two
  // points ranked alike every correlation is 1.
  const std::vector<ComparedPoint> points{point("a", 1, 10, 10), point("b", 2, 20, 40)};
  const CorrelationReport r = correlate_points(points, parse_grouping("size=10,100"));
  REQUIRE(r.groups.size() == 3);
  CHECK(r.groups[0].group == "small");
  CHECK(r.groups[0].stats.count == 2);
  CHECK(r.groups[0].stats.mape.value() == Approx(0.25));
  CHECK(r.groups[0].stats.spearman.value() == Approx(1.0));
  check_no_figure(r.groups[1].stats);
  check_no_figure(r.groups[2].stats);
  // JSON writes the missing figures as null, the present ones as numbers.
  const nlohmann::json groups = group_stats_json(r.groups);
  CHECK(groups[0]["mape"].get<double>() == Approx(0.25));
  for (const char* figure : {"pearson", "spearman", "kendall", "mape", "log_rmse"}) {
    INFO(figure);
    CHECK(groups[1][figure].is_null());
    CHECK(groups[2][figure].is_null());
  }
  CHECK(groups[1]["count"] == 0);
}

TEST_CASE(
    "per-shape Spearman: a shape with all-equal predictions has none and is left out of "
    "the mean",
    "[correlate][empty]") {
  // Operator x: 3 mappings predicted 10, 11, 12 us, measured 20, 21, 22: rho = 1.
  // Operator y: 3 mappings all predicted 10 us: no ranking, so no rho; the mean is x's alone, 1.
  std::vector<ComparedPoint> points;
  const std::vector<std::string> hashes{"h0", "h1", "h2"};
  for (int i = 0; i < 3; ++i) {
    ComparedPoint x = point("x", 1, 10.0 + i, 20.0 + i);
    x.mapping_hash = hashes[static_cast<size_t>(i)];
    points.push_back(x);
    ComparedPoint y = point("y", 1, 10.0, 20.0 + i);
    y.mapping_hash = hashes[static_cast<size_t>(i)];
    points.push_back(y);
  }
  const std::vector<ShapeRanking> r = per_shape_ranking(points);
  REQUIRE(r.size() == 2);
  CHECK(r[0].spearman.value() == Approx(1.0));
  CHECK_FALSE(r[1].spearman);
  CHECK(mean_spearman(r).value() == Approx(1.0));
  CHECK_FALSE(mean_spearman({}));
  CHECK_FALSE(mean_spearman({r[1]}));
}

TEST_CASE("mean_agreement: a figure is averaged over the sets that have it", "[correlate][empty]") {
  // a: 10 points, MAPE 0.1, Spearman 0.9. b: 1 point, MAPE 0.3 and no correlation.
  // MAPE (0.1 + 0.3) / 2 = 0.2; Spearman 0.9 from a alone (not (0.9 + 0) / 2); count (10+1)/2.
  AgreementStats a, b;
  a.count = 10;
  a.mape = 0.1;
  a.spearman = 0.9;
  b.count = 1;
  b.mape = 0.3;
  const AgreementStats m = mean_agreement({a, b});
  CHECK(m.count == 6);  // llround(5.5)
  CHECK(m.mape.value() == Approx(0.2));
  CHECK(m.spearman.value() == Approx(0.9));
  CHECK_FALSE(m.pearson);
  check_no_figure(mean_agreement({AgreementStats{}, AgreementStats{}}));
}

TEST_CASE("two runs with no operator in common: figures n/a, said in one line",
          "[measure][diff][empty]") {
  const std::vector<ComparedPoint> before{point("a", 1, 10, 10), point("b", 1, 20, 20)};
  const std::vector<ComparedPoint> after{point("c", 1, 10, 12)};
  const RunComparison c = compare_runs(before, after);
  CHECK(c.matched.empty());
  check_no_figure(c.before);
  check_no_figure(c.after);
  CHECK(nothing_in_common_text(c, "old.sqlite run 1", "new.sqlite run 2") ==
        "no operator in common between old.sqlite run 1 (2 operators) and new.sqlite run 2 (1 "
        "operators): the comparison's figures are n/a");
  // With an operator in common there is nothing to say.
  CHECK(nothing_in_common_text(compare_runs(before, before), "x", "y").empty());
}

TEST_CASE("a gate on a figure without a value is not checked, and says why",
          "[measure][gate][empty]") {
  const AccuracyGate mape = parse_accuracy_gate("mape>0.1");
  const AccuracyGate spearman = parse_accuracy_gate("spearman<0.9");

  const GateVerdict none = judge_gate(mape, AgreementStats{}, kNoOperatorInCommon);
  CHECK(none.result == GateResult::not_checked);
  CHECK_FALSE(none.figure);
  CHECK(none.why_not_checked == "mape over no operators: the runs have no operator in common");
  CHECK(judge_gate(mape, AgreementStats{}).why_not_checked == "mape over no points");

  // One point: its MAPE is a figure (|1 - 2| / 2 = 0.5 > 0.1: crossed), its Spearman is not.
  const AgreementStats one = agreement({1}, {2});
  CHECK(judge_gate(mape, one).result == GateResult::crossed);
  const GateVerdict lone = judge_gate(spearman, one);
  CHECK(lone.result == GateResult::not_checked);
  CHECK(lone.why_not_checked == "spearman needs 2 points or more and there is 1");

  // A constant side: three points, Spearman undefined.
  const GateVerdict flat = judge_gate(spearman, agreement({2, 2, 2}, {1, 2, 4}));
  CHECK(flat.result == GateResult::not_checked);
  CHECK(flat.why_not_checked ==
        "spearman is undefined: the predicted or the measured latencies are all equal");

  // Refused in one line naming the first gate not checked, and how many more there are.
  const std::vector<GateVerdict> verdicts = judge_gates({mape, spearman}, AgreementStats{});
  const InputError e = input_error_of([&] { refuse_unchecked_gates(verdicts); });
  CHECK(e.where().file == "accuracy gate");
  CHECK(e.message() == "'mape>0.1' not checked: mape over no points (and 1 more gate not checked)");
  CHECK(e.message().find('\n') == std::string::npos);
  // Gates that were all checked are not refused, crossed or not.
  refuse_unchecked_gates(judge_gates({mape}, one));
}

TEST_CASE("a figure without a value is written n/a, the others as correlate prints them",
          "[correlate][empty]") {
  CHECK(figure_text(std::nullopt, 4) == "n/a");
  CHECK(figure_text(0.5, 4) == "0.5000");
  CHECK(signed_figure_text(0.25, 4) == "+0.2500");
  CHECK(signed_figure_text(std::nullopt, 4) == "n/a");
  CHECK(percent_text(0.1234, 2) == "12.34%");
  CHECK(percent_text(-0.015, 2, true) == "-1.50%");
  CHECK(percent_text(std::nullopt, 2) == "n/a");
  // A change needs both sides.
  CHECK(figure_change(0.1, 0.25).value() == Approx(0.15));
  CHECK_FALSE(figure_change(std::nullopt, 0.25));
  CHECK_FALSE(figure_change(0.1, std::nullopt));
}
