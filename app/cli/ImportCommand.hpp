#pragma once
// `tilescope import NAME FILE --db X [options]`: measurements made elsewhere into the results
// database, through the importer registered under NAME (core/trace/Importer.hpp); each
// importer's own options (ImporterOption) are its subcommand's options.
#include <map>
#include <string>

#include "trace/Importer.hpp"

namespace ts::cli {

struct ImportOptions {
  std::string file, db;
  // By importer, then by option name, each starting at its default: importers may share option
  // names with different defaults.
  std::map<std::string, std::map<std::string, std::string>> importer_options;
};

int run_import(const Importer& importer, const ImportOptions& options);

}  // namespace ts::cli
