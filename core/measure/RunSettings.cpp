#include "measure/RunSettings.hpp"

#include <filesystem>
#include <nlohmann/json.hpp>

namespace ts {
namespace {

template <class T>
void put(nlohmann::json& j, const char* key, const std::optional<T>& value) {
  if (value) j[key] = *value;
}

// Each reader takes the value only when it has the type the writer gives it.
void take(const nlohmann::json& j, const char* key, std::optional<std::string>& out) {
  if (const auto it = j.find(key); it != j.end() && it->is_string()) out = it->get<std::string>();
}
void take(const nlohmann::json& j, const char* key, std::optional<bool>& out) {
  if (const auto it = j.find(key); it != j.end() && it->is_boolean()) out = it->get<bool>();
}
void take(const nlohmann::json& j, const char* key, std::optional<int64_t>& out) {
  if (const auto it = j.find(key); it != j.end() && it->is_number_integer())
    out = it->get<int64_t>();
}
void take(const nlohmann::json& j, const char* key, std::optional<uint64_t>& out) {
  if (const auto it = j.find(key); it != j.end() && it->is_number_unsigned())
    out = it->get<uint64_t>();
}
void take(const nlohmann::json& j, const char* key, std::optional<double>& out) {
  if (const auto it = j.find(key); it != j.end() && it->is_number()) out = it->get<double>();
}

}  // namespace

std::string run_settings_json(const RunSettings& s) {
  nlohmann::json j = nlohmann::json::object();
  put(j, "command", s.command);
  put(j, "workload_file", s.workload_file);
  put(j, "arch_file", s.arch_file);
  put(j, "arch_hash", s.arch_hash);
  put(j, "mapper_budget", s.mapper_budget);
  put(j, "results_file", s.results_file);
  put(j, "implementation", s.implementation);
  if (s.timing_scope) j["timing_scope"] = std::string(to_string(*s.timing_scope));
  put(j, "repetitions", s.repetitions);
  put(j, "max_repetitions", s.max_repetitions);
  put(j, "tolerance", s.tolerance);
  put(j, "warmup", s.warmup);
  put(j, "threads", s.threads);
  put(j, "group_size", s.group_size);
  put(j, "flush_caches", s.flush_caches);
  put(j, "seed", s.seed);
  put(j, "mappings", s.mappings);
  put(j, "mappings_per_gemm", s.mappings_per_gemm);
  return j.dump();
}

RunSettings read_run_settings(const std::string& json) {
  RunSettings s;
  const nlohmann::json j = nlohmann::json::parse(json, nullptr, false);
  if (!j.is_object()) return s;
  take(j, "command", s.command);
  take(j, "workload_file", s.workload_file);
  take(j, "arch_file", s.arch_file);
  take(j, "arch_hash", s.arch_hash);
  take(j, "mapper_budget", s.mapper_budget);
  take(j, "results_file", s.results_file);
  take(j, "implementation", s.implementation);
  std::optional<std::string> scope;
  take(j, "timing_scope", scope);
  if (scope) s.timing_scope = parse_timing_scope(*scope);
  take(j, "repetitions", s.repetitions);
  take(j, "max_repetitions", s.max_repetitions);
  take(j, "tolerance", s.tolerance);
  take(j, "warmup", s.warmup);
  take(j, "threads", s.threads);
  take(j, "group_size", s.group_size);
  take(j, "flush_caches", s.flush_caches);
  take(j, "seed", s.seed);
  take(j, "mappings", s.mappings);
  take(j, "mappings_per_gemm", s.mappings_per_gemm);
  return s;
}

std::string recorded_arch_file(const RunInfo& run) {
  const RunSettings settings = read_run_settings(run.start.settings_json);
  if (!settings.arch_file) return {};
  // A profile is found by name where it is installed, not as a file.
  if (settings.arch_file->rfind("profile:", 0) == 0) return *settings.arch_file;
  if (!std::filesystem::exists(*settings.arch_file)) return {};
  return *settings.arch_file;
}

}  // namespace ts
