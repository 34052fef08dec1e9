// libFuzzer target: the Kineto (PyTorch profiler) trace import, as fuzz/LoaderEntry.cpp feeds it:
// the input is the trace's text, read and imported up to the store.
#include "fuzz/FuzzInput.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ts::fuzz::fuzz_one_input("kineto", data, size);
}
