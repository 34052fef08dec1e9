// Placeholder until the command lands.
#include <iostream>

#include "Commands.hpp"

namespace ts::cli {

Runner add_db(CLI::App& app) {
  app.add_subcommand("db", "not yet implemented");
  return [] {
    std::cerr << "error: `db` is not implemented yet\n";
    return 1;
  };
}

}  // namespace ts::cli
