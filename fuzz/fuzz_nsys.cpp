// libFuzzer target: the Nsight Systems export import, as fuzz/LoaderEntry.cpp feeds it: the input
// is tables and rows (fuzz/GeneratedSqlite.hpp) written into an SQLite file with SQLite, then read
// and imported up to the store.
#include "fuzz/FuzzInput.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return ts::fuzz::fuzz_one_input("nsys", data, size);
}
