#include "RunnerPlan.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

namespace ts::cupti {
namespace {

[[noreturn]] void fail(const std::string& file, int line, const std::string& what) {
  throw PlanError(file + ":" + std::to_string(line) + ": " + what);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  return parts;
}

int64_t parse_int(const std::string& text, const std::string& file, int line,
                  const std::string& key, int64_t min_value) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min_value)
    fail(file, line,
         "'" + key + "=" + text + "': expected an integer >= " + std::to_string(min_value));
  return value;
}

// "128x128x32" -> {128, 128, 32}
std::vector<int> parse_dims_x(const std::string& text, size_t count, const std::string& file,
                              int line, const std::string& key) {
  const std::vector<std::string> parts = split(text, 'x');
  if (parts.size() != count)
    fail(file, line,
         "'" + key + "=" + text + "': expected " + std::to_string(count) + " sizes joined by 'x'");
  std::vector<int> sizes;
  for (const auto& p : parts) sizes.push_back(static_cast<int>(parse_int(p, file, line, key, 1)));
  return sizes;
}

bool known_step(const std::string& s) {
  for (const char* k :
       {"add", "mul", "bias", "scale", "mask", "relu", "gelu", "softmax", "layernorm"})
    if (s == k) return true;
  return false;
}

// A job's type: a GEMM, a fused chain, one vector step alone, or an LLM row kernel.
bool known_type(const std::string& t) {
  return t == "gemm" || t == "batched_gemm" || t == "fused" || known_step(t) ||
         is_llm_row_type(t) || t == "decode_attention";
}

PlanJob parse_job(const std::string& text, const std::string& file, int line) {
  PlanJob job;
  job.line = line;
  std::istringstream in(text);
  std::string word;
  in >> word;  // "job"
  bool has_impl = false;
  while (in >> word) {
    const size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) fail(file, line, "'" + word + "': expected key=value");
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (value.empty()) fail(file, line, "'" + key + "=': expected a value");
    if (key == "suite") {
      job.suite = value;
    } else if (key == "op") {
      job.op = value;
    } else if (key == "type") {
      if (!known_type(value))
        fail(file, line,
             "type '" + value +
                 "': expected gemm, batched_gemm, fused, a vector step (add, mul, bias, scale, "
                 "mask, relu, gelu, softmax, layernorm), an LLM row kernel (rmsnorm, silu_mul, "
                 "rope) or decode_attention");
      job.type = value;
    } else if (key == "steps") {
      job.steps = split(value, ',');
      for (const auto& s : job.steps)
        if (!known_step(s))
          fail(file, line,
               "step '" + s +
                   "': expected add, mul, bias, scale, mask, relu, gelu, softmax or "
                   "layernorm");
    } else if (key == "shape") {
      for (const auto& part : split(value, ',')) {
        const size_t colon = part.find(':');
        if (colon == std::string::npos || colon == 0)
          fail(file, line, "shape '" + value + "': expected DIM:SIZE,DIM:SIZE,...");
        job.shape.emplace_back(part.substr(0, colon),
                               parse_int(part.substr(colon + 1), file, line, "shape", 1));
      }
    } else if (key == "dtype") {
      if (value != "fp16" && value != "bf16" && value != "fp32")
        fail(file, line, "dtype '" + value + "': expected fp16, bf16 or fp32");
      job.dtype = value;
    } else if (key == "impl") {
      has_impl = true;
      if (value == "cublas")
        job.impl = Implementation::cublas;
      else if (value == "cublaslt")
        job.impl = Implementation::cublaslt;
      else if (value == "tilescope")
        job.impl = Implementation::tilescope;
      else if (value == "vector")
        job.impl = Implementation::vector;
      else
        fail(file, line, "impl '" + value + "': expected cublas, cublaslt, tilescope or vector");
    } else if (key == "block") {
      const auto s = parse_dims_x(value, 3, file, line, key);
      job.block_m = s[0], job.block_n = s[1], job.block_k = s[2];
    } else if (key == "warp") {
      const auto s = parse_dims_x(value, 2, file, line, key);
      job.warp_m = s[0], job.warp_n = s[1];
    } else if (key == "mapping") {
      if (value.size() != 16 || value.find_first_not_of("0123456789abcdef") != std::string::npos)
        fail(file, line, "mapping '" + value + "': expected 16 lower-case hex digits");
      job.mapping_hash = value;
    } else if (key == "stages") {
      if (value != "1" && value != "2") fail(file, line, "stages '" + value + "': expected 1 or 2");
      job.stages = value == "1" ? 1 : 2;
    } else if (key == "mapping_name") {
      job.mapping_name = value;
    } else if (key == "spec") {
      job.spec = percent_decode(value, file, line);
    } else if (key == "mapping_yaml") {
      job.mapping_yaml = percent_decode(value, file, line);
    } else if (key == "reps") {
      job.repetitions = static_cast<int>(parse_int(value, file, line, key, 3));
    } else if (key == "l2") {
      if (value != "cold" && value != "warm")
        fail(file, line, "l2 '" + value + "': expected cold or warm");
      job.cold_l2 = value == "cold";
    } else {
      fail(file, line,
           "unknown key '" + key +
               "': expected suite, op, type, steps, shape, dtype, impl, block, warp, stages, "
               "mapping, mapping_name, spec, mapping_yaml, reps or l2");
    }
  }
  for (const char* required : {"op", "type", "shape", "dtype", "impl"}) {
    const std::string k = required;
    const bool missing = (k == "op" && job.op.empty()) || (k == "type" && job.type.empty()) ||
                         (k == "shape" && job.shape.empty()) ||
                         (k == "dtype" && job.dtype.empty()) || (k == "impl" && !has_impl);
    if (missing) fail(file, line, "job without '" + k + "='");
  }
  const bool gemm = job.type == "gemm" || job.type == "batched_gemm";
  if (gemm && job.impl == Implementation::vector)
    fail(file, line, "a GEMM needs impl=cublas, cublaslt or tilescope");
  if (!gemm && job.impl != Implementation::vector)
    fail(file, line, "a vector operator needs impl=vector");
  if (gemm && (job.dim("M") == 0 || job.dim("N") == 0 || job.dim("K") == 0))
    fail(file, line, "a GEMM shape needs M, N and K");
  if (job.type == "decode_attention") {
    for (const char* d : {"B", "H", "S", "L", "D"})
      if (job.dim(d) == 0) fail(file, line, "a decode_attention shape needs B, H, S, L and D");
  } else if (job.type == "rope") {
    if (job.dim("T") == 0 || job.dim("H") == 0 || job.dim("D") == 0 || job.dim("D") % 2 != 0)
      fail(file, line, "a rope shape needs T, H and an even D");
  } else if (!gemm && (job.dim("rows") == 0 || job.dim("cols") == 0)) {
    fail(file, line, "a vector shape needs rows and cols");
  }
  if (job.type == "fused" && job.steps.empty()) fail(file, line, "a fused job needs steps=");
  if (job.impl == Implementation::tilescope) {
    if (job.block_m == 0) fail(file, line, "a tilescope GEMM needs block=MxNxK");
    if (job.warp_m == 0) fail(file, line, "a tilescope GEMM needs warp=MxN");
    if (job.block_m % job.warp_m || job.block_n % job.warp_n || job.warp_m % 16 ||
        job.warp_n % 16 || job.block_k % 16)
      fail(file, line,
           "block and warp tiles: expected warp sizes that are multiples of 16 and divide the "
           "block, and a block K that is a multiple of 16");
    const int warps = (job.block_m / job.warp_m) * (job.block_n / job.warp_n);
    if (warps > 32) fail(file, line, "block/warp: at most 32 warps per block");
    if (job.warp_m / 16 > 4 || job.warp_n / 16 > 4)
      fail(file, line, "warp tile: expected at most 64x64");
    if (job.dtype == "fp32")
      fail(file, line, "the tilescope GEMM runs fp16 or bf16 (tensor cores)");
  }
  return job;
}

}  // namespace

std::string percent_decode(const std::string& text, const std::string& file, int line) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    auto hex = [](char c) {
      return c >= '0' && c <= '9'   ? c - '0'
             : c >= 'a' && c <= 'f' ? c - 'a' + 10
             : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                    : -1;
    };
    const int hi = i + 1 < text.size() ? hex(text[i + 1]) : -1;
    const int lo = i + 2 < text.size() ? hex(text[i + 2]) : -1;
    if (hi < 0 || lo < 0)
      fail(file, line, "'%' at byte " + std::to_string(i + 1) + ": expected two hex digits");
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

std::string to_string(Implementation impl) {
  switch (impl) {
    case Implementation::cublas:
      return "cublas";
    case Implementation::cublaslt:
      return "cublaslt";
    case Implementation::tilescope:
      return "tilescope";
    case Implementation::vector:
      return "vector";
  }
  return "?";
}

int64_t PlanJob::dim(const std::string& name, int64_t fallback) const {
  for (const auto& [d, size] : shape)
    if (d == name) return size;
  return fallback;
}

Plan parse_plan(std::istream& in, const std::string& file_name) {
  Plan plan;
  plan.file = file_name;
  std::string text;
  int line = 0;
  bool header = false;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos || text[first] == '#') continue;
    text = text.substr(first);
    if (!header) {
      std::istringstream h(text);
      std::string magic, version;
      h >> magic >> version;
      if (magic != "tilescope-plan")
        fail(file_name, line,
             "expected the header 'tilescope-plan " + std::to_string(kPlanVersion) + "'");
      const int64_t v = parse_int(version, file_name, line, "version", 1);
      if (v > kPlanVersion)
        fail(file_name, line,
             "plan version " + version + " is newer than this runner's (" +
                 std::to_string(kPlanVersion) + "): rebuild the runner");
      plan.version = static_cast<int>(v);
      header = true;
      continue;
    }
    if (text.rfind("job ", 0) != 0 && text != "job")
      fail(file_name, line, "expected a line 'job key=value ...' or a comment");
    plan.jobs.push_back(parse_job(text, file_name, line));
  }
  if (!header) fail(file_name, line + 1, "empty plan: expected the header 'tilescope-plan 1'");
  return plan;
}

Plan read_plan(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PlanError(path + ":0: cannot open the plan");
  return parse_plan(in, path);
}

}  // namespace ts::cupti
