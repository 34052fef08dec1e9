// libFuzzer target: the GUI's workspace loader (core/common/WorkspaceFile), as
// fuzz/LoaderEntry.cpp feeds it.
#include "fuzz/FuzzInput.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ts::fuzz::fuzz_one_input("workspace", data, size);
}
