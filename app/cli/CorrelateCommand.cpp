// Placeholder until the command lands.
#include <iostream>

#include "Commands.hpp"

namespace ts::cli {

Runner add_correlate(CLI::App& app) {
  app.add_subcommand("correlate", "not yet implemented");
  return [] {
    std::cerr << "error: `correlate` is not implemented yet\n";
    return 1;
  };
}

}  // namespace ts::cli
