#include "trace/Importer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "common/InputError.hpp"
#include "common/NameList.hpp"

namespace ts {

void ImporterRegistry::add(std::unique_ptr<Importer> importer) {
  if (find(importer->name()))
    throw std::invalid_argument("an importer named '" + importer->name() + "' is registered");
  importers_.push_back(std::move(importer));
}

const Importer* ImporterRegistry::find(std::string_view name) const {
  for (const auto& i : importers_)
    if (i->name() == name) return i.get();
  return nullptr;
}

const Importer& ImporterRegistry::get(std::string_view name, const std::string& where) const {
  if (const Importer* i = find(name)) return *i;
  throw InputError(
      SourceLocation{where, 0, 0},
      fmt::format("unknown importer '{}' (this build has: {})", name, join_names(names())));
}

std::vector<const Importer*> ImporterRegistry::all() const {
  std::vector<const Importer*> out;
  for (const auto& i : importers_) out.push_back(i.get());
  return out;
}

std::vector<std::string> ImporterRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& i : importers_) out.push_back(i->name());
  return out;
}

std::vector<const Importer*> ImporterRegistry::sniff_file(const std::string& path) const {
  const std::string line = first_line_of(path);
  std::vector<const Importer*> sure, maybe;
  for (const auto& i : importers_) {
    const Sniff s = i->sniff(line);
    if (s == Sniff::yes) sure.push_back(i.get());
    if (s == Sniff::maybe) maybe.push_back(i.get());
  }
  sure.insert(sure.end(), maybe.begin(), maybe.end());
  return sure;
}

ImporterRegistry& importers() {
  static ImporterRegistry registry;
  return registry;
}

std::string first_line_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open the file for reading");
  // Read in pieces, never more than kScanBytes: a line without end (/dev/zero, a binary file)
  // or blank lines without end (a pipe) cost that much and no more.
  constexpr size_t kMaxBytes = 64 * 1024;
  constexpr size_t kScanBytes = 1024 * 1024;
  std::string line;
  bool truncated = false;
  char piece[1 << 14];
  for (size_t scanned = 0; scanned < kScanBytes && in;) {
    in.read(piece, static_cast<std::streamsize>(std::min(sizeof piece, kScanBytes - scanned)));
    const size_t got = static_cast<size_t>(in.gcount());
    scanned += got;
    for (size_t i = 0; i < got; ++i) {
      if (piece[i] != '\n') {
        if (line.size() < kMaxBytes)
          line += piece[i];
        else
          truncated = true;
        continue;
      }
      if (!line.empty() && line.back() == '\r' && !truncated) line.pop_back();
      if (line.find_first_not_of(" \t") != std::string::npos) return line;
      line.clear();
      truncated = false;
    }
  }
  if (!truncated && !line.empty() && line.back() == '\r') line.pop_back();
  return line.find_first_not_of(" \t") != std::string::npos ? line : std::string();
}

void report_import(const ImportResult& imported, const std::string& db_path,
                   const std::function<void(const std::string&)>& print,
                   const std::function<void(const std::string&)>& warn) {
  for (const ImportedRun& r : imported.runs)
    print(fmt::format("run {} {} {}: {} measurements{}", r.id, r.implementation, to_string(r.scope),
                      r.measurements,
                      r.unchecked ? fmt::format(" ({} disagree with their reference: correlate "
                                                "leaves them out)",
                                                r.unchecked)
                                  : std::string()));
  for (const std::string& n : imported.notes) warn("warning: " + n);
  for (const std::string& f : imported.facts) warn(f);
  warn(fmt::format("imported {} runs and {} predictions into {}", imported.runs.size(),
                   imported.predictions, db_path));
}

}  // namespace ts
