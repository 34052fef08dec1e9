#include "trace/KinetoRankTrace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include "common/CheckedArithmetic.hpp"
#include "common/InputError.hpp"
#include "trace/ChromeTraceStream.hpp"
#include "trace/ChromeTraceValues.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceInputLimits.hpp"

namespace ts {
namespace {

using namespace chrome_trace;

enum class EventKind { other, kernel, memcpy, memset, cpu_operator, runtime };
EventKind event_kind(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return EventKind::kernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return EventKind::memcpy;
  if (cat == "gpu_memset" || cat == "Memset") return EventKind::memset;
  if (cat == "cpu_op" || cat == "Operator" || cat == "user_annotation")
    return EventKind::cpu_operator;
  if (cat == "cuda_runtime" || cat == "Runtime" || cat == "cuda_driver") return EventKind::runtime;
  return EventKind::other;
}

constexpr std::string_view kStepPrefix = "ProfilerStep#";

struct FlowKernel {
  size_t activity = 0;
  uint64_t key = 0;  // mix of the kernel's pid, tid and ts: where its flow ends
};
struct FlowEnd {
  uint64_t key = 0;
  int64_t id = 0;
};

class KinetoRankReader final : public ChromeTraceVisitor {
 public:
  explicit KinetoRankReader(const ChromeTraceStream& stream)
      : stream_(stream), names_(rank_.names) {
    rank_.file = stream.path();
    rank_.format = "kineto";
    rank_.rank = -1;  // until distributedInfo says
  }

  void event(od::value value, uint64_t offset) override;
  bool wants(std::string_view key) const override {
    return key == "deviceProperties" || key == "distributedInfo";
  }
  void root_value(std::string_view key, od::value value) override;
  RankTrace finish();

 private:
  void read_args(od::value args);
  void finish_event(uint64_t offset);
  int64_t thread() const { return static_cast<int64_t>(mix(pid_, tid_)); }

  const ChromeTraceStream& stream_;
  RankTrace rank_;
  NameTable names_;

  std::string ph_, cat_, name_, dtype_;
  uint64_t pid_ = 0, tid_ = 0;
  int64_t ts_ns_ = 0, dur_ns_ = 0, id_ = -1;
  bool has_ts_ = false, has_dur_ = false;
  int64_t correlation_ = -1, device_ = -1, stream_id_ = -1, bytes_ = -1, nelems_ = -1;

  std::vector<CpuOperator> ops_;
  std::vector<TraceIteration> steps_;
  std::vector<int64_t> correlations_;  // of each GPU activity, -1 for none
  std::vector<FlowKernel> flow_kernels_;
  std::vector<FlowEnd> flow_ends_;
  std::unordered_map<int64_t, int32_t> launch_of_correlation_;
};

void KinetoRankReader::root_value(std::string_view key, od::value value) {
  if (value.type() != (key == "deviceProperties" ? od::json_type::array : od::json_type::object))
    return;
  if (key == "distributedInfo") {
    for (auto field : value.get_object()) {
      if (!field.key().value().unsafe_is_equal("rank")) continue;
      od::value r = field.value();
      if (r.type() == od::json_type::number) {
        rank_.rank = int32_of(integer_of(number_text(r)));
      }
    }
    return;
  }
  for (od::value device : value.get_array()) {
    if (device.type() != od::json_type::object) continue;
    for (auto field : device.get_object()) {
      if (!field.key().value().unsafe_is_equal("name")) continue;
      od::value name = field.value();
      if (name.type() == od::json_type::string && rank_.device_name.empty())
        rank_.device_name = std::string(string_of(name));
    }
    if (!rank_.device_name.empty()) break;
  }
}

void KinetoRankReader::event(od::value value, uint64_t offset) {
  if (value.type() != od::json_type::object) return;
  ph_.clear();
  cat_.clear();
  name_.clear();
  dtype_.clear();
  pid_ = tid_ = 0;
  ts_ns_ = dur_ns_ = 0;
  id_ = -1;
  has_ts_ = has_dur_ = false;
  correlation_ = device_ = stream_id_ = bytes_ = nelems_ = -1;
  for (auto field : value.get_object()) {
    const od::raw_json_string key = field.key();
    od::value v = field.value();
    const od::json_type type = v.type();
    const bool is_string = type == od::json_type::string;
    const bool is_number = type == od::json_type::number;
    if (key.unsafe_is_equal("ph")) {
      if (is_string) ph_.assign(string_of(v));
    } else if (key.unsafe_is_equal("cat")) {
      if (is_string) cat_.assign(string_of(v));
    } else if (key.unsafe_is_equal("name")) {
      if (is_string) name_.assign(string_of(v));
    } else if (key.unsafe_is_equal("pid") || key.unsafe_is_equal("tid")) {
      uint64_t id = 0;
      if (is_string) id = std::hash<std::string_view>{}(string_of(v));
      if (is_number) id = static_cast<uint64_t>(integer_of(number_text(v)));
      (key.unsafe_is_equal("pid") ? pid_ : tid_) = id;
    } else if (key.unsafe_is_equal("ts")) {
      if (is_number) {
        ts_ns_ = microseconds_text_to_ns(number_text(v));
        has_ts_ = true;
      }
    } else if (key.unsafe_is_equal("dur")) {
      if (is_number) {
        dur_ns_ = microseconds_text_to_ns(number_text(v));
        has_dur_ = true;
      }
    } else if (key.unsafe_is_equal("id")) {
      if (is_string) id_ = static_cast<int64_t>(std::hash<std::string_view>{}(string_of(v)) >> 1);
      if (is_number) id_ = integer_of(number_text(v));
    } else if (key.unsafe_is_equal("args")) {
      if (type == od::json_type::object) read_args(v);
    }
  }
  finish_event(offset);
}

void KinetoRankReader::read_args(od::value args) {
  for (auto field : args.get_object()) {
    const od::raw_json_string key = field.key();
    od::value v = field.value();
    const od::json_type type = v.type();
    if (type == od::json_type::string) {
      if (key.unsafe_is_equal("dtype")) dtype_.assign(string_of(v));
      continue;
    }
    if (type != od::json_type::number) continue;
    if (key.unsafe_is_equal("correlation"))
      correlation_ = integer_of(number_text(v));
    else if (key.unsafe_is_equal("stream"))
      stream_id_ = integer_of(number_text(v));
    else if (key.unsafe_is_equal("device"))
      device_ = integer_of(number_text(v));
    else if (key.unsafe_is_equal("bytes"))
      bytes_ = integer_of(number_text(v));
    else if (key.unsafe_is_equal("In msg nelems") || key.unsafe_is_equal("In msg size"))
      nelems_ = integer_of(number_text(v));
  }
}

void KinetoRankReader::finish_event(uint64_t offset) {
  if (ph_ == "X") {
    const EventKind kind = event_kind(cat_);
    if (kind == EventKind::other) return;
    if (!has_ts_ || !has_dur_)
      stream_.fail(offset, fmt::format("a `{}` event '{}' without `{}`; expected `ts` and `dur` "
                                       "in microseconds",
                                       cat_, name_, has_ts_ ? "dur" : "ts"));
    // The times every trace keeps (trace/TraceInputLimits.hpp): a duration in [0, 1e15] ns, a
    // timestamp within 4e18 ns, so that ts + dur stays within 64 bits.
    if (const auto problem = duration_problem(static_cast<double>(dur_ns_), "`dur` x 1000 ="))
      stream_.fail(offset, fmt::format("`{}` event '{}': {}", cat_, name_, *problem));
    if (const auto problem = timestamp_problem(static_cast<double>(ts_ns_), "`ts` x 1000 ="))
      stream_.fail(offset, fmt::format("`{}` event '{}': {}", cat_, name_, *problem));
    const std::optional<int64_t> message_product = nelems_ >= 0 && dtype_bytes(dtype_) > 0
                                                       ? checked_mul(nelems_, dtype_bytes(dtype_))
                                                       : std::optional<int64_t>(-1);
    if (!message_product)
      stream_.fail(offset, fmt::format("`{}` event '{}': a message of {} elements of {} passes "
                                       "64 bits of bytes; expected the size of a collective's "
                                       "message",
                                       cat_, name_, nelems_, dtype_));
    const int64_t message_bytes = *message_product;
    if (kind == EventKind::kernel || kind == EventKind::memcpy || kind == EventKind::memset) {
      GpuActivity a;
      a.start_ns = ts_ns_;
      a.end_ns = ts_ns_ + dur_ns_;
      a.name = names_.intern(name_);
      a.kind = kind == EventKind::kernel   ? GpuActivityKind::kernel
               : kind == EventKind::memcpy ? GpuActivityKind::memcpy
                                           : GpuActivityKind::memset;
      a.time_class = classify_gpu_activity(a.kind, name_);
      a.device = int32_of(device_ >= 0 ? device_ : static_cast<int64_t>(pid_ & 0x7fffffff));
      a.stream = stream_id_ >= 0 ? stream_id_ : static_cast<int64_t>(tid_);
      a.bytes = a.kind == GpuActivityKind::kernel ? message_bytes : bytes_;
      if (correlation_ < 0)
        flow_kernels_.push_back(
            FlowKernel{rank_.gpu.size(), mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_))});
      correlations_.push_back(correlation_);  // the launch is found once all are read
      rank_.gpu.push_back(a);
    } else if (kind == EventKind::cpu_operator) {
      CpuOperator op;
      op.start_ns = ts_ns_;
      op.end_ns = ts_ns_ + dur_ns_;
      op.name = names_.intern(name_);
      op.thread = thread();
      op.bytes = message_bytes;
      ops_.push_back(op);
      if (std::string_view(name_).substr(0, kStepPrefix.size()) == kStepPrefix) {
        TraceIteration step;
        step.number = std::atoll(name_.c_str() + kStepPrefix.size());
        step.cpu_start_ns = op.start_ns;
        step.cpu_end_ns = op.end_ns;
        steps_.push_back(step);
      }
    } else if (kind == EventKind::runtime && correlation_ >= 0) {
      launch_of_correlation_[correlation_] = static_cast<int32_t>(rank_.launches.size());
      rank_.launches.push_back(
          LaunchCall{ts_ns_, ts_ns_ + dur_ns_, names_.intern(name_), thread(), correlation_});
    }
  } else if ((ph_ == "s" || ph_ == "f") && (cat_ == "ac2g" || cat_ == "async_cpu_to_gpu") &&
             has_ts_ && id_ >= 0) {
    // A flow's id is the correlation id in every version; its start is at the launch's time on
    // the launching thread (Kineto writes it right after the runtime call it starts from), its
    // end at the kernel's time on the kernel's stream.
    if (ph_ == "s") {
      if (!launch_of_correlation_.count(id_)) {
        launch_of_correlation_[id_] = static_cast<int32_t>(rank_.launches.size());
        rank_.launches.push_back(
            LaunchCall{ts_ns_, ts_ns_, names_.intern("(launch)"), thread(), id_});
      }
    } else {
      flow_ends_.push_back(FlowEnd{mix(mix(pid_, tid_), static_cast<uint64_t>(ts_ns_)), id_});
    }
  }
}

RankTrace KinetoRankReader::finish() {
  if (!flow_kernels_.empty()) {
    std::sort(flow_ends_.begin(), flow_ends_.end(),
              [](const FlowEnd& a, const FlowEnd& b) { return a.key < b.key; });
    for (const FlowKernel& k : flow_kernels_) {
      const auto it = std::lower_bound(flow_ends_.begin(), flow_ends_.end(), k.key,
                                       [](const FlowEnd& f, uint64_t v) { return f.key < v; });
      if (it != flow_ends_.end() && it->key == k.key) correlations_[k.activity] = it->id;
    }
  }
  size_t without_launch = 0;
  for (size_t i = 0; i < rank_.gpu.size(); ++i) {
    const auto found = correlations_[i] >= 0 ? launch_of_correlation_.find(correlations_[i])
                                             : launch_of_correlation_.end();
    if (found == launch_of_correlation_.end()) {
      ++without_launch;
      continue;
    }
    rank_.gpu[i].launch = found->second;
  }
  rank_.ops = std::move(ops_);
  finish_rank_trace(rank_, std::move(steps_));
  if (rank_.gpu.empty())
    rank_.notes.push_back(
        "the trace has no GPU activity (`ph: X` events of `cat: kernel`, "
        "`gpu_memcpy` or `gpu_memset`)");
  if (without_launch)
    rank_.notes.push_back(fmt::format(
        "{} of {} GPU activities have no launch in the trace (no correlation id or flow to a "
        "runtime call): launch statistics and host-bound idle leave them out",
        without_launch, rank_.gpu.size()));
  if (rank_.iterations.empty())
    rank_.notes.push_back("no ProfilerStep#N markers: the whole trace is one window");
  if (stream_.array_unclosed())
    rank_.notes.push_back(
        "the trace's array of events has no closing ']' (the Chrome trace format allows it, for "
        "a process that stopped while writing): read up to its last complete event");
  return std::move(rank_);
}

}  // namespace

int64_t dtype_bytes(std::string_view dtype) {
  if (dtype.substr(0, 5) == "c10::") dtype.remove_prefix(5);
  static const std::array<std::pair<std::string_view, int64_t>, 22> kSizes{{
      {"Float", 4},         {"float", 4},       {"float32", 4}, {"Half", 2},   {"float16", 2},
      {"BFloat16", 2},      {"bfloat16", 2},    {"Double", 8},  {"double", 8}, {"float64", 8},
      {"Int", 4},           {"int", 4},         {"int32", 4},   {"Long", 8},   {"int64", 8},
      {"Byte", 1},          {"Char", 1},        {"Bool", 1},    {"uint8", 1},  {"int8", 1},
      {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
  }};
  for (const auto& [name, size] : kSizes)
    if (name == dtype) return size;
  return 0;
}

RankTrace read_kineto_rank_trace(const std::string& path,
                                 const std::function<bool(double)>& progress) {
  ChromeTraceStream stream(path);
  KinetoRankReader reader(stream);
  stream.read(reader, [&](double fraction) {
    if (progress && !progress(fraction)) throw TraceImportCancelled();
  });
  return reader.finish();
}

}  // namespace ts
