#pragma once
// A file of the bundled samples (samples/), for the tests that load one.
#include <string>

namespace ts::test {

// `path` relative to samples/, with or without a leading '/': "arch/x.yaml" or "/arch/x.yaml".
inline std::string sample(const std::string& path) {
  return std::string(TILESCOPE_SAMPLES) + (path.rfind('/', 0) == 0 ? "" : "/") + path;
}

}  // namespace ts::test
