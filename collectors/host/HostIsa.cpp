#include "host/HostIsa.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "common/InputError.hpp"

namespace ts::host {
namespace {

constexpr std::array<HostIsa, 3> kLevels{HostIsa::generic, HostIsa::avx2, HostIsa::avx512};

// -1 until the first use reads the environment.
std::atomic<int> g_selected{-1};

}  // namespace

HostIsa parse_host_isa(std::string_view text) {
  if (text.empty()) return best_host_isa();
  std::string known;
  for (HostIsa isa : kLevels) {
    if (host_isa_name(isa) == text) {
      if (!host_isa_supported(isa))
        throw InputError(SourceLocation{"TILESCOPE_HOST_ISA", 0, 0},
                         fmt::format("'{}': this CPU does not run it (it runs up to '{}')", text,
                                     host_isa_name(best_host_isa())));
      return isa;
    }
    known += (known.empty() ? "" : ", ") + std::string(host_isa_name(isa));
  }
  throw InputError(SourceLocation{"TILESCOPE_HOST_ISA", 0, 0},
                   fmt::format("'{}' is not an instruction-set level (known: {})", text, known));
}

std::string_view host_isa_name(HostIsa isa) {
  switch (isa) {
    case HostIsa::generic:
      return "generic";
    case HostIsa::avx2:
      return "avx2";
    case HostIsa::avx512:
      return "avx512f";
  }
  return "generic";
}

std::span<const HostIsa> host_isas() { return kLevels; }

bool host_isa_supported(HostIsa isa) {
#if defined(__x86_64__) && defined(TS_HOST_X86_LEVELS)
  __builtin_cpu_init();
  switch (isa) {
    case HostIsa::generic:
      return true;
    case HostIsa::avx2:
      return __builtin_cpu_supports("x86-64-v3");
    case HostIsa::avx512:
      return __builtin_cpu_supports("x86-64-v4");
  }
  return false;
#else
  return isa == HostIsa::generic;
#endif
}

HostIsa best_host_isa() {
  HostIsa best = HostIsa::generic;
  for (HostIsa isa : kLevels)
    if (host_isa_supported(isa)) best = isa;
  return best;
}

HostIsa host_isa() {
  int selected = g_selected.load(std::memory_order_acquire);
  if (selected < 0) {
    const char* text = std::getenv("TILESCOPE_HOST_ISA");
    selected = static_cast<int>(parse_host_isa(text ? text : ""));
    g_selected.store(selected, std::memory_order_release);
  }
  return static_cast<HostIsa>(selected);
}

void select_host_isa(HostIsa isa) {
  if (!host_isa_supported(isa))
    throw std::invalid_argument(
        fmt::format("this CPU does not run the '{}' kernels", host_isa_name(isa)));
  g_selected.store(static_cast<int>(isa), std::memory_order_release);
}

}  // namespace ts::host
