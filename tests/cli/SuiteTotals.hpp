#pragma once
// Answers no worse than before (issue 37): every bundled suite's total device time on every
// bundled graph at the default budget, as main predicted it before the mapper's comparisons and
// the data types changed (tests/fixtures/cli/suite-totals-before.csv says how it was made).
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "RunTilescope.hpp"

namespace ts::cli_test {

// By graph and suite path, as the tests name them (root-relative).
inline const std::map<std::pair<std::string, std::string>, double>& totals_before() {
  static const std::map<std::pair<std::string, std::string>, double> totals = [] {
    std::map<std::pair<std::string, std::string>, double> out;
    for (const std::string& line : split_lines(read_text(fixture("cli/suite-totals-before.csv")))) {
      if (line.empty() || line[0] == '#' || line.rfind("graph,", 0) == 0) continue;
      const size_t a = line.find(','), b = line.find(',', a + 1);
      out[{line.substr(0, a), line.substr(a + 1, b - a - 1)}] = std::stod(line.substr(b + 1));
    }
    return out;
  }();
  return totals;
}

// A suite's total now (`predict --format json` at the default budget) is at most what it was.
// The host suite on the NVIDIA graphs is left out: its fp32 GEMMs ran on the tensor cores at
// their fp16 rate before and run on the CUDA cores now (docs/formats.md, "Operations by data
// type").
inline void check_total_no_slower(const std::string& arch, const std::string& suite,
                                  const nlohmann::json& doc) {
  if (suite.ends_with("/host-suite.yaml") && arch.find("/nvidia-") != std::string::npos) return;
  // A graph or suite bundled after the snapshot (the Timeloop designs, the convolution suites)
  // has no earlier answer to be held to; one that was there must have every pair it had.
  bool graph_known = false, suite_known = false;
  for (const auto& [pair, total] : totals_before()) {
    graph_known = graph_known || pair.first == arch;
    suite_known = suite_known || pair.second == suite;
  }
  if (!graph_known || !suite_known) return;
  const auto it = totals_before().find({arch, suite});
  INFO("no total recorded before for --arch " << arch << " --workload " << suite);
  REQUIRE(it != totals_before().end());
  double total = 0;
  for (const nlohmann::json& op : doc.at("operators")) total += op.at("latency_us").get<double>();
  INFO("--arch " << arch << " --workload " << suite << ": " << total << " us, before " << it->second
                 << " us");
  CHECK(total <= it->second * (1 + 1e-9));
}

}  // namespace ts::cli_test
