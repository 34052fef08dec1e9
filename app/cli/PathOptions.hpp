#pragma once
// The output guard of a grammar (CommandLineGrammar.cpp, app/report/ReportCommandLine.cpp):
// every option that names a file is tagged where it is declared as read, written or both, and
// once the command line is parsed, before the command runs, the files of the options given are
// handed to core's refuse_outputs_over_inputs (common/OutputPath.hpp). So no command writes over
// one of its inputs, or two of its outputs into one file, and a new option is checked by being
// tagged: `files.output(cmd->add_option("--out", ...))`. Only a grammar includes this (CLI11).
#include <CLI/CLI.hpp>
#include <cctype>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/OutputPath.hpp"

namespace ts::cli {

// The files one value of an option names: the value itself unless the option says otherwise
// (a list, a path after a prefix; FileOptions below has the ones tilescope's options need).
using FilesOfValue = std::function<std::vector<std::string>(const std::string& value)>;

class FileOptions {
 public:
  // A file (or folder) the command reads.
  CLI::Option* input(CLI::Option* option, FilesOfValue files = {}) {
    return tag(option, false, true, std::move(files));
  }
  // A file (or folder) the command writes: never one of its inputs, never another output.
  CLI::Option* output(CLI::Option* option, FilesOfValue files = {}) {
    return tag(option, true, false, std::move(files));
  }
  // A file the command reads and adds to (a results database): neither another input nor
  // another output, and itself is allowed.
  CLI::Option* input_output(CLI::Option* option, FilesOfValue files = {}) {
    return tag(option, true, true, std::move(files));
  }

  // Throws InputError (exit status 2) when an output given is the same file as an input given
  // or as another output given. Only options on the command line count: an option of a
  // subcommand not chosen has none, and a default names no file the user chose.
  void refuse_clashes() const {
    std::vector<NamedPath> outputs, inputs;
    for (const Tagged& t : tagged_) {
      if (t.option->count() == 0) continue;
      const std::string label = label_of(*t.option);
      for (const std::string& value : t.option->reduced_results())
        for (const std::string& file : t.files ? t.files(value) : std::vector<std::string>{value}) {
          if (t.written) outputs.push_back({label, file});
          if (t.read) inputs.push_back({label, file});
        }
    }
    refuse_outputs_over_inputs(outputs, inputs);
  }

  // `--operator-times db:FILE`: FILE (tile and roofline:EFF name none).
  static std::vector<std::string> after_prefix_db(const std::string& value) {
    if (value.starts_with("db:")) return {value.substr(3)};
    return {};
  }
  // `DEVICE=ARCH`: ARCH.
  static std::vector<std::string> after_equals(const std::string& value) {
    const size_t eq = value.find('=');
    return {eq == std::string::npos ? value : value.substr(eq + 1)};
  }
  // `A,B,C`: each.
  static std::vector<std::string> comma_list(const std::string& value) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= value.size()) {
      const size_t comma = value.find(',', start);
      const std::string item =
          value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    return out;
  }
  // A strategy grid's `cluster=A.yaml,B.yaml` (its other keys name no file).
  static std::vector<std::string> grid_clusters(const std::string& value) {
    if (!value.starts_with("cluster=")) return {};
    return comma_list(value.substr(8));
  }
  // A file, or `none`.
  static std::vector<std::string> unless_none(const std::string& value) {
    if (value == "none") return {};
    return {value};
  }

 private:
  struct Tagged {
    CLI::Option* option;
    bool written, read;
    FilesOfValue files;
  };

  CLI::Option* tag(CLI::Option* option, bool written, bool read, FilesOfValue files) {
    tagged_.push_back({option, written, read, std::move(files)});
    return option;
  }

  // `--out`, or a positional argument's name as usage writes it: FILE.
  static std::string label_of(const CLI::Option& option) {
    if (option.nonpositional()) return option.get_name();
    std::string name = option.get_name(true);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  }

  std::vector<Tagged> tagged_;
};

}  // namespace ts::cli
