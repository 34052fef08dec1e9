#pragma once
// `tilescope validate FILE...`: checks any input file; a mapping against a graph and an operator
// too when --arch and --workload are given.
#include <string>
#include <vector>

namespace ts::cli {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string arch, workload, op;
  bool tree = false;
  std::string format = "text";  // text, or json: every file's verdict on stdout
};

// 0 when every file is valid, else 2 after one error line per invalid file (on stderr, in
// either format).
int run_validate(const ValidateOptions& options);

}  // namespace ts::cli
