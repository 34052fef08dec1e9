#pragma once
// The measurement plan the runner reads (docs/formats.md, "Runner plan"): a line-based text that
// `tilescope measure --collector cupti --plan` writes, so that a bare GPU machine needs no YAML
// or JSON library. Every error names file:line and what was expected.
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ts::cupti {

constexpr int kPlanVersion = 1;

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The kernel families the runner has.
enum class Implementation { cublas, cublaslt, tilescope, vector };
std::string to_string(Implementation impl);

struct PlanJob {
  int line = 0;                    // 1-based line in the plan
  std::string suite;               // workload name
  std::string op;                  // operator name in the suite
  std::string type;                // gemm, batched_gemm, add, gelu, softmax, layernorm, fused
  std::vector<std::string> steps;  // fused: the vector steps in order (add, layernorm)
  std::vector<std::pair<std::string, int64_t>> shape;  // dims in the operator's order
  std::string dtype;                                   // fp16, bf16, fp32
  Implementation impl = Implementation::vector;
  // tilescope GEMM: thread-block tile (from the mapping) and warp tile (derived; see the plan)
  int block_m = 0, block_n = 0, block_k = 0;
  int warp_m = 0, warp_n = 0;
  int stages = 1;  // 2: the next K step loads into a second shared buffer while this one computes
  std::string mapping_hash;  // 16 hex digits, empty for library and vector kernels
  std::string mapping_name;
  // Opaque to the runner, echoed into the results so that tilescope can rebuild the operator and
  // the mapping without regenerating them: a one-line operator entry and a mapping file.
  std::string spec;
  std::string mapping_yaml;
  int repetitions = 20;
  bool cold_l2 = true;  // flush L2 before every repetition

  int64_t dim(const std::string& name, int64_t fallback = 0) const;
};

struct Plan {
  std::string file;
  int version = 0;
  std::vector<PlanJob> jobs;
};

// Values hold no spaces: `%XX` stands for the byte XX (hex), as in URLs. Throws PlanError for
// a `%` not followed by two hex digits.
std::string percent_decode(const std::string& text, const std::string& file, int line);

// The LLM row kernels the runner has (vLLM's rmsnorm, silu_mul and rope): types of their own, not
// chain steps.
inline bool is_llm_row_type(const std::string& type) {
  return type == "rmsnorm" || type == "silu_mul" || type == "rope";
}

// Throws PlanError("file:line: what is wrong, what was expected").
Plan parse_plan(std::istream& in, const std::string& file_name);
Plan read_plan(const std::string& path);

}  // namespace ts::cupti
