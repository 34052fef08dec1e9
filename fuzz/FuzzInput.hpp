#pragma once
// The body of every libFuzzer target: one input through one loader (fuzz/LoaderEntry.hpp).
#include <cstddef>
#include <cstdint>

namespace ts::fuzz {

// Feeds the input to the loader of `target`. Accepted or refused inputs return 0; any other
// exception is printed and aborts, which libFuzzer reports as a crash and saves the input.
int fuzz_one_input(const char* target, const uint8_t* data, size_t size);

}  // namespace ts::fuzz
