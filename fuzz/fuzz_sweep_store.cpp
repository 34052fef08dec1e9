// libFuzzer target: the sweep store's reader, as fuzz/LoaderEntry.cpp feeds it: the input is rows
// of sweep_points (fuzz/GeneratedSqlite.hpp) written into an empty results database, then read as
// report --sweep reads them.
#include "fuzz/FuzzInput.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ts::fuzz::fuzz_one_input("sweep_store", data, size);
}
