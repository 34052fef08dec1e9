#pragma once
// Which kernels OpenBLAS chose on this CPU. A DYNAMIC_ARCH OpenBLAS picks its kernels once, when
// the library loads, from the CPU model; a release older than the CPU (Debian 12's 0.3.21 on
// Sapphire/Emerald Rapids) falls back to its Prescott (SSE3) kernels, several times slower than
// its AVX-512 ones, without a word. Only the environment variable OPENBLAS_CORETYPE, set before
// the process starts, changes the choice.
#include <string>

namespace ts::host {

struct OpenBlasCore {
  std::string name;    // openblas_get_corename(), e.g. "SkylakeX", "Haswell", "Prescott"
  std::string config;  // openblas_get_config()
  // The chosen kernels use less of the vector unit than this CPU has (SSE kernels on an AVX2 or
  // AVX-512 CPU): OpenBLAS measured here is not what OpenBLAS can do on this CPU.
  bool below_cpu = false;
  // What to do about it, empty when nothing: which OPENBLAS_CORETYPE to set.
  std::string advice;
  std::string suggested_coretype;  // SkylakeX or Haswell when below_cpu
};

OpenBlasCore openblas_core();

}  // namespace ts::host
