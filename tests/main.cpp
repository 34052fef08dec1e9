// Catch2's implementation and main, compiled once (about 28 s) into tilescope_catch_main for every
// test binary but the GUI tests', whose main makes a QApplication first (tests/gui/main.cpp).
#define CATCH_CONFIG_MAIN
#define CATCH_CONFIG_ENABLE_BENCHMARKING
#include <catch2/catch.hpp>
