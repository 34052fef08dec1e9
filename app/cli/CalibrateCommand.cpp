// Placeholder until the command lands.
#include <iostream>

#include "Commands.hpp"

namespace ts::cli {

Runner add_calibrate(CLI::App& app) {
  app.add_subcommand("calibrate", "not yet implemented");
  return [] {
    std::cerr << "error: `calibrate` is not implemented yet\n";
    return 1;
  };
}

}  // namespace ts::cli
