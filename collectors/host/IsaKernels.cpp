#include "host/IsaKernels.hpp"

namespace ts::host {
namespace {

// The table of a level this CPU runs (checked by the caller); nullptr when the build lacks it.
const IsaKernels* table_of(HostIsa isa) {
  switch (isa) {
#if defined(TS_HOST_X86_LEVELS)
    case HostIsa::avx512:
      return &avx512::level_kernels();
    case HostIsa::avx2:
      return &avx2::level_kernels();
#else
    case HostIsa::avx512:
    case HostIsa::avx2:
      return nullptr;
#endif
    case HostIsa::generic:
      return &generic::level_kernels();
  }
  return nullptr;
}

}  // namespace

const IsaKernels* isa_kernels(HostIsa isa) {
  return host_isa_supported(isa) ? table_of(isa) : nullptr;
}

// host_isa() only ever holds a level the CPU runs (it checks when it is chosen).
const IsaKernels& isa_kernels() { return *table_of(host_isa()); }

}  // namespace ts::host
