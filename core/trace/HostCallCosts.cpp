#include "trace/HostCallCosts.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "trace/NearestRank.hpp"

namespace ts {
namespace {

enum Kind { aten_op, gemm, fused_op, collective, autograd_node, view };

bool is_collective(std::string_view name) {
  return name.find("c10d::") != std::string_view::npos ||
         name.find("nccl") != std::string_view::npos ||
         name.find("record_param_comms") != std::string_view::npos;
}

bool is_autograd_node(std::string_view name) {
  return name.starts_with("autograd::engine::evaluate_function");
}

// A framework operator, as against an annotation (ProfilerStep#N, a user's record_function).
bool is_framework_op(std::string_view name) {
  return name.find("::") != std::string_view::npos || is_collective(name);
}

bool is_gemm_kernel(std::string_view name) {
  for (std::string_view part : {"gemm", "Gemm", "GEMM", "cutlass", "xmma", "cublas"})
    if (name.find(part) != std::string_view::npos) return true;
  return false;
}

std::pair<int64_t, int64_t> cpu_span_of(const RankTrace& rank, int64_t step) {
  if (step < 0) return {INT64_MIN, INT64_MAX};
  std::string steps;
  for (const TraceIteration& it : rank.iterations) {
    if (it.number == step) return {it.cpu_start_ns, it.cpu_end_ns};
    steps += (steps.empty() ? "" : ", ") + std::to_string(it.number);
  }
  throw std::out_of_range("rank " + std::to_string(rank.rank) + " has no ProfilerStep#" +
                          std::to_string(step) +
                          (steps.empty() ? "; it has no steps" : "; its steps: " + steps));
}

}  // namespace

HostCallCosts host_call_costs(const RankTrace& rank, int64_t step) {
  HostCallCosts out;
  out.rank = rank.rank;
  out.step = step;
  const auto [from, to] = cpu_span_of(rank, step);
  const size_t n = rank.ops.size();
  // Ops are in start order, so a parent comes before its children: each op's call (the
  // outermost framework op enclosing it, autograd nodes apart) is known when it is reached.
  std::vector<int32_t> call_of(n, -1);
  std::vector<char> node(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const CpuOperator& op = rank.ops[i];
    const std::string& name = rank.name_of(op.name);
    const int32_t parent_call = op.parent >= 0 ? call_of[static_cast<size_t>(op.parent)] : -1;
    node[i] = is_autograd_node(name) ? 1 : 0;
    if (parent_call >= 0)
      call_of[i] = parent_call;
    else if (!node[i] && is_framework_op(name))
      call_of[i] = static_cast<int32_t>(i);
  }
  // What each call launched: its kernels' names (a GEMM among them?) and whether any.
  std::vector<char> launched(n, 0), launched_gemm(n, 0);
  for (const GpuActivity& g : rank.gpu) {
    if (g.op < 0) continue;
    const int32_t c = call_of[static_cast<size_t>(g.op)];
    if (c < 0) continue;
    launched[static_cast<size_t>(c)] = 1;
    if (g.kind == GpuActivityKind::kernel && is_gemm_kernel(rank.name_of(g.name)))
      launched_gemm[static_cast<size_t>(c)] = 1;
  }
  std::array<std::vector<int64_t>, kProfiledHostCallKinds.size()> samples;
  std::vector<int64_t> launch_durations;
  // The launch calls of a call: on its thread inside its span (launches are in start order);
  // each one's duration is kept, their sum returned.
  auto take_launches = [&](const CpuOperator& call) {
    int64_t total = 0;
    auto it = std::lower_bound(rank.launches.begin(), rank.launches.end(), call.start_ns,
                               [](const LaunchCall& l, int64_t t) { return l.start_ns < t; });
    for (; it != rank.launches.end() && it->start_ns < call.end_ns; ++it)
      if (it->thread == call.thread) {
        launch_durations.push_back(it->end_ns - it->start_ns);
        total += launch_durations.back();
      }
    return total;
  };
  // An autograd node's own time: its span less that of the calls it ran.
  std::vector<int64_t> node_calls_ns(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const CpuOperator& op = rank.ops[i];
    if (call_of[i] != static_cast<int32_t>(i)) continue;
    if (op.parent >= 0 && node[static_cast<size_t>(op.parent)])
      node_calls_ns[static_cast<size_t>(op.parent)] += op.end_ns - op.start_ns;
    if (op.start_ns < from || op.start_ns >= to) continue;
    const std::string& name = rank.name_of(op.name);
    const int64_t own = op.end_ns - op.start_ns - take_launches(op);
    Kind kind = is_collective(name)          ? collective
                : !launched[i]               ? view
                : launched_gemm[i]           ? gemm
                : name.starts_with("aten::") ? aten_op
                                             : fused_op;
    samples[kind].push_back(std::max<int64_t>(0, own));
  }
  for (size_t i = 0; i < n; ++i) {
    const CpuOperator& op = rank.ops[i];
    if (!node[i] || op.start_ns < from || op.start_ns >= to) continue;
    const int64_t own = op.end_ns - op.start_ns - node_calls_ns[i];
    samples[autograd_node].push_back(std::max<int64_t>(0, own));
  }
  for (size_t k = 0; k < samples.size(); ++k) {
    std::vector<int64_t>& s = samples[k];
    std::sort(s.begin(), s.end());
    out.kinds[k] = {static_cast<int64_t>(s.size()), nearest_rank(s, 0.1), nearest_rank(s, 0.5),
                    nearest_rank(s, 0.9)};
  }
  std::sort(launch_durations.begin(), launch_durations.end());
  out.launch_calls = static_cast<int64_t>(launch_durations.size());
  out.launch_median_ns = nearest_rank(launch_durations, 0.5);
  return out;
}

}  // namespace ts
