#include "fuzz/FuzzInput.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "fuzz/LoaderEntry.hpp"

namespace ts::fuzz {

int fuzz_one_input(const char* target, const uint8_t* data, size_t size) {
  static const LoaderEntry& entry = loader_entry(target);
  try {
    feed_loader(entry, std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz %s: the loader threw neither success nor its input error: %s\n",
                 target, e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz %s: the loader threw a non-standard exception\n", target);
    std::abort();
  }
  return 0;
}

}  // namespace ts::fuzz
