// Included last by the sources under isa/, which are compiled once per instruction-set level
// (collectors/host/CMakeLists.txt sets TS_HOST_ISA_LEVEL). The level is a target pragma, not a
// -march flag, so that it applies to these sources' own code only: the inline functions and
// templates of the headers included before it stay at the baseline, and whichever object's copy
// of such a function the linker keeps runs on every CPU. Everything after it lives in the
// namespace TS_HOST_ISA names (avx512, avx2, generic), so the levels' definitions never collide.
// GCC's C++ front end does not define __AVX512F__ and friends under the pragma, so the sources
// test TS_HOST_AVX512 (level 4) and TS_HOST_AVX2 (levels 3 and 4) instead.
// The levels are feature lists (x86-64-v3 and -v4 as the psABI defines them), not `arch=`: GCC
// inlines a baseline function (exp_poly, std::min) into code of a wider feature set only when
// both have the same arch.
#pragma once

#if TS_HOST_ISA_LEVEL == 4
#pragma GCC target("sse3,ssse3,sse4.1,sse4.2,popcnt,cx16,sahf,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe,xsave", \
                   "avx512f,avx512bw,avx512cd,avx512dq,avx512vl")
#define TS_HOST_ISA avx512
#define TS_HOST_ISA_ENUM ::ts::host::HostIsa::avx512
#define TS_HOST_ISA_DISPLAY "AVX-512"
#define TS_HOST_AVX512 1
#define TS_HOST_AVX2 1
#elif TS_HOST_ISA_LEVEL == 3
#pragma GCC target("sse3,ssse3,sse4.1,sse4.2,popcnt,cx16,sahf,avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe,xsave")
#define TS_HOST_ISA avx2
#define TS_HOST_ISA_ENUM ::ts::host::HostIsa::avx2
#define TS_HOST_ISA_DISPLAY "AVX2"
#define TS_HOST_AVX512 0
#define TS_HOST_AVX2 1
#elif TS_HOST_ISA_LEVEL == 1
#define TS_HOST_ISA generic
#define TS_HOST_ISA_ENUM ::ts::host::HostIsa::generic
#define TS_HOST_ISA_DISPLAY "generic"
#define TS_HOST_AVX512 0
#define TS_HOST_AVX2 0
#else
#error "TS_HOST_ISA_LEVEL must be 4 (x86-64-v4), 3 (x86-64-v3) or 1 (baseline)"
#endif
