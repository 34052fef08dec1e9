#pragma once
// A Kineto (PyTorch profiler) trace written by a test, event by event, in the layout
// tests/fixtures/trace/kineto/README.md describes: CPU operators on one host thread (pid 1,
// tid 1), each GPU activity launched by a runtime call that shares its correlation id. Shared by
// the unit and CLI tests that need traces of a shape no fixture has.
#include <nlohmann/json.hpp>
#include <string>

namespace ts::test {

class KinetoTraceWriter {
 public:
  // A CPU operator (`cpu_op`; `user_annotation` for ProfilerStep#N) with its args (Input Dims,
  // Input type).
  void cpu(const std::string& name, double ts, double dur,
           nlohmann::json args = nlohmann::json::object(), const std::string& cat = "cpu_op") {
    events_.push_back({{"ph", "X"},
                       {"cat", cat},
                       {"name", name},
                       {"pid", 1},
                       {"tid", 1},
                       {"ts", ts},
                       {"dur", dur},
                       {"args", std::move(args)}});
  }
  // A GPU activity (`kernel`, `gpu_memcpy`, ...) on `stream`, launched at `launch` by a 1 us
  // runtime call.
  void gpu(const std::string& cat, const std::string& name, double launch, double ts, double dur,
           int stream) {
    const int c = ++correlation_;
    events_.push_back({{"ph", "X"},
                       {"cat", "cuda_runtime"},
                       {"name", "cudaLaunchKernel"},
                       {"pid", 1},
                       {"tid", 1},
                       {"ts", launch},
                       {"dur", 1.0},
                       {"args", {{"correlation", c}}}});
    events_.push_back({{"ph", "X"},
                       {"cat", cat},
                       {"name", name},
                       {"pid", 0},
                       {"tid", stream},
                       {"ts", ts},
                       {"dur", dur},
                       {"args", {{"device", 0}, {"stream", stream}, {"correlation", c}}}});
  }
  // The whole trace; `root` adds its top-level keys (distributedInfo, deviceProperties).
  nlohmann::json trace(nlohmann::json root = nlohmann::json::object()) const {
    root["schemaVersion"] = 1;
    root["traceEvents"] = events_;
    return root;
  }

 private:
  nlohmann::json events_ = nlohmann::json::array();
  int correlation_ = 0;
};

}  // namespace ts::test
