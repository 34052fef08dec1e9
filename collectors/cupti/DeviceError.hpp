#pragma once
// A CUDA, cuBLAS or CUPTI call that failed, with the call's text: the runner stops the job and
// reports it rather than measuring garbage.
#include <stdexcept>
#include <string>

namespace ts::cupti {

class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_device_error(const char* call, const std::string& reason, const char* file,
                                     int line);

}  // namespace ts::cupti

#define TS_CUDA(call)                                                                          \
  do {                                                                                         \
    const cudaError_t ts_err_ = (call);                                                        \
    if (ts_err_ != cudaSuccess)                                                                \
      ::ts::cupti::throw_device_error(#call, cudaGetErrorString(ts_err_), __FILE__, __LINE__); \
  } while (0)

#define TS_CUBLAS(call)                                                                          \
  do {                                                                                           \
    const cublasStatus_t ts_st_ = (call);                                                        \
    if (ts_st_ != CUBLAS_STATUS_SUCCESS)                                                         \
      ::ts::cupti::throw_device_error(#call, cublasGetStatusString(ts_st_), __FILE__, __LINE__); \
  } while (0)

#define TS_CUPTI(call)                                                      \
  do {                                                                      \
    const CUptiResult ts_res_ = (call);                                     \
    if (ts_res_ != CUPTI_SUCCESS) {                                         \
      const char* ts_text_ = "unknown CUPTI error";                         \
      cuptiGetResultString(ts_res_, &ts_text_);                             \
      ::ts::cupti::throw_device_error(#call, ts_text_, __FILE__, __LINE__); \
    }                                                                       \
  } while (0)
