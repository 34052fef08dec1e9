#pragma once
// Helpers shared by the loader tests: run a load that must fail and hand back its InputError.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "common/InputError.hpp"

namespace ts::test {

template <class F>
InputError input_error_of(F&& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError, none was thrown");
  throw std::logic_error("unreachable");
}

inline std::string fixture(const std::string& relative) {
  return std::string(TILESCOPE_FIXTURES) + "/" + relative;
}

}  // namespace ts::test
