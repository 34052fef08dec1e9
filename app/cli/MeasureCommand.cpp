// Placeholder until the command lands.
#include <iostream>

#include "Commands.hpp"

namespace ts::cli {

Runner add_measure(CLI::App& app) {
  app.add_subcommand("measure", "not yet implemented");
  return [] {
    std::cerr << "error: `measure` is not implemented yet\n";
    return 1;
  };
}

}  // namespace ts::cli
