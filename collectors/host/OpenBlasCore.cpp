#include "host/OpenBlasCore.hpp"

#include <cblas.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string_view>

namespace ts::host {
namespace {

// OpenBLAS core names whose kernels use at most SSE (x86-64 targets older than Sandy Bridge).
constexpr std::array<std::string_view, 12> kSseCores = {
    "Prescott", "Core2",      "Penryn",    "Dunnington", "Nehalem", "Atom",
    "Katmai",   "Coppermine", "Northwood", "Banias",     "Opteron", "Barcelona"};

bool is_sse_core(std::string_view name) {
  return std::any_of(kSseCores.begin(), kSseCores.end(), [&](std::string_view s) {
    return name.size() == s.size() &&
           std::equal(name.begin(), name.end(), s.begin(),
                      [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  });
}

}  // namespace

OpenBlasCore openblas_core() {
  OpenBlasCore core;
  if (const char* name = openblas_get_corename()) core.name = name;
  if (const char* config = openblas_get_config()) core.config = config;
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  core.below_cpu = (avx512 || avx2) && is_sse_core(core.name);
  if (core.below_cpu) {
    const char* suggested = avx512 ? "SkylakeX" : "Haswell";
    core.suggested_coretype = suggested;
    core.advice = "OpenBLAS runs its " + core.name + " (SSE) kernels on this " +
                  (avx512 ? "AVX-512" : "AVX2") +
                  " CPU, which its release does not know; set OPENBLAS_CORETYPE=" + suggested +
                  " in the environment before starting tilescope to measure its " + suggested +
                  " kernels";
  }
  return core;
}

}  // namespace ts::host
