#include "trace/KinetoTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "common/InputError.hpp"
#include "trace/KernelOperatorMatch.hpp"
#include "trace/TraceFileInput.hpp"

namespace ts {
namespace {

using json = nlohmann::json;

// The keys read, at the root, in an event and in an event's args. Everything else is skipped
// (its containers only counted for depth), so that new fields in newer PyTorch cost nothing.
enum class RootKey { other, trace_events, device_properties, base_time, schema_version };
enum class EventKey { other, ph, cat, name, pid, tid, ts, dur, id, args };
enum class ArgKey {
  other,
  correlation,
  device,
  stream,
  grid,
  block,
  shared_memory,
  registers,
  input_dims,
  input_type
};

RootKey root_key(std::string_view k) {
  if (k == "traceEvents") return RootKey::trace_events;
  if (k == "deviceProperties") return RootKey::device_properties;
  if (k == "baseTimeNanoseconds") return RootKey::base_time;
  if (k == "schemaVersion") return RootKey::schema_version;
  return RootKey::other;
}

EventKey event_key(std::string_view k) {
  static const std::array<std::pair<std::string_view, EventKey>, 9> kKeys{{
      {"ph", EventKey::ph},
      {"cat", EventKey::cat},
      {"name", EventKey::name},
      {"pid", EventKey::pid},
      {"tid", EventKey::tid},
      {"ts", EventKey::ts},
      {"dur", EventKey::dur},
      {"id", EventKey::id},
      {"args", EventKey::args},
  }};
  for (const auto& [name, key] : kKeys)
    if (name == k) return key;
  return EventKey::other;
}

ArgKey arg_key(std::string_view k) {
  static const std::array<std::pair<std::string_view, ArgKey>, 9> kKeys{{
      {"correlation", ArgKey::correlation},
      {"device", ArgKey::device},
      {"stream", ArgKey::stream},
      {"grid", ArgKey::grid},
      {"block", ArgKey::block},
      {"shared memory", ArgKey::shared_memory},
      {"registers per thread", ArgKey::registers},
      {"Input Dims", ArgKey::input_dims},
      {"Input type", ArgKey::input_type},
  }};
  for (const auto& [name, key] : kKeys)
    if (name == k) return key;
  return ArgKey::other;
}

// What an `X` event is, by its category (PyTorch 1.8-1.10 wrote capitalised ones).
enum class EventKind { other, kernel, memory, cpu_operator, runtime };
EventKind event_kind(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
  if (cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "Memcpy" || cat == "Memset")
    return EventKind::memory;
  if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation")
    return EventKind::cpu_operator;
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") return EventKind::runtime;
  return EventKind::other;
}

bool is_launch_flow(std::string_view cat) { return cat == "ac2g" || cat == "async_cpu_to_gpu"; }

uint64_t mix(uint64_t a, uint64_t b) {
  // splitmix64's finaliser over a combination: thread and flow keys from (pid, tid, ts).
  uint64_t z = a * 0x9e3779b97f4a7c15ULL + b;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A microsecond figure as integer nanoseconds. Absolute timestamps (microseconds since the
// epoch, ~1.7e15) with three decimals have more digits than a double keeps, so a fractional one
// is read from its text.
int64_t microseconds_text_to_ns(double value, const std::string& raw) {
  if (raw.find_first_of("eE") != std::string::npos || raw.empty())
    return std::llround(value * 1000.0);
  const bool negative = raw.front() == '-';
  const size_t dot = raw.find('.');
  int64_t whole = 0;
  for (size_t i = negative ? 1 : 0; i < std::min(dot, raw.size()); ++i)
    whole = whole * 10 + (raw[i] - '0');
  int64_t fraction_ns = 0;
  int digits = 0;
  if (dot != std::string::npos)
    for (size_t i = dot + 1; i < raw.size() && digits < 3; ++i, ++digits)
      fraction_ns = fraction_ns * 10 + (raw[i] - '0');
  for (; digits < 3; ++digits) fraction_ns *= 10;
  const int64_t ns = whole * 1000 + fraction_ns;
  return negative ? -ns : ns;
}

struct OperatorSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t thread = 0;
  uint32_t signature = 0;
};

struct LaunchRecord {
  int64_t correlation = 0;
  int64_t ts_ns = 0;
  int64_t thread = 0;
};

struct FlowEnd {
  uint64_t key = 0;  // mix of the kernel's pid, tid and ts
  int64_t id = 0;
};

class KinetoHandler : public json::json_sax_t {
 public:
  KinetoHandler(TraceFileInput& input, const TraceImportProgress& progress)
      : input_(input), progress_(progress) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(json::number_integer_t v) override { return on_integer(v, nullptr); }
  bool number_unsigned(json::number_unsigned_t v) override {
    return on_integer(static_cast<int64_t>(v), nullptr);
  }
  bool number_float(json::number_float_t v, const json::string_t& raw) override {
    return on_integer(static_cast<int64_t>(v), &raw, v);
  }
  bool binary(json::binary_t&) override { return true; }
  bool string(json::string_t& v) override;
  bool start_object(std::size_t) override;
  bool end_object() override;
  bool start_array(std::size_t) override;
  bool end_array() override;
  bool key(json::string_t& k) override;
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override;

  TraceEvents assemble();

 private:
  bool in_events() const { return root_ == RootKey::trace_events; }
  bool on_integer(int64_t v, const json::string_t* raw, double as_double = 0);
  void begin_event();
  void finish_event();
  int64_t thread() const { return static_cast<int64_t>(mix(pid_, tid_)); }
  int64_t relative(int64_t ns) const { return ns - origin_ns_; }
  uint32_t intern_signature();
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(input_.where(input_.text_offset()), message);
  }

  TraceFileInput& input_;
  const TraceImportProgress& progress_;
  int depth_ = 0;
  RootKey root_ = RootKey::other;
  EventKey event_key_ = EventKey::other;
  ArgKey arg_key_ = ArgKey::other;
  bool in_args_ = false;
  std::string device_key_;
  std::string schema_version_;
  bool has_base_time_ = false;
  std::string first_device_name_;

  // The event being read, reused from one event to the next.
  std::string ph_, cat_, name_;
  uint64_t pid_ = 0, tid_ = 0;
  int64_t ts_ns_ = 0, id_ = -1;
  double dur_ns_ = 0;
  bool has_ts_ = false, has_dur_ = false;
  int64_t correlation_ = -1, device_ = -1, stream_ = -1, shared_memory_ = -1, registers_ = -1;
  std::array<int64_t, 3> grid_{}, block_{};
  size_t grid_used_ = 0, block_used_ = 0;
  std::vector<std::vector<int64_t>> shapes_;
  size_t shapes_used_ = 0;
  bool shape_is_list_ = false;  // the current Input Dims entry is a TensorList: not one shape
  std::vector<std::string> dtypes_;
  size_t dtypes_used_ = 0;
  bool has_dims_ = false;
  uint64_t events_ = 0;

  bool origin_set_ = false;
  int64_t origin_ns_ = 0;

  // What is kept of the whole file.
  std::vector<TraceKernel> kernels_;
  std::vector<std::pair<size_t, uint64_t>> kernel_flow_keys_;  // kernels without correlation
  std::vector<OperatorSpan> spans_;
  std::vector<TraceOperator> signatures_;  // name, shapes and dtypes of each distinct operator
  std::unordered_map<std::string, uint32_t> signature_index_;
  std::string signature_key_;
  std::vector<LaunchRecord> launches_;
  std::vector<FlowEnd> flow_ends_;
  std::unordered_map<std::string, int32_t> kernel_name_ids_;  // into kernel_names_
  std::vector<std::string> kernel_names_;
  size_t memory_events_ = 0;
};

bool KinetoHandler::key(json::string_t& k) {
  if (depth_ == 1) {
    root_ = root_key(k);
  } else if (depth_ == 3 && in_events()) {
    event_key_ = event_key(k);
  } else if (depth_ == 4 && in_args_) {
    arg_key_ = arg_key(k);
  } else if (depth_ == 3 && root_ == RootKey::device_properties) {
    device_key_ = k;
  }
  return true;
}

bool KinetoHandler::start_object(std::size_t) {
  ++depth_;
  if (depth_ == 3 && in_events()) begin_event();
  if (depth_ == 4 && in_events() && event_key_ == EventKey::args) {
    in_args_ = true;
    arg_key_ = ArgKey::other;
  }
  return true;
}

bool KinetoHandler::end_object() {
  if (depth_ == 4 && in_args_) in_args_ = false;
  if (depth_ == 3 && in_events()) finish_event();
  --depth_;
  return true;
}

bool KinetoHandler::start_array(std::size_t) {
  ++depth_;
  if (!in_args_) return true;
  if (arg_key_ == ArgKey::input_dims) {
    if (depth_ == 5) {
      shapes_used_ = 0;
      has_dims_ = true;
    } else if (depth_ == 6) {
      if (shapes_.size() <= shapes_used_) shapes_.emplace_back();
      shapes_[shapes_used_++].clear();
      shape_is_list_ = false;
    } else if (depth_ == 7 && shapes_used_ > 0) {
      // A TensorList argument ([[2, 3], [2, 3]]): no one shape; the operators read here take
      // tensors, so it is kept as a non-tensor argument.
      shape_is_list_ = true;
      shapes_[shapes_used_ - 1].clear();
    }
  } else if (arg_key_ == ArgKey::input_type && depth_ == 5) {
    dtypes_used_ = 0;
  } else if (arg_key_ == ArgKey::grid && depth_ == 5) {
    grid_used_ = 0;
  } else if (arg_key_ == ArgKey::block && depth_ == 5) {
    block_used_ = 0;
  }
  return true;
}

bool KinetoHandler::end_array() {
  --depth_;
  return true;
}

bool KinetoHandler::string(json::string_t& v) {
  if (depth_ == 3 && in_events()) {
    switch (event_key_) {
      case EventKey::ph:
        ph_.assign(v);
        break;
      case EventKey::cat:
        cat_.assign(v);
        break;
      case EventKey::name:
        name_.assign(v);
        break;
      // Some versions write a process or a GPU stream as text ("stream 7"): a key like another.
      case EventKey::pid:
        pid_ = std::hash<std::string>{}(v);
        break;
      case EventKey::tid:
        tid_ = std::hash<std::string>{}(v);
        break;
      case EventKey::id:
        id_ = static_cast<int64_t>(std::hash<std::string>{}(v) >> 1);
        break;
      default:
        break;
    }
  } else if (depth_ == 5 && in_args_ && arg_key_ == ArgKey::input_type) {
    if (dtypes_.size() <= dtypes_used_) dtypes_.emplace_back();
    dtypes_[dtypes_used_++].assign(v);
  } else if (depth_ == 3 && root_ == RootKey::device_properties && device_key_ == "name") {
    if (first_device_name_.empty()) first_device_name_ = v;
  } else if (depth_ == 1 && root_ == RootKey::schema_version) {
    schema_version_ = v;
  }
  return true;
}

bool KinetoHandler::on_integer(int64_t v, const json::string_t* raw, double as_double) {
  if (depth_ == 3 && in_events()) {
    switch (event_key_) {
      case EventKey::ts:
        ts_ns_ = raw ? microseconds_text_to_ns(as_double, *raw) : v * 1000;
        has_ts_ = true;
        if (!origin_set_) {
          origin_set_ = true;
          origin_ns_ = ts_ns_;
        }
        break;
      case EventKey::dur:
        dur_ns_ = raw ? as_double * 1000.0 : static_cast<double>(v) * 1000.0;
        has_dur_ = true;
        break;
      case EventKey::pid:
        pid_ = static_cast<uint64_t>(v);
        break;
      case EventKey::tid:
        tid_ = static_cast<uint64_t>(v);
        break;
      case EventKey::id:
        id_ = v;
        break;
      default:
        break;
    }
  } else if (depth_ == 4 && in_args_) {
    switch (arg_key_) {
      case ArgKey::correlation:
        correlation_ = v;
        break;
      case ArgKey::device:
        device_ = v;
        break;
      case ArgKey::stream:
        stream_ = v;
        break;
      case ArgKey::shared_memory:
        shared_memory_ = v;
        break;
      case ArgKey::registers:
        registers_ = v;
        break;
      default:
        break;
    }
  } else if (depth_ == 5 && in_args_) {
    if (arg_key_ == ArgKey::grid && grid_used_ < 3) grid_[grid_used_++] = v;
    if (arg_key_ == ArgKey::block && block_used_ < 3) block_[block_used_++] = v;
  } else if (depth_ == 6 && in_args_ && arg_key_ == ArgKey::input_dims && shapes_used_ > 0 &&
             !shape_is_list_) {
    shapes_[shapes_used_ - 1].push_back(v);
  } else if (depth_ == 1 && root_ == RootKey::base_time) {
    has_base_time_ = true;
  } else if (depth_ == 1 && root_ == RootKey::schema_version) {
    schema_version_ = std::to_string(v);
  }
  return true;
}

void KinetoHandler::begin_event() {
  ph_.clear();
  cat_.clear();
  name_.clear();
  pid_ = tid_ = 0;
  ts_ns_ = 0;
  id_ = -1;
  dur_ns_ = 0;
  has_ts_ = has_dur_ = false;
  correlation_ = device_ = stream_ = shared_memory_ = registers_ = -1;
  grid_ = block_ = {0, 0, 0};
  grid_used_ = block_used_ = 0;
  shapes_used_ = dtypes_used_ = 0;
  has_dims_ = false;
  event_key_ = EventKey::other;
  in_args_ = false;
}

uint32_t KinetoHandler::intern_signature() {
  // name \x1f shape;shape;... \x1f dtype;dtype;...: the identity of an operator's signature.
  signature_key_.assign(name_);
  signature_key_ += has_dims_ ? '\x1f' : '\x1e';
  for (size_t i = 0; i < shapes_used_; ++i) {
    for (int64_t d : shapes_[i]) {
      signature_key_ += std::to_string(d);
      signature_key_ += ',';
    }
    signature_key_ += ';';
  }
  signature_key_ += '\x1f';
  for (size_t i = 0; i < dtypes_used_; ++i) {
    signature_key_ += dtypes_[i];
    signature_key_ += ';';
  }
  const auto found = signature_index_.find(signature_key_);
  if (found != signature_index_.end()) return found->second;
  TraceOperator op;
  op.name = name_;
  op.has_shapes = has_dims_;
  op.input_shapes.assign(shapes_.begin(), shapes_.begin() + static_cast<ptrdiff_t>(shapes_used_));
  op.input_dtypes.assign(dtypes_.begin(), dtypes_.begin() + static_cast<ptrdiff_t>(dtypes_used_));
  const auto index = static_cast<uint32_t>(signatures_.size());
  signatures_.push_back(std::move(op));
  signature_index_.emplace(signature_key_, index);
  return index;
}

void KinetoHandler::finish_event() {
  if (++events_ % 65536 == 0 && progress_ &&
      !progress_("read", input_.file_size() ? static_cast<double>(input_.file_offset()) /
                                                  static_cast<double>(input_.file_size())
                                            : 0))
    throw TraceImportCancelled();
  if (ph_ == "X") {
    const EventKind kind = event_kind(cat_);
    if (kind == EventKind::other) return;
    if (!has_ts_ || (kind != EventKind::runtime && !has_dur_))
      fail(fmt::format("a `{}` event '{}' without `{}`; expected `ts` and `dur` in microseconds",
                       cat_, name_, has_ts_ ? "dur" : "ts"));
    if (kind == EventKind::memory) {
      ++memory_events_;
    } else if (kind == EventKind::kernel) {
      if (dur_ns_ < 0)
        fail(fmt::format("kernel '{}' has a negative `dur`; expected a duration >= 0", name_));
      TraceKernel k;
      auto interned = kernel_name_ids_.find(name_);
      if (interned == kernel_name_ids_.end()) {
        interned =
            kernel_name_ids_.emplace(name_, static_cast<int32_t>(kernel_names_.size())).first;
        kernel_names_.push_back(name_);
      }
      k.name_id = interned->second;
      k.start_ns = static_cast<double>(relative(ts_ns_));
      k.duration_ns = dur_ns_;
      k.device = static_cast<int>(device_ >= 0 ? device_ : static_cast<int64_t>(pid_));
      k.stream = stream_ >= 0 ? stream_ : static_cast<int64_t>(tid_);
      k.grid = grid_;
      k.block = block_;
      k.shared_memory_bytes = shared_memory_;
      k.registers_per_thread = static_cast<int>(registers_);
      k.correlation_id = correlation_;
      if (correlation_ < 0)
        kernel_flow_keys_.emplace_back(kernels_.size(),
                                       mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_)));
      kernels_.push_back(std::move(k));
    } else if (kind == EventKind::cpu_operator) {
      spans_.push_back(OperatorSpan{ts_ns_, ts_ns_ + static_cast<int64_t>(std::llround(dur_ns_)),
                                    thread(), intern_signature()});
    } else if (kind == EventKind::runtime && correlation_ >= 0) {
      launches_.push_back(LaunchRecord{correlation_, ts_ns_, thread()});
    }
  } else if ((ph_ == "s" || ph_ == "f") && is_launch_flow(cat_) && has_ts_ && id_ >= 0) {
    // A flow ties a launch ("s", at the launch's ts on its thread) to a kernel ("f", at the
    // kernel's ts on its device and stream); its id is the correlation id in every version.
    if (ph_ == "s")
      launches_.push_back(LaunchRecord{id_, ts_ns_, thread()});
    else
      flow_ends_.push_back(FlowEnd{mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_)), id_});
  }
}

bool KinetoHandler::parse_error(std::size_t position, const std::string&,
                                const nlohmann::detail::exception& e) {
  // nlohmann's text: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax
  // error while parsing object - unexpected end of input; expected string literal". The place
  // is ours to say (with the file); the reason is kept.
  std::string reason = e.what();
  if (const size_t colon = reason.find(": "); colon != std::string::npos)
    reason = reason.substr(colon + 2);
  for (char& c : reason)
    if (c == '\n') c = ' ';
  // nlohmann counts the characters read, the offending one (or the end of input) included:
  // the byte offset where the parse stopped is one less.
  const uint64_t offset = position > 0 ? position - 1 : 0;
  throw InputError(input_.where(offset),
                   fmt::format("the JSON breaks at byte offset {} ({}); expected a complete "
                               "Chrome trace (a file cut short?)",
                               offset, reason));
}

TraceEvents KinetoHandler::assemble() {
  TraceEvents out;
  out.format = "kineto";
  out.file = input_.path();
  out.device_name = first_device_name_;
  if (!schema_version_.empty()) out.tool_version = "Kineto schema " + schema_version_;

  // Launches by correlation id (a runtime call and its flow start say the same).
  std::sort(launches_.begin(), launches_.end(), [](const LaunchRecord& a, const LaunchRecord& b) {
    return a.correlation < b.correlation;
  });
  std::sort(flow_ends_.begin(), flow_ends_.end(),
            [](const FlowEnd& a, const FlowEnd& b) { return a.key < b.key; });
  auto launch_of = [&](int64_t correlation) -> const LaunchRecord* {
    const auto it =
        std::lower_bound(launches_.begin(), launches_.end(), correlation,
                         [](const LaunchRecord& l, int64_t c) { return l.correlation < c; });
    return it != launches_.end() && it->correlation == correlation ? &*it : nullptr;
  };
  for (const auto& [k, key] : kernel_flow_keys_) {
    const auto it = std::lower_bound(flow_ends_.begin(), flow_ends_.end(), key,
                                     [](const FlowEnd& f, uint64_t v) { return f.key < v; });
    if (it != flow_ends_.end() && it->key == key) kernels_[k].correlation_id = it->id;
  }
  std::vector<TimePoint> points;
  std::vector<size_t> kernel_of_point;
  size_t without_launch = 0;
  for (size_t k = 0; k < kernels_.size(); ++k) {
    TraceKernel& kernel = kernels_[k];
    const LaunchRecord* launch =
        kernel.correlation_id >= 0 ? launch_of(kernel.correlation_id) : nullptr;
    if (!launch) {
      ++without_launch;
      continue;
    }
    kernel.launch_ns = static_cast<double>(relative(launch->ts_ns));
    kernel.launch_thread = launch->thread;
    points.push_back(TimePoint{kernel.launch_ns, launch->thread});
    kernel_of_point.push_back(k);
  }
  std::vector<LaunchRecord>().swap(launches_);
  std::vector<FlowEnd>().swap(flow_ends_);

  std::vector<TimeSpan> spans;
  spans.reserve(spans_.size());
  for (const OperatorSpan& s : spans_)
    spans.push_back(TimeSpan{static_cast<double>(relative(s.start_ns)),
                             static_cast<double>(relative(s.end_ns)), s.thread});
  const Enclosure enclosure = innermost_enclosing(spans, points);
  std::vector<TimeSpan>().swap(spans);

  // Operators that enclose a launch, and the ancestors of the first of each, with the repeats
  // of a training loop merged into one operator with `occurrences`. An operator with shapes is
  // merged by its signature alone: the shared step stores a kernel under the innermost operator
  // with shapes and never looks past it, so its parent does not matter (and differs from step to
  // step: ProfilerStep#1, #2, ...). An operator without shapes is merged by signature and parent,
  // since a kernel under it is stored under the first ancestor with shapes.
  std::vector<int64_t> emitted(spans_.size(), -1);
  std::unordered_map<uint64_t, size_t> merged;  // (signature, emitted parent + 1) -> operator
  auto emit = [&](auto& self, size_t s) -> size_t {
    if (emitted[s] >= 0) return static_cast<size_t>(emitted[s]);
    const TraceOperator& signature = signatures_[spans_[s].signature];
    const int64_t parent_span = enclosure.span_parent[s];
    int64_t parent = -1;  // the emitted parent; for an operator with shapes, only when new
    if (!signature.has_shapes && parent_span >= 0)
      parent = static_cast<int64_t>(self(self, static_cast<size_t>(parent_span)));
    const uint64_t key =
        (static_cast<uint64_t>(spans_[s].signature) << 32) | static_cast<uint64_t>(parent + 1);
    auto found = merged.find(key);
    if (found == merged.end()) {
      if (signature.has_shapes && parent_span >= 0)
        parent = static_cast<int64_t>(self(self, static_cast<size_t>(parent_span)));
      TraceOperator op = signature;
      op.start_ns = static_cast<double>(relative(spans_[s].start_ns));
      op.duration_ns = static_cast<double>(spans_[s].end_ns - spans_[s].start_ns);
      op.thread = spans_[s].thread;
      if (parent >= 0) op.parent = static_cast<size_t>(parent);
      op.occurrences = 0;
      found = merged.emplace(key, out.operators.size()).first;
      out.operators.push_back(std::move(op));
    }
    ++out.operators[found->second].occurrences;
    emitted[s] = static_cast<int64_t>(found->second);
    return found->second;
  };
  size_t outside_operators = 0;
  for (size_t p = 0; p < points.size(); ++p) {
    if (enclosure.point_span[p] < 0) {
      ++outside_operators;
      continue;
    }
    kernels_[kernel_of_point[p]].op = emit(emit, static_cast<size_t>(enclosure.point_span[p]));
  }
  out.kernels = std::move(kernels_);
  out.kernel_names = std::move(kernel_names_);
  if (out.kernels.empty())
    out.notes.push_back("the trace has no GPU kernels (`ph: X` events of `cat: kernel`)");
  if (without_launch)
    out.notes.push_back(fmt::format(
        "{} kernels have no launch in the trace (no correlation id or flow to a runtime call)",
        without_launch));
  if (outside_operators)
    out.notes.push_back(fmt::format(
        "{} kernels were launched outside any CPU operator (profile with the CPU activity on)",
        outside_operators));
  if (memory_events_)
    out.notes.push_back(
        fmt::format("{} memory copies and sets counted, not imported", memory_events_));
  return out;
}

}  // namespace

TraceEvents read_kineto_trace(const std::string& path, const TraceImportProgress& progress) {
  TraceFileInput input(path);
  KinetoHandler handler(input, progress);
  json::sax_parse(input.begin(), input.end(), &handler);
  return handler.assemble();
}

Sniff KinetoImporter::sniff(std::string_view first_line) const {
  // gzip's magic bytes: a compressed trace cannot be told from its first line.
  if (first_line.size() >= 2 && static_cast<unsigned char>(first_line[0]) == 0x1f &&
      static_cast<unsigned char>(first_line[1]) == 0x8b)
    return Sniff::maybe;
  const size_t first = first_line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos || first_line[first] != '{') return Sniff::no;
  if (first_line.find("\"traceEvents\"") != std::string_view::npos ||
      first_line.find("\"schemaVersion\"") != std::string_view::npos)
    return Sniff::yes;
  return Sniff::maybe;
}

ImportResult KinetoImporter::import(const ImportRequest& request) const {
  return import_trace(read_kineto_trace(request.file), request);
}

}  // namespace ts
