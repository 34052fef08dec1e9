#include "trace/KinetoTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "common/InputError.hpp"
#include "trace/ChromeTraceStream.hpp"
#include "trace/ChromeTraceValues.hpp"
#include "trace/KernelOperatorMatch.hpp"
#include "trace/PodArray.hpp"
#include "trace/TraceInputLimits.hpp"

namespace ts {
namespace {

namespace od = simdjson::ondemand;
using namespace chrome_trace;

// The keys read in an event and in an event's args. Everything else is skipped by simdjson
// without being looked at, so that new fields in newer PyTorch cost nothing.
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

// By the key's first byte, then its whole raw text (Kineto writes its keys without escapes).
EventKey event_key(od::raw_json_string k) {
  switch (k.raw()[0]) {
    case 'p':
      return k.unsafe_is_equal("ph")    ? EventKey::ph
             : k.unsafe_is_equal("pid") ? EventKey::pid
                                        : EventKey::other;
    case 'c':
      return k.unsafe_is_equal("cat") ? EventKey::cat : EventKey::other;
    case 'n':
      return k.unsafe_is_equal("name") ? EventKey::name : EventKey::other;
    case 't':
      return k.unsafe_is_equal("ts")    ? EventKey::ts
             : k.unsafe_is_equal("tid") ? EventKey::tid
                                        : EventKey::other;
    case 'd':
      return k.unsafe_is_equal("dur") ? EventKey::dur : EventKey::other;
    case 'i':
      return k.unsafe_is_equal("id") ? EventKey::id : EventKey::other;
    case 'a':
      return k.unsafe_is_equal("args") ? EventKey::args : EventKey::other;
    default:
      return EventKey::other;
  }
}

ArgKey arg_key(od::raw_json_string k) {
  switch (k.raw()[0]) {
    case 'c':
      return k.unsafe_is_equal("correlation") ? ArgKey::correlation : ArgKey::other;
    case 'd':
      return k.unsafe_is_equal("device") ? ArgKey::device : ArgKey::other;
    case 's':
      return k.unsafe_is_equal("stream")          ? ArgKey::stream
             : k.unsafe_is_equal("shared memory") ? ArgKey::shared_memory
                                                  : ArgKey::other;
    case 'g':
      return k.unsafe_is_equal("grid") ? ArgKey::grid : ArgKey::other;
    case 'b':
      return k.unsafe_is_equal("block") ? ArgKey::block : ArgKey::other;
    case 'r':
      return k.unsafe_is_equal("registers per thread") ? ArgKey::registers : ArgKey::other;
    case 'I':
      return k.unsafe_is_equal("Input Dims")   ? ArgKey::input_dims
             : k.unsafe_is_equal("Input type") ? ArgKey::input_type
                                               : ArgKey::other;
    default:
      return ArgKey::other;
  }
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

// A kernel as read, before its launch and operator are known: a record of fixed size (kept in
// a PodArray; TraceKernel with its strings and options is built once, at the exact count).
struct KernelRecord {
  int64_t start_ns = 0;  // relative to the trace's first timestamp
  double duration_ns = 0;
  int64_t correlation = -1;
  int64_t stream = -1;
  int64_t shared_memory = -1;
  double launch_ns = -1;
  int64_t launch_thread = -1;
  std::array<int32_t, 3> grid{0, 0, 0};
  std::array<int32_t, 3> block{0, 0, 0};
  int32_t registers = -1;
  int32_t name_id = -1;
  int32_t device = 0;
  int32_t op = -1;  // into TraceEvents::operators
};

struct FlowKey {
  size_t kernel = 0;
  uint64_t key = 0;  // mix of pid, tid and ts: the kernel's flow end, for kernels without ids
};

// Up to three integers of a `grid` or `block` array.
void read_dims(od::value v, std::array<int32_t, 3>& into) {
  into = {0, 0, 0};
  size_t used = 0;
  for (od::value d : v.get_array())
    if (used < 3 && d.type() == od::json_type::number)
      into[used++] = int32_of(integer_of(number_text(d)));
}

class KinetoReader final : public ChromeTraceVisitor {
 public:
  KinetoReader(const ChromeTraceStream& stream, const TraceImportProgress& progress)
      : stream_(stream), progress_(progress) {}

  void event(od::value value, uint64_t offset) override;
  bool wants(std::string_view key) const override {
    return key == "deviceProperties" || key == "schemaVersion";
  }
  void root_value(std::string_view key, od::value value) override;

  TraceEvents assemble();

 private:
  void read_args(od::value args);
  void finish_event(uint64_t offset);
  // The event's `ts` and `dur` within what every trace's times keep (trace/TraceInputLimits.hpp),
  // refused at the event otherwise: a time past them could not be stored, or would overflow
  // when the reader takes one time from another.
  void check_times(uint64_t offset) const {
    if (has_ts_)
      if (const auto problem = timestamp_problem(static_cast<double>(ts_ns_), "`ts` x 1000 ="))
        fail(offset, fmt::format("`{}` event '{}': {}", cat_, name_, *problem));
    if (has_dur_)
      if (const auto problem = duration_problem(dur_ns_, "`dur` x 1000 ="))
        fail(offset, fmt::format("`{}` event '{}': {}", cat_, name_, *problem));
  }
  int64_t thread() const { return static_cast<int64_t>(mix(pid_, tid_)); }
  int64_t relative(int64_t ns) const { return ns - origin_ns_; }
  uint32_t intern_signature(uint64_t offset);
  [[noreturn]] void fail(uint64_t offset, const std::string& message) const {
    stream_.fail(offset, message);
  }

  const ChromeTraceStream& stream_;
  const TraceImportProgress& progress_;
  std::string schema_version_;
  std::string first_device_name_;

  // The event being read, reused from one event to the next.
  std::string ph_, cat_, name_;
  uint64_t pid_ = 0, tid_ = 0;
  int64_t ts_ns_ = 0, id_ = -1;
  double dur_ns_ = 0;
  bool has_ts_ = false, has_dur_ = false;
  int64_t correlation_ = -1, device_ = -1, stream_id_ = -1, shared_memory_ = -1, registers_ = -1;
  std::array<int32_t, 3> grid_{}, block_{};
  std::vector<std::vector<int64_t>> shapes_;
  size_t shapes_used_ = 0;
  std::vector<std::string> dtypes_;
  size_t dtypes_used_ = 0;
  bool has_dims_ = false;

  bool origin_set_ = false;
  int64_t origin_ns_ = 0;

  // What is kept of the whole file.
  PodChunks<KernelRecord> kernels_;
  PodArray<FlowKey> kernel_flow_keys_;
  PodArray<OperatorSpan> spans_;
  std::vector<TraceOperator> signatures_;  // name, shapes and dtypes of each distinct operator
  std::unordered_map<std::string, uint32_t> signature_index_;
  std::string signature_key_;
  PodArray<LaunchRecord> launches_;
  LaunchRecord last_launch_{-1, 0, 0};
  PodArray<FlowEnd> flow_ends_;
  std::unordered_map<std::string, int32_t> kernel_name_ids_;  // into kernel_names_
  std::vector<std::string> kernel_names_;
  size_t memory_events_ = 0;
};

void KinetoReader::root_value(std::string_view key, od::value value) {
  if (key == "schemaVersion") {
    if (value.type() == od::json_type::string)
      schema_version_ = std::string(string_of(value));
    else if (value.type() == od::json_type::number)
      schema_version_ = std::to_string(integer_of(number_text(value)));
  } else if (key == "deviceProperties" && value.type() == od::json_type::array) {
    for (od::value device : value.get_array()) {
      if (device.type() != od::json_type::object) continue;
      for (auto field : device.get_object()) {
        if (!field.key().value().unsafe_is_equal("name")) continue;
        od::value name = field.value();
        if (name.type() == od::json_type::string && first_device_name_.empty())
          first_device_name_ = std::string(string_of(name));
      }
      if (!first_device_name_.empty()) break;
    }
  }
}

void KinetoReader::event(od::value value, uint64_t offset) {
  if (value.type() != od::json_type::object) return;
  ph_.clear();
  cat_.clear();
  name_.clear();
  pid_ = tid_ = 0;
  ts_ns_ = 0;
  id_ = -1;
  dur_ns_ = 0;
  has_ts_ = has_dur_ = false;
  correlation_ = device_ = stream_id_ = shared_memory_ = registers_ = -1;
  grid_ = block_ = {0, 0, 0};
  shapes_used_ = dtypes_used_ = 0;
  has_dims_ = false;
  for (auto field : value.get_object()) {
    const EventKey key = event_key(field.key());
    if (key == EventKey::other) continue;
    od::value v = field.value();
    const od::json_type type = v.type();
    switch (key) {
      case EventKey::ph:
        if (type == od::json_type::string) ph_.assign(string_of(v));
        break;
      case EventKey::cat:
        if (type == od::json_type::string) cat_.assign(string_of(v));
        break;
      case EventKey::name:
        if (type == od::json_type::string) name_.assign(string_of(v));
        break;
      // Some versions write a process or a GPU stream as text ("stream 7"): a key like another.
      case EventKey::pid:
      case EventKey::tid: {
        uint64_t id = 0;
        if (type == od::json_type::string)
          id = std::hash<std::string_view>{}(string_of(v));
        else if (type == od::json_type::number)
          id = static_cast<uint64_t>(integer_of(number_text(v)));
        (key == EventKey::pid ? pid_ : tid_) = id;
        break;
      }
      case EventKey::id:
        if (type == od::json_type::string)
          id_ = static_cast<int64_t>(std::hash<std::string_view>{}(string_of(v)) >> 1);
        else if (type == od::json_type::number)
          id_ = integer_of(number_text(v));
        break;
      case EventKey::ts:
        if (type == od::json_type::number) {
          ts_ns_ = microseconds_text_to_ns(number_text(v));
          has_ts_ = true;
          // The origin is a time within the limits (an event past them is refused if it is read
          // at all), so that every time kept stays within 64 bits of it.
          if (!origin_set_ && !timestamp_problem(static_cast<double>(ts_ns_), "ts")) {
            origin_set_ = true;
            origin_ns_ = ts_ns_;
          }
        }
        break;
      case EventKey::dur:
        if (type == od::json_type::number) {
          dur_ns_ = number_of(number_text(v)) * 1000.0;
          has_dur_ = true;
        }
        break;
      case EventKey::args:
        if (type == od::json_type::object) read_args(v);
        break;
      case EventKey::other:
        break;
    }
  }
  finish_event(offset);
}

void KinetoReader::read_args(od::value args) {
  for (auto field : args.get_object()) {
    const ArgKey key = arg_key(field.key());
    if (key == ArgKey::other) continue;
    od::value v = field.value();
    const od::json_type type = v.type();
    switch (key) {
      case ArgKey::correlation:
      case ArgKey::device:
      case ArgKey::stream:
      case ArgKey::shared_memory:
      case ArgKey::registers: {
        if (type != od::json_type::number) break;
        const int64_t n = integer_of(number_text(v));
        if (key == ArgKey::correlation) correlation_ = n;
        if (key == ArgKey::device) device_ = n;
        if (key == ArgKey::stream) stream_id_ = n;
        if (key == ArgKey::shared_memory) shared_memory_ = n;
        if (key == ArgKey::registers) registers_ = int32_of(n);
        break;
      }
      case ArgKey::grid:
        if (type == od::json_type::array) read_dims(v, grid_);
        break;
      case ArgKey::block:
        if (type == od::json_type::array) read_dims(v, block_);
        break;
      case ArgKey::input_dims:
        if (type != od::json_type::array) break;
        has_dims_ = true;
        for (od::value entry : v.get_array()) {
          // only arrays are shapes (as recorded: [] for a scalar or a non-tensor argument)
          if (entry.type() != od::json_type::array) continue;
          if (shapes_.size() <= shapes_used_) shapes_.emplace_back();
          std::vector<int64_t>& shape = shapes_[shapes_used_++];
          shape.clear();
          bool list = false;
          for (od::value d : entry.get_array()) {
            const od::json_type dim_type = d.type();
            // A TensorList argument ([[2, 3], [2, 3]]): no one shape; the operators read here
            // take tensors, so it is kept as a non-tensor argument.
            if (dim_type == od::json_type::array) list = true;
            if (!list && dim_type == od::json_type::number)
              shape.push_back(integer_of(number_text(d)));
          }
          if (list) shape.clear();
        }
        break;
      case ArgKey::input_type:
        if (type != od::json_type::array) break;
        for (od::value t : v.get_array()) {
          if (t.type() != od::json_type::string) continue;
          if (dtypes_.size() <= dtypes_used_) dtypes_.emplace_back();
          dtypes_[dtypes_used_++].assign(string_of(t));
        }
        break;
      case ArgKey::other:
        break;
    }
  }
}

uint32_t KinetoReader::intern_signature(uint64_t offset) {
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
  // Where the first event of this signature is, for a message about the operator (its repeats
  // are merged into it).
  op.line = stream_.where(offset).line;
  op.input_shapes.assign(shapes_.begin(), shapes_.begin() + static_cast<ptrdiff_t>(shapes_used_));
  op.input_dtypes.assign(dtypes_.begin(), dtypes_.begin() + static_cast<ptrdiff_t>(dtypes_used_));
  const auto index = static_cast<uint32_t>(signatures_.size());
  signatures_.push_back(std::move(op));
  signature_index_.emplace(signature_key_, index);
  return index;
}

void KinetoReader::finish_event(uint64_t offset) {
  if (ph_ == "X") {
    const EventKind kind = event_kind(cat_);
    if (kind == EventKind::other) return;
    if (!has_ts_ || (kind != EventKind::runtime && !has_dur_))
      fail(offset,
           fmt::format("a `{}` event '{}' without `{}`; expected `ts` and `dur` in microseconds",
                       cat_, name_, has_ts_ ? "dur" : "ts"));
    check_times(offset);
    if (kind == EventKind::memory) {
      ++memory_events_;
    } else if (kind == EventKind::kernel) {
      KernelRecord k;
      auto interned = kernel_name_ids_.find(name_);
      if (interned == kernel_name_ids_.end()) {
        interned =
            kernel_name_ids_.emplace(name_, static_cast<int32_t>(kernel_names_.size())).first;
        kernel_names_.push_back(name_);
      }
      k.name_id = interned->second;
      k.start_ns = relative(ts_ns_);
      k.duration_ns = dur_ns_;
      k.device = int32_of(device_ >= 0 ? device_ : static_cast<int64_t>(pid_ & 0x7fffffff));
      k.stream = stream_id_ >= 0 ? stream_id_ : static_cast<int64_t>(tid_);
      k.grid = grid_;
      k.block = block_;
      k.shared_memory = shared_memory_;
      k.registers = static_cast<int32_t>(registers_);
      k.correlation = correlation_;
      if (correlation_ < 0)
        kernel_flow_keys_.push_back(
            FlowKey{kernels_.size(), mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_))});
      kernels_.push_back(k);
    } else if (kind == EventKind::cpu_operator) {
      spans_.push_back(OperatorSpan{ts_ns_, ts_ns_ + static_cast<int64_t>(std::llround(dur_ns_)),
                                    thread(), intern_signature(offset)});
    } else if (kind == EventKind::runtime && correlation_ >= 0) {
      last_launch_ = LaunchRecord{correlation_, ts_ns_, thread()};
      launches_.push_back(last_launch_);
    }
  } else if ((ph_ == "s" || ph_ == "f") && is_launch_flow(cat_) && has_ts_ && id_ >= 0) {
    check_times(offset);
    // A flow ties a launch ("s", at the launch's ts on its thread) to a kernel ("f", at the
    // kernel's ts on its device and stream); its id is the correlation id in every version.
    // Kineto writes the flow's start right after its runtime call, with the same id, time and
    // thread: that one is not kept twice.
    if (ph_ == "s") {
      const LaunchRecord launch{id_, ts_ns_, thread()};
      if (launch.correlation != last_launch_.correlation || launch.ts_ns != last_launch_.ts_ns ||
          launch.thread != last_launch_.thread)
        launches_.push_back(launch);
    } else {
      flow_ends_.push_back(FlowEnd{mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_)), id_});
    }
  }
}

TraceEvents KinetoReader::assemble() {
  TraceEvents out;
  out.format = "kineto";
  out.file = stream_.path();
  out.device_name = first_device_name_;
  if (!schema_version_.empty()) out.tool_version = "Kineto schema " + schema_version_;

  // Launches by correlation id (a runtime call and its flow start say the same).
  std::sort(launches_.begin(), launches_.end(), [](const LaunchRecord& a, const LaunchRecord& b) {
    return a.correlation < b.correlation;
  });
  auto launch_of = [&](int64_t correlation) -> const LaunchRecord* {
    const auto it =
        std::lower_bound(launches_.begin(), launches_.end(), correlation,
                         [](const LaunchRecord& l, int64_t c) { return l.correlation < c; });
    return it != launches_.end() && it->correlation == correlation ? &*it : nullptr;
  };
  if (!kernel_flow_keys_.empty()) {
    std::sort(flow_ends_.begin(), flow_ends_.end(),
              [](const FlowEnd& a, const FlowEnd& b) { return a.key < b.key; });
    for (const FlowKey& flow : kernel_flow_keys_) {
      const auto it = std::lower_bound(flow_ends_.begin(), flow_ends_.end(), flow.key,
                                       [](const FlowEnd& f, uint64_t v) { return f.key < v; });
      if (it != flow_ends_.end() && it->key == flow.key) kernels_[flow.kernel].correlation = it->id;
    }
  }
  kernel_flow_keys_.release();
  flow_ends_.release();
  std::vector<TimePoint> points;
  std::vector<uint32_t> kernel_of_point;
  size_t without_launch = 0;
  for (size_t k = 0; k < kernels_.size(); ++k) {
    KernelRecord& kernel = kernels_[k];
    const LaunchRecord* launch = kernel.correlation >= 0 ? launch_of(kernel.correlation) : nullptr;
    if (!launch) {
      ++without_launch;
      continue;
    }
    kernel.launch_ns = static_cast<double>(relative(launch->ts_ns));
    kernel.launch_thread = launch->thread;
    points.push_back(TimePoint{kernel.launch_ns, launch->thread});
    kernel_of_point.push_back(static_cast<uint32_t>(k));
  }
  launches_.release();

  std::vector<TimeSpan> spans;
  spans.reserve(spans_.size());
  for (const OperatorSpan& s : spans_)
    spans.push_back(TimeSpan{static_cast<double>(relative(s.start_ns)),
                             static_cast<double>(relative(s.end_ns)), s.thread});
  const Enclosure enclosure = innermost_enclosing(spans, points);
  std::vector<TimeSpan>().swap(spans);
  std::vector<TimePoint>().swap(points);

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
  for (size_t p = 0; p < kernel_of_point.size(); ++p) {
    if (enclosure.point_span[p] < 0) {
      ++outside_operators;
      continue;
    }
    kernels_[kernel_of_point[p]].op =
        static_cast<int32_t>(emit(emit, static_cast<size_t>(enclosure.point_span[p])));
  }
  spans_.release();

  // The kernels at their exact count, from the records.
  out.kernels.reserve(kernels_.size());
  if (stream_.array_unclosed())
    out.notes.push_back(
        "the trace's array of events has no closing ']' (the Chrome trace format allows it, for "
        "a process that stopped while writing): read up to its last complete event");
  kernels_.drain([&](const KernelRecord& r) {
    TraceKernel& k = out.kernels.emplace_back();
    k.name_id = r.name_id;
    k.start_ns = static_cast<double>(r.start_ns);
    k.duration_ns = r.duration_ns;
    k.device = r.device;
    k.stream = r.stream;
    for (size_t i = 0; i < 3; ++i) {
      k.grid[i] = r.grid[i];
      k.block[i] = r.block[i];
    }
    k.shared_memory_bytes = r.shared_memory;
    k.registers_per_thread = r.registers;
    k.correlation_id = r.correlation;
    k.launch_ns = r.launch_ns;
    k.launch_thread = r.launch_thread;
    if (r.op >= 0) k.op = static_cast<size_t>(r.op);
  });
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
  ChromeTraceStream stream(path);
  KinetoReader reader(stream, progress);
  stream.read(reader, [&](double fraction) {
    if (progress && !progress("read", fraction)) throw TraceImportCancelled();
  });
  return reader.assemble();
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
