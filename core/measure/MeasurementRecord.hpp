#pragma once
// Plain values that collectors and importers produce and the store keeps. An operator is
// identified by (suite, name, dimensions, data types), a mapping by the hash of its canonical
// text, a prediction by those two and the hash of the architecture graph that made it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ts {

struct Operator;
struct Mapping;

// What a latency covers (design.md, "What latency means"): `device` is the operator's execution
// alone; `host_call` is a wall clock around the call and is compared with device + launch.
enum class TimingScope { device, host_call };
std::string_view to_string(TimingScope scope);
std::optional<TimingScope> parse_timing_scope(std::string_view text);

struct OperatorKey {
  std::string suite;     // workload name, e.g. "host-suite"
  std::string name;      // operator name in the suite
  std::string type;      // builder: gemm, batched_gemm, softmax, fused, ...
  std::string dims;      // Operator::shape_text(), e.g. "M=512 N=768 K=768"
  std::string dtypes;    // tensor data types in tensor order, comma separated: "fp32,fp32,fp32"
  std::string op_class;  // primary class: matmul, elementwise, reduction
  double flops = 0;
  // A one-line YAML flow mapping that rebuilds the operator with the workload loader's
  // builders (see workload/OperatorSpec.hpp); not part of the identity.
  std::string spec;
};

struct MappingRecord {
  std::string hash;  // 16 hex digits of FNV-1a over canonical_text()
  std::string name;
  std::string yaml;  // a loadable `kind: mapping` file (analysis/MappingWriter)
};

// Why a collector does not trust a point, as a kind that code can count on (the reason text of
// Measurement::unstable says it to a person).
enum class Instability {
  none,             // trusted, or not judged
  machine_busy,     // other processes used cores while it ran
  median_unpinned,  // its median is not known within the run's tolerance
  unknown,          // marked unstable where the kind was not kept (read back from a store)
};

struct Measurement {
  OperatorKey op;
  std::optional<MappingRecord> mapping;  // none for a black-box kernel (a vendor library)
  std::string implementation;            // tiled, openblas, vector, fused, ...
  TimingScope scope = TimingScope::host_call;
  int repetitions = 0;
  double min_ns = 0;
  double median_ns = 0;
  double spread = 0;     // (max - min) / median over the repetitions
  double max_error = 0;  // largest relative difference from the reference implementation
  bool checked = false;  // the result was compared with the reference and agreed
  // Half the 95 % interval of the median over the median (measure/MedianConfidence); none when
  // not known (too few repetitions, an import that gives no timings).
  std::optional<double> median_ci;
  // Why the collector does not trust this point (its median not pinned down within the run's
  // tolerance, other processes busy during its repetitions); empty when it does or cannot judge.
  std::string unstable;
  Instability instability = Instability::none;  // the kind of `unstable`
};

struct PredictionRecord {
  OperatorKey op;
  // The mapping the measurement names; none when the operator was measured as a black box and
  // the mapper chose the mapping (its text is in `chosen_mapping_yaml`).
  std::optional<MappingRecord> mapping;
  std::string arch_hash;  // 16 hex digits of ArchitectureGraph::content_hash()
  std::string arch_name;
  double device_s = 0;
  double launch_s = 0;
  std::string bound_by;
  std::string chosen_mapping_yaml;
};

struct DeviceInfo {
  std::string name;             // e.g. "Intel(R) Xeon(R) Processor" or the graph's name
  std::string kind;             // host-cpu, nvidia-gpu, ...
  std::string arch_hash;        // the graph the run was predicted with, may be empty
  std::string properties_json;  // what the collector knows of the device, as JSON
};

enum class RunStatus { incomplete, complete, cancelled };
std::string_view to_string(RunStatus status);

struct RunStart {
  std::string collector;  // host, cupti, import:<format>, ...
  std::string workload;   // suite name
  std::string tool_version;
  std::string settings_json;  // command line options and collector settings, as JSON
  DeviceInfo device;
};

struct RunInfo {
  int64_t id = 0;
  std::string started_at;  // ISO 8601 UTC
  std::string finished_at;
  RunStatus status = RunStatus::incomplete;
  RunStart start;
  int64_t measurement_count = 0;
};

// 16 lower-case hex digits.
std::string hash_text(uint64_t hash);

}  // namespace ts
