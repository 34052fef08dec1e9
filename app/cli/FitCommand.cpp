// Placeholder until the command lands.
#include <iostream>

#include "Commands.hpp"

namespace ts::cli {

Runner add_fit(CLI::App& app) {
  app.add_subcommand("fit", "not yet implemented");
  return [] {
    std::cerr << "error: `fit` is not implemented yet\n";
    return 1;
  };
}

}  // namespace ts::cli
