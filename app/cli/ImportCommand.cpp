// `tilescope import NAME FILE --db X [options]`: measurements made elsewhere into the results
// database, through the importer registered under NAME (core/trace/Importer.hpp). Each
// importer's own options (ImporterOption) become its subcommand's options, so a new importer
// needs no change here. `import runner` brings the CUPTI runner's results (docs/cupti.md).
#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>

#include "Commands.hpp"
#include "common/InputError.hpp"
#include "profile/ArchitectureReference.hpp"
#include "trace/Importer.hpp"

namespace ts::cli {
namespace {

struct ImportArgs {
  std::string file, db;
  // by importer, then by option: importers may share option names with different defaults
  std::map<std::string, std::map<std::string, std::string>> options;
};

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

CommandAction add_import(CLI::App& app) {
  register_builtin_importers(importers());
  CLI::App* cmd = app.add_subcommand(
      "import", "bring measurements made elsewhere into a results database (see docs/store.md)");
  cmd->require_subcommand(1);
  std::vector<std::pair<CLI::App*, const Importer*>> kinds;
  auto a = std::make_shared<ImportArgs>();
  for (const Importer* importer : importers().all()) {
    CLI::App* sub = cmd->add_subcommand(importer->name(), importer->reads());
    sub->add_option("file", a->file, "the file to import")->required();
    sub->add_option("--db", a->db, "results database (SQLite), created when missing")->required();
    for (const ImporterOption& o : importer->options()) {
      std::string& value = a->options[importer->name()][o.name];
      value = o.default_value;
      CLI::Option* opt = sub->add_option("--" + o.name, value, o.help);
      if (o.required) opt->required();
      if (!o.default_value.empty()) opt->capture_default_str();
    }
    kinds.emplace_back(sub, importer);
  }
  return [kinds, a] {
    for (const auto& [sub, importer] : kinds) {
      if (!sub->parsed()) continue;
      check_kind(*importer, a->file);
      ImportRequest request;
      request.file = a->file;
      request.db_path = a->db;
      for (const auto& [name, value] : a->options[importer->name()])
        if (!value.empty())  // an importer's --arch is a graph like any other: profile: too
          request.options[name] = name == "arch" ? resolve_architecture_option(value) : value;
      request.command_line = command_line();
      request.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
      report_import(
          importer->import(request), a->db,
          [](const std::string& line) { std::cout << line << "\n"; },
          [](const std::string& line) { std::cerr << line << "\n"; });
      return 0;
    }
    return 2;
  };
}

}  // namespace ts::cli
