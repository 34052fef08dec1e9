#include "RecordedTrace.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <system_error>

#include "measure/RunSettings.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/MsprofImport.hpp"
#include "trace/MsprofSummary.hpp"
#include "trace/NsysImport.hpp"
#include "trace/TraceKernelResolution.hpp"

namespace ts::gui {
namespace {

namespace fs = std::filesystem;

// The words of a command line as the CLI records it (app/cli/CommandLine: a word with a space or
// a quote is written between single quotes).
std::vector<std::string> command_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (const char c : command) {
    if (c == '\'') {
      quoted = !quoted;
      any = true;
    } else if (c == ' ' && !quoted) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  return words;
}

// `--name value` or `--name=value` of the recorded command; empty when it was not given.
std::string recorded_option(const std::vector<std::string>& words, const std::string& name) {
  const std::string flag = "--" + name;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == flag && i + 1 < words.size()) return words[i + 1];
    if (words[i].starts_with(flag + "=")) return words[i].substr(flag.size() + 1);
  }
  return {};
}

bool is_file(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error);
}

// A path the import was given, relative to the folder it ran in: where to look for it now, as
// given (the GUI started where the CLI ran), then from the database's folder (both moved along).
std::vector<std::string> places_of(const std::string& recorded, const std::string& database) {
  std::vector<std::string> places{recorded};
  const fs::path given(recorded);
  if (given.is_relative()) {
    const fs::path beside = fs::path(database).parent_path() / given;
    if (beside.lexically_normal() != given.lexically_normal())
      places.push_back(beside.lexically_normal().string());
  }
  return places;
}

std::string first_file(const std::vector<std::string>& places) {
  for (const std::string& place : places)
    if (is_file(place)) return place;
  return {};
}

}  // namespace

RecordedTrace recorded_trace(const RunInfo& run, const std::string& database) {
  RecordedTrace out;
  constexpr std::array<std::string_view, 3> kFormats{"kineto", "nsys", "msprof"};
  const std::string& collector = run.start.collector;
  if (!collector.starts_with("import:")) return out;
  const std::string format = collector.substr(7);
  if (std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end()) return out;
  const RunSettings settings = read_run_settings(run.start.settings_json);
  if (!settings.results_file || settings.results_file->empty()) return out;

  out.format = format;
  out.recorded = *settings.results_file;
  out.suite = run.start.workload;
  out.tried = places_of(out.recorded, database);
  out.path = first_file(out.tried);
  out.request.file = out.path;
  const std::vector<std::string> words = command_words(settings.command.value_or(""));
  for (const char* name : {"kernel-rules", "profile", "dtype"})
    if (std::string value = recorded_option(words, name); !value.empty())
      out.request.options[name] = std::move(value);
  // Rules files are looked for as the trace is; one found nowhere stays as recorded, and reading
  // says which (kernel_rules_for).
  if (auto rules = out.request.options.find("kernel-rules"); rules != out.request.options.end()) {
    std::string found;
    size_t from = 0;
    while (from <= rules->second.size()) {
      const size_t comma = std::min(rules->second.find(',', from), rules->second.size());
      const std::string file = rules->second.substr(from, comma - from);
      if (!file.empty()) {
        const std::string at = first_file(places_of(file, database));
        found += (found.empty() ? "" : ",") + (at.empty() ? file : at);
      }
      from = comma + 1;
    }
    rules->second = found;
  }
  return out;
}

std::vector<TraceKernelSpan> read_recorded_trace(const RecordedTrace& trace,
                                                 const TraceImportProgress& progress) {
  // What import_trace_file reads for each format, without its store.
  TraceEvents events;
  ImportRequest request = trace.request;
  if (trace.format == "kineto") {
    events = read_kineto_trace(request.file, progress);
  } else if (trace.format == "nsys") {
    events = read_nsys_for_import(request);
  } else if (trace.format == "msprof") {
    events = read_msprof_summary(request.file);
    request = msprof_import_request(std::move(request));
  } else {
    return {};
  }
  if (progress && !progress("match", 0)) throw TraceImportCancelled();
  const ResolvedTrace resolved = resolve_trace(events, kernel_rules_for(request));
  if (progress && !progress("match", 1)) throw TraceImportCancelled();
  return trace_kernel_spans(events, resolved, trace.suite);
}

}  // namespace ts::gui
