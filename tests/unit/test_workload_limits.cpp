// A workload past kWorkloadOperatorLimit is refused at its first operator past the limit, before
// any of the work a million operators would cost downstream.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::input_error_of;

TEST_CASE("a workload of more operators than the limit is refused at the first past it",
          "[workload][slow]") {
  // Lines 1-4 are the header and `operators:`; operator i (from 0) is on line 5 + i.
  std::string text = "version: 1\nkind: workload\nname: huge\noperators:\n";
  for (size_t i = 0; i <= kWorkloadOperatorLimit; ++i)
    text += "  - {name: op" + std::to_string(i) + ", type: add, rows: 1, cols: 1}\n";
  const InputError e = input_error_of([&] { parse_workload(text, "huge.yaml"); });
  CHECK(e.where().line == 5 + static_cast<int>(kWorkloadOperatorLimit));
  CHECK(e.where().column == 5);  // the `{` of the flow map
  CHECK(e.message().find("more than 200000 operators") != std::string::npos);

  // Exactly the limit is read.
  text.erase(text.rfind("  - {name: op"));
  CHECK(parse_workload(text, "limit.yaml").operators.size() == kWorkloadOperatorLimit);
}
