// `tilescope import NAME FILE --db X [options]`: measurements made elsewhere into the results
// database, through the importer registered under NAME (core/trace/Importer.hpp). Each
// importer's own options (ImporterOption) become its subcommand's options (CommandLineGrammar),
// so a new importer needs no change in the CLI. `import runner` brings the CUPTI runner's results
// (docs/cupti.md).
#include "ImportCommand.hpp"

#include <fmt/format.h>

#include <iostream>

#include "CommandLine.hpp"
#include "common/InputError.hpp"
#include "profile/ArchitectureReference.hpp"
#include "trace/Importer.hpp"

namespace ts::cli {
namespace {

// A file the chosen importer does not read, that another one does, is named as such rather than
// failing on its first record.
void check_kind(const Importer& chosen, const std::string& file) {
  const std::vector<const Importer*> readers = importers().sniff_file(file);
  if (readers.empty() || chosen.sniff(first_line_of(file)) != Sniff::no) return;
  throw InputError(
      SourceLocation{file, 1, 1},
      fmt::format("not {} input ({}); it reads as {} input: tilescope import {} {}", chosen.name(),
                  chosen.reads(), readers.front()->name(), readers.front()->name(), file));
}

}  // namespace

int run_import(const Importer& importer, const ImportOptions& a) {
  check_kind(importer, a.file);
  ImportRequest request;
  request.file = a.file;
  request.db_path = a.db;
  const auto options = a.importer_options.find(importer.name());
  if (options != a.importer_options.end())
    for (const auto& [name, value] : options->second)
      if (!value.empty())  // an importer's --arch is a graph like any other: profile: too
        request.options[name] = name == "arch" ? resolve_architecture_option(value) : value;
  request.command_line = command_line();
  request.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  report_import(
      importer.import(request), a.db, [](const std::string& line) { std::cout << line << "\n"; },
      [](const std::string& line) { std::cerr << line << "\n"; });
  return 0;
}

}  // namespace ts::cli
