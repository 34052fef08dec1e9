#pragma once
// What an importer is: a reader of measurements made elsewhere (a collector's results file, a
// table, later a profiler's trace) into the results database. `tilescope import NAME FILE --db X`
// finds the importer by name here and offers the options it declares; a new importer implements
// `Importer` and adds one line to register_builtin_importers (core/trace/BuiltinImporters.cpp),
// so that nothing in the CLI changes. Every importer reads and checks the whole file before it
// writes, and writes through ResultStore::write_all: a failed import leaves the database as it was.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "measure/MeasurementRecord.hpp"

namespace ts {

// An option of one importer, offered as `--NAME VALUE`.
struct ImporterOption {
  std::string name;
  std::string help;
  bool required = false;
  std::string default_value;  // shown in the help, and given when the option is not
};

struct ImportRequest {
  std::string file;
  std::string db_path;                         // created when missing
  std::map<std::string, std::string> options;  // by ImporterOption::name; absent: not given
  std::string command_line;                    // recorded with the runs
  std::string tool_version;
};

struct ImportedRun {
  int64_t id = 0;
  std::string implementation;
  TimingScope scope = TimingScope::device;
  size_t measurements = 0;
  size_t unchecked = 0;
};

struct ImportResult {
  std::vector<ImportedRun> runs;
  size_t predictions = 0;
  std::vector<std::string> notes;  // what the file reported as failed (jobs left unmeasured)
  // What the import found that is no warning: the share of a trace's kernel time stored.
  std::vector<std::string> facts;
};

// How sure an importer is that it reads a file, judged from the file's first line.
enum class Sniff { no, maybe, yes };

class Importer {
 public:
  virtual ~Importer() = default;
  virtual std::string name() const = 0;   // `tilescope import NAME`
  virtual std::string reads() const = 0;  // one line: what files it reads
  virtual std::vector<ImporterOption> options() const { return {}; }
  virtual Sniff sniff(std::string_view first_line) const = 0;
  // Throws InputError at file:line for bad input, before the database is opened or while in
  // its one transaction; either way nothing is stored.
  virtual ImportResult import(const ImportRequest& request) const = 0;
};

// The importers of this process, in the order they were added.
class ImporterRegistry {
 public:
  void add(std::unique_ptr<Importer> importer);  // std::invalid_argument when the name is taken
  const Importer* find(std::string_view name) const;
  // Throws InputError at `where` naming the registered importers when none has the name.
  const Importer& get(std::string_view name, const std::string& where) const;
  std::vector<const Importer*> all() const;
  std::vector<std::string> names() const;
  // The importers that may read the file, surest first (yes before maybe); none: no importer
  // knows it. Throws InputError when the file cannot be read.
  std::vector<const Importer*> sniff_file(const std::string& path) const;

 private:
  std::vector<std::unique_ptr<Importer>> importers_;
};

ImporterRegistry& importers();
// Adds the importers of this build (runner results, CSV tables) once; later calls do nothing.
void register_builtin_importers(ImporterRegistry& registry);

// The first non-blank line of a file (at most 64 KiB of it) among its first MiB; empty when
// there is none (a file, a pipe or a device such as /dev/zero whose first MiB is blank or one
// endless line gives its first 64 KiB). Throws InputError when the file cannot be read.
std::string first_line_of(const std::string& path);

// The summary of an import as the CLI prints it: a line per run to `print`, the file's notes and
// a total to `warn`.
void report_import(const ImportResult& result, const std::string& db_path,
                   const std::function<void(const std::string&)>& print,
                   const std::function<void(const std::string&)>& warn);

}  // namespace ts
