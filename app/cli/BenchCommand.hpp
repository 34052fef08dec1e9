#pragma once
// `tilescope bench model|simulate|import|sweep|threads`: benchmarks that print their figures.
#include <algorithm>
#include <string>
#include <vector>

namespace ts::cli {

struct BenchOptions {
  std::string what = "model";  // model, simulate, import, sweep or threads
  std::string root;            // empty: the data folder (common/DataDirectory)
  double seconds = 1.0;
  int repetitions = 3;
  std::vector<std::string> parts{"rate", "suite", "gap"};
  double import_gb = 1.0;  // `bench import`: GB (1e9 bytes) of Kineto JSON to generate
  bool wants(const std::string& part) const {
    return std::find(parts.begin(), parts.end(), part) != parts.end();
  }
};

int run_bench(BenchOptions options);

}  // namespace ts::cli
