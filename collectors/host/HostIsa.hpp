#pragma once
// The instruction set the host kernels run with, chosen when the program runs, not when it is
// built: the packaged binary must start on any x86-64 CPU, and on a CPU with AVX-512 the kernels
// it measures must be the ones a tuned library would run there. The register-blocked GEMM
// micro-kernels and the calibration microbenchmarks are compiled once per level (isa/, see
// collectors/host/CMakeLists.txt) and picked here; the vector operators' loops are cloned per
// level by GCC (TS_HOST_CLONES) and picked by the loader.
#include <span>
#include <string_view>

namespace ts::host {

enum class HostIsa {
  generic,  // x86-64 as Debian builds it (SSE2), or any other processor
  avx2,     // x86-64-v3: AVX2, FMA (Haswell, Zen)
  avx512,   // x86-64-v4: AVX-512 F, BW, CD, DQ, VL (Skylake-SP, Ice Lake, Zen 4)
};

// "generic", "avx2", "avx512f": the names TILESCOPE_HOST_ISA accepts and vector_isa() prints.
std::string_view host_isa_name(HostIsa isa);
// Every level, narrowest first.
std::span<const HostIsa> host_isas();
// Whether this CPU runs the level's instructions.
bool host_isa_supported(HostIsa isa);
// The widest level this CPU runs.
HostIsa best_host_isa();

// The level the kernels use: TILESCOPE_HOST_ISA when it is set (to measure what a narrower CPU
// would run, or to rule the instruction set out when a measurement looks wrong), otherwise the
// widest this CPU runs. Throws InputError naming the variable when it names no level or one this
// CPU cannot run.
HostIsa host_isa();
// The level TILESCOPE_HOST_ISA=`text` chooses (the widest this CPU runs when empty). Throws
// InputError as host_isa() does.
HostIsa parse_host_isa(std::string_view text);
// Makes the kernels use `isa` from now on (tests run every level the CPU has). Throws
// std::invalid_argument when this CPU cannot run it.
void select_host_isa(HostIsa isa);

}  // namespace ts::host
