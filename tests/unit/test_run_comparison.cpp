// Run comparison and accuracy gates: the core of `--diff` and `--fail-if`.
#include <catch2/catch.hpp>
#include <cmath>

#include "InputErrorCapture.hpp"
#include "correlate/AccuracyGate.hpp"
#include "correlate/RunComparison.hpp"

using namespace ts;
using ts::test::input_error_of;

namespace {

ComparedPoint point(const std::string& name, double predicted_us, double measured_us) {
  ComparedPoint p;
  p.suite = "s";
  p.op_name = name;
  p.shape = "M=64";
  p.mapping = "tiled";
  p.predicted_s = predicted_us * 1e-6;
  p.measured_s = measured_us * 1e-6;
  return p;
}

}  // namespace

TEST_CASE("a run comparison puts the operator that got worse first, with its delta",
          "[measure][diff]") {
  // Three operators predicted the same in both runs; the second run measured "b" 1.5 times
  // slower, so its error went from 0 to ln(100/150); "c" is only in the first run, "d" only in
  // the second.
  const std::vector<ComparedPoint> before{point("a", 100, 110), point("b", 100, 100),
                                          point("c", 50, 50), point("e", 10, 20)};
  const std::vector<ComparedPoint> after{point("a", 100, 110), point("b", 100, 150),
                                         point("d", 50, 50), point("e", 10, 20)};
  const RunComparison c = compare_runs(before, after);
  REQUIRE(c.matched.size() == 3);
  CHECK(c.matched[0].op == "s/b M=64 [tiled, host_call]");
  CHECK(c.matched[0].measured_change == Approx(0.5));
  CHECK(c.matched[0].predicted_change == Approx(0));
  CHECK(c.matched[0].log_error_before == Approx(0).margin(1e-12));
  CHECK(c.matched[0].log_error_after == Approx(std::log(100.0 / 150)));
  CHECK(c.matched[0].worse_by == Approx(std::log(1.5)));
  CHECK(c.matched[1].worse_by == Approx(0).margin(1e-12));
  CHECK(c.only_before == std::vector<std::string>{"s/c M=64 [tiled, host_call]"});
  CHECK(c.only_after == std::vector<std::string>{"s/d M=64 [tiled, host_call]"});
  // Statistics over the matched points: MAPE (10/110 + 0 + 10/20) / 3 before and
  // (10/110 + 50/150 + 10/20) / 3 after.
  CHECK(c.before.count == 3);
  CHECK(c.before.mape == Approx((10.0 / 110 + 0.5) / 3));
  CHECK(c.after.mape == Approx((10.0 / 110 + 50.0 / 150 + 0.5) / 3));
}

TEST_CASE("accuracy gates read METRIC OP NUMBER and say when they are crossed", "[measure][gate]") {
  AgreementStats s;
  s.count = 5;
  s.mape = 0.12;
  s.spearman = 0.96;
  auto result = [&](const char* text) { return judge_gate(parse_accuracy_gate(text), s).result; };
  const AccuracyGate mape = parse_accuracy_gate("mape>0.10");
  CHECK(mape.metric == "mape");
  CHECK(result("mape>0.10") == GateResult::crossed);
  CHECK(result("mape > 15%") == GateResult::passed);
  CHECK(parse_accuracy_gate("mape>=12%").threshold == Approx(0.12));
  CHECK(result("spearman<0.95") == GateResult::passed);
  CHECK(result("Spearman <= 0.96") == GateResult::crossed);
  const std::vector<GateVerdict> verdicts =
      judge_gates({mape, parse_accuracy_gate("spearman<0.95")}, s);
  REQUIRE(verdicts.size() == 2);
  CHECK(crossed_gate_text(verdicts[0]) == "mape 0.1200 > 0.1");
  // NaN and infinities are numbers to from_chars, never thresholds: "mape>nan" could never fire.
  for (const char* bad :
       {"mape", "mape>", "mape>abc", "accuracy>0.1", ">0.1", "spearman<95%", "mape>0.1x",
        "mape>nan", "mape>NaN", "mape>inf", "spearman<-inf", "mape>nan%"}) {
    INFO(bad);
    const InputError e = input_error_of([&] { parse_accuracy_gate(bad); });
    CHECK(e.where().file == "accuracy gate");
    CHECK(e.message().find(std::string("'") + bad + "'") != std::string::npos);
  }
}
