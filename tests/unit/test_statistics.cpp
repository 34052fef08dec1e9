// Agreement statistics against values worked out by hand in the comments, the grouping, worst
// list and folds of `correlate`, and Kendall's O(n log n) tau-b against the O(n^2) definition.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <set>

#include "InputErrorCapture.hpp"
#include "correlate/Correlation.hpp"
#include "correlate/CorrelationFolds.hpp"
#include "correlate/Statistics.hpp"

using namespace ts;

namespace {

// Kendall's tau-b straight from its definition, over every pair.
double kendall_by_pairs(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, ties_x_only = 0, ties_y_only = 0;
  for (size_t i = 0; i < x.size(); ++i)
    for (size_t j = i + 1; j < x.size(); ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) {
        ++ties_x_only;
      } else if (dy == 0) {
        ++ties_y_only;
      } else if ((dx > 0) == (dy > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  return (concordant - discordant) / std::sqrt((concordant + discordant + ties_x_only) *
                                               (concordant + discordant + ties_y_only));
}

ComparedPoint point(const std::string& name, double flops, double predicted_us, double measured_us,
                    const std::string& op_class = "matmul") {
  return ComparedPoint{.op_name = name,
                       .suite = std::string("s"),
                       .op_class = op_class,
                       .shape = std::string("M=1"),
                       .implementation = std::string("tiled"),
                       .mapping = std::string("tiled"),
                       .mapping_hash = {},
                       .flops = flops,
                       .scope = TimingScope::host_call,
                       .predicted_s = predicted_us * 1e-6,
                       .measured_s = measured_us * 1e-6,
                       .bound_by = std::string("compute:PE")};
}

}  // namespace

TEST_CASE("a perfect prediction agrees on every figure", "[statistics]") {
  const std::vector<double> v{1e-5, 2e-5, 4e-5, 8e-5, 3e-4};
  const AgreementStats s = agreement(v, v);
  CHECK(s.count == 5);
  CHECK(s.pearson.value() == Approx(1.0));
  CHECK(s.spearman.value() == Approx(1.0));
  CHECK(s.kendall.value() == Approx(1.0));
  CHECK(s.mape.value() == Approx(0.0).margin(1e-15));
  CHECK(s.log_rmse.value() == Approx(0.0).margin(1e-15));
}

TEST_CASE("an anti-correlated prediction gives -1 on every correlation", "[statistics]") {
  // Ranks reversed and values on a line with negative slope: r = rho = tau = -1.
  const AgreementStats s = agreement({1, 2, 3, 4, 5}, {5, 4, 3, 2, 1});
  CHECK(s.pearson.value() == Approx(-1.0));
  CHECK(s.spearman.value() == Approx(-1.0));
  CHECK(s.kendall.value() == Approx(-1.0));
  // |1-5|/5 + |2-4|/4 + 0 + |4-2|/2 + |5-1|/1 = 0.8 + 0.5 + 0 + 1 + 4 = 6.3, over 5.
  CHECK(s.mape.value() == Approx(6.3 / 5));
}

TEST_CASE("Pearson r on the latencies as they are", "[statistics]") {
  // x = 1, 2, 3 (mean 2); y = 1, 2, 5 (mean 8/3). Deviations -1, 0, 1 and -5/3, -2/3, 7/3:
  // sxy = 5/3 + 7/3 = 4, sxx = 2, syy = (25 + 4 + 49) / 9 = 78/9. r = 4 / sqrt(2 * 78/9).
  CHECK(pearson_r({1, 2, 3}, {1, 2, 5}).value() == Approx(4.0 / std::sqrt(2.0 * 78.0 / 9.0)));
  // A constant side has no correlation to speak of (r = 0/0): no value, neither 0 nor NaN.
  CHECK_FALSE(pearson_r({1, 1, 1}, {1, 2, 3}));
  CHECK_FALSE(pearson_r({1}, {2}));
}

TEST_CASE("ties share the mean of their ranks", "[statistics]") {
  const std::vector<double> ranks = average_ranks({10, 20, 20, 5, 20});
  // Sorted: 5 (rank 1), 10 (2), then three 20s over ranks 3, 4, 5: each 4.
  CHECK(ranks == std::vector<double>{2, 4, 4, 1, 4});
}

TEST_CASE("Spearman rho with ties in one side", "[statistics]") {
  // x = 1, 2, 2, 3 ranks 1, 2.5, 2.5, 4; y = 1, 3, 2, 4 ranks 1, 3, 2, 4; both mean 2.5.
  // Deviations x: -1.5, 0, 0, 1.5; y: -1.5, 0.5, -0.5, 1.5.
  // sxy = 2.25 + 2.25 = 4.5, sxx = 4.5, syy = 2.25 + 0.25 + 0.25 + 2.25 = 5.
  // rho = 4.5 / sqrt(4.5 * 5) = 0.948683...
  CHECK(spearman_rho({1, 2, 2, 3}, {1, 3, 2, 4}).value() == Approx(4.5 / std::sqrt(22.5)));
}

TEST_CASE("Kendall tau-b corrects for ties", "[statistics]") {
  // x = 1, 2, 2, 3; y = 1, 3, 2, 4. Of the 6 pairs, (2nd, 3rd) is tied in x, the other 5 are
  // concordant. tau-b = (5 - 0) / sqrt((6 - 1) * (6 - 0)) = 5 / sqrt(30) = 0.912870...
  CHECK(kendall_tau_b({1, 2, 2, 3}, {1, 3, 2, 4}).value() == Approx(5.0 / std::sqrt(30.0)));
  // Ties on both sides and a discordant pair: x = 1, 1, 2, 3; y = 2, 1, 1, 3.
  // Pairs: (1,2) x tied; (1,3) x up y down: discordant; (1,4) concordant; (2,3) y tied;
  // (2,4) concordant; (3,4) concordant. nc = 3, nd = 1, n0 = 6, n1 = 1, n2 = 1.
  // tau-b = (3 - 1) / sqrt((6 - 1) * (6 - 1)) = 0.4.
  CHECK(kendall_tau_b({1, 1, 2, 3}, {2, 1, 1, 3}).value() == Approx(0.4));
}

TEST_CASE("Kendall tau-b in O(n log n) matches the definition on data with many ties",
          "[statistics]") {
  // A fixed linear congruential sequence, values in 0..9 so that ties are everywhere.
  uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>((state >> 33) % 10);
  };
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> x, y;
    for (int i = 0; i < 200; ++i) {
      const double a = next();
      x.push_back(a);
      y.push_back(trial % 2 ? a + next() : next());
    }
    CHECK(kendall_tau_b(x, y).value() == Approx(kendall_by_pairs(x, y)).margin(1e-12));
  }
}

TEST_CASE("MAPE is a fraction and log-RMSE the error in log space", "[statistics]") {
  // Errors +10 %, -10 %, +100 %: MAPE (0.1 + 0.1 + 1) / 3 = 0.4.
  // ln 1.1 = 0.0953102, ln 0.9 = -0.1053605, ln 2 = 0.6931472; squares 0.0090840, 0.0111008,
  // 0.4804530; mean 0.1668793; root 0.4085086.
  const AgreementStats s = agreement({110, 90, 200}, {100, 100, 100});
  CHECK(s.mape.value() == Approx(0.4));
  CHECK(s.log_rmse.value() == Approx(0.4085086).epsilon(1e-6));
}

TEST_CASE("pairs with a non-positive or infinite value are not counted", "[statistics]") {
  const double inf = std::numeric_limits<double>::infinity();
  const AgreementStats s = agreement({0, 1, 2, inf, -1}, {1, 1, 2, 3, 4});
  CHECK(s.count == 2);
  CHECK(s.mape.value() == Approx(0.0).margin(1e-15));
  // One pair: its error is a figure, a correlation of it is not (it was 0, which a gate read as
  // "no correlation" and a report printed as a value).
  const AgreementStats one = agreement({1}, {2});
  CHECK(one.count == 1);
  CHECK_FALSE(one.pearson);
  CHECK_FALSE(one.spearman);
  CHECK_FALSE(one.kendall);
  CHECK(one.mape.value() == Approx(0.5));
  // ln(1/2)^2 = 0.480453; its root is |ln 0.5| = 0.693147.
  CHECK(one.log_rmse.value() == Approx(std::log(2.0)));
}

TEST_CASE("size groups: terciles as the validation README defines them", "[correlate]") {
  // 9 values: thresholds at sorted positions 3 and 6, values equal to one go above it.
  const std::vector<double> t = flops_terciles({9, 1, 8, 2, 7, 3, 6, 4, 5});
  CHECK(t == std::vector<double>{4, 7});
  CHECK(size_group_index(3.9, t) == 0);
  CHECK(size_group_index(4, t) == 1);
  CHECK(size_group_index(7, t) == 2);
  CHECK(size_group_names(t) == std::vector<std::string>{"small", "medium", "large"});
  CHECK(size_group_names({1e9}) == std::vector<std::string>{"<1G", ">=1G"});
  CHECK(size_group_names({1e9, 2e9, 4e9}) ==
        std::vector<std::string>{"<1G", "[1G,2G)", "[2G,4G)", ">=4G"});
}

TEST_CASE("the --by option parses the groupings and refuses anything else", "[correlate]") {
  CHECK(parse_grouping("class").by == GroupBy::op_class);
  CHECK(parse_grouping("suite").by == GroupBy::suite);
  CHECK(parse_grouping("mapping").by == GroupBy::mapping);
  CHECK(parse_grouping("size").thresholds.empty());
  const Grouping g = parse_grouping("size=41.6e9,162.8G");
  CHECK(g.by == GroupBy::size);
  CHECK(g.thresholds == std::vector<double>{41.6e9, 162.8e9});
  const InputError bad = test::input_error_of([] { parse_grouping("shape"); });
  CHECK(bad.where().file == "grouping");
  CHECK_THAT(bad.message(), Catch::Contains("'shape'") && Catch::Contains("class, suite"));
  const InputError order = test::input_error_of([] { parse_grouping("size=2e9,1e9"); });
  CHECK_THAT(order.message(), Catch::Contains("increase"));
  const InputError number = test::input_error_of([] { parse_grouping("size=1e9,big"); });
  CHECK_THAT(number.message(), Catch::Contains("'big'"));
}

TEST_CASE("correlate_points: groups, overall and the worst list", "[correlate]") {
  std::vector<ComparedPoint> points{point("a", 1, 10, 10),
                                    point("b", 2, 22, 20),
                                    point("c", 3, 30, 60),  // c: -50 %
                                    point("d", 4, 41, 40),
                                    point("e", 5, 150, 50),  // e: +200 %, the worst
                                    point("f", 6, 61, 60, "reduction")};
  const CorrelationReport r = correlate_points(points, parse_grouping("class"), 3);
  CHECK(r.overall.count == 6);
  REQUIRE(r.groups.size() == 2);
  CHECK(r.groups[0].group == "matmul");
  CHECK(r.groups[0].stats.count == 5);
  CHECK(r.groups[1].group == "reduction");
  CHECK(r.groups[1].stats.count == 1);
  REQUIRE(r.worst.size() == 3);
  // |ln 3| = 1.10 > |ln 0.5| = 0.69 > |ln 1.1| = 0.095 > |ln 1.025|, |ln 1.017|.
  CHECK(r.worst[0].op_name == "e");
  CHECK(r.worst[0].error == Approx(2.0));
  CHECK(r.worst[1].op_name == "c");
  CHECK(r.worst[1].error == Approx(-0.5));
  CHECK(r.worst[2].op_name == "b");
}

TEST_CASE("per-shape ranking: tiled matmul operators with 3 or more mappings", "[correlate]") {
  std::vector<ComparedPoint> points;
  // Operator x: 3 mappings ranked right; operator y: 3 mappings ranked backwards; z: only 2.
  const std::vector<std::string> hashes{"h0", "h1", "h2"};
  for (int i = 0; i < 3; ++i) {
    ComparedPoint p = point("x", 1, 10.0 + i, 20.0 + i);
    p.mapping_hash = hashes[static_cast<size_t>(i)];
    points.push_back(p);
    ComparedPoint q = point("y", 1, 10.0 + i, 20.0 - i);
    q.mapping_hash = hashes[static_cast<size_t>(i)];
    points.push_back(q);
  }
  for (int i = 0; i < 2; ++i) {
    ComparedPoint p = point("z", 1, 10.0 + i, 20.0 + i);
    p.mapping_hash = hashes[static_cast<size_t>(i)];
    points.push_back(p);
  }
  ComparedPoint blas = point("x", 1, 5, 50);  // a black box is not one of the mappings
  blas.implementation = "openblas";
  points.push_back(blas);
  const std::vector<ShapeRanking> r = per_shape_ranking(points);
  REQUIRE(r.size() == 2);
  CHECK(r[0].op == "s/x M=1");
  CHECK(r[0].mappings == 3);
  CHECK(r[0].spearman.value() == Approx(1.0));
  CHECK(r[1].spearman.value() == Approx(-1.0));
  CHECK(mean_spearman(r).value() == Approx(0.0).margin(1e-12));
}

TEST_CASE("folds deal out points ordered by FLOPs, the same on every call", "[correlate]") {
  const std::vector<double> flops{50, 10, 40, 20, 30, 10, 60};
  // Ordered: 10 (index 1), 10 (5), 20 (3), 30 (4), 40 (2), 50 (0), 60 (6) -> folds 0 1 2 0 1 2 0.
  const std::vector<int> folds = assign_folds(flops, 3);
  CHECK(folds == std::vector<int>{2, 0, 1, 2, 0, 1, 0});
  CHECK(assign_folds(flops, 3) == folds);
  std::set<int> used(folds.begin(), folds.end());
  CHECK(used.size() == 3);
}

TEST_CASE("mean_agreement averages field by field and skips empty sets", "[correlate]") {
  AgreementStats a, b, empty;
  a.count = 10;
  a.mape = 0.1;
  a.spearman = 0.9;
  b.count = 20;
  b.mape = 0.3;
  b.spearman = 0.7;
  const AgreementStats m = mean_agreement({a, empty, b});
  CHECK(m.count == 15);
  CHECK(m.mape.value() == Approx(0.2));
  CHECK(m.spearman.value() == Approx(0.8));
}
