#include "training/PipelineOrder.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ts {

namespace {

// Megatron-LM's interleaved order: the k-th forward (or backward) step of a device works on
// micro-batch (k / (p v)) p + k % p of chunk (k % (p v)) / p (reversed for backward).
PipelineStep interleaved_step(PassKind kind, int64_t k, int64_t p, int64_t v) {
  const int64_t group = k % (p * v);
  int64_t chunk = group / p;
  if (kind == PassKind::backward) chunk = v - 1 - chunk;
  return {kind, (k / (p * v)) * p + k % p, chunk};
}

}  // namespace

std::vector<std::vector<PipelineStep>> pipeline_order(PipelineSchedule schedule, int64_t p,
                                                      int64_t m, int64_t v) {
  if (p < 1 || m < 1 || v < 1) throw std::invalid_argument("pipeline sizes must be positive");
  if (schedule != PipelineSchedule::interleaved && v != 1)
    throw std::invalid_argument("only the interleaved schedule runs several chunks per device");
  if (schedule == PipelineSchedule::interleaved && v > 1 && m % p != 0)
    throw std::invalid_argument(
        "the interleaved schedule needs a multiple of the stage count "
        "of micro-batches");
  std::vector<std::vector<PipelineStep>> order(static_cast<size_t>(p));
  for (int64_t s = 0; s < p; ++s) {
    auto& steps = order[static_cast<size_t>(s)];
    if (schedule == PipelineSchedule::gpipe) {
      for (int64_t mb = 0; mb < m; ++mb) steps.push_back({PassKind::forward, mb, 0});
      for (int64_t mb = 0; mb < m; ++mb) steps.push_back({PassKind::backward, mb, 0});
      continue;
    }
    const int64_t total = m * v;
    int64_t warmup = v == 1 ? p - s - 1 : (p - s - 1) * 2 + (v - 1) * p;
    warmup = std::min(warmup, total);
    const int64_t steady = total - warmup;
    for (int64_t k = 0; k < warmup; ++k)
      steps.push_back(interleaved_step(PassKind::forward, k, p, v));
    for (int64_t i = 0; i < steady; ++i) {
      steps.push_back(interleaved_step(PassKind::forward, warmup + i, p, v));
      steps.push_back(interleaved_step(PassKind::backward, i, p, v));
    }
    for (int64_t k = steady; k < total; ++k)
      steps.push_back(interleaved_step(PassKind::backward, k, p, v));
  }
  return order;
}

TaskGraph pipeline_task_graph(PipelineSchedule schedule, int64_t p, int64_t m, int64_t v,
                              double forward_s, double backward_s, double transfer_s,
                              double activation_bytes) {
  const auto order = pipeline_order(schedule, p, m, v);
  TaskGraph g;
  for (int64_t s = 0; s < p; ++s) g.add_stream();
  // Links between neighbouring devices, one stream per direction (device s to s+1 mod p, and
  // back), so that activations and gradients do not queue behind each other.
  std::vector<int> down(static_cast<size_t>(p)), up(static_cast<size_t>(p));
  if (transfer_s > 0)
    for (int64_t s = 0; s < p; ++s) {
      down[static_cast<size_t>(s)] = g.add_stream();
      up[static_cast<size_t>(s)] = g.add_stream();
    }
  // Create tasks stream by stream in order, but dependencies point across streams, so collect
  // ids first and wire them afterwards.
  using Key = std::tuple<int, int64_t, int64_t>;  // kind, micro-batch, virtual stage
  std::map<Key, int> id_of;
  for (int64_t s = 0; s < p; ++s)
    for (const PipelineStep& step : order[static_cast<size_t>(s)]) {
      const int64_t vs = step.chunk * p + s;
      Task t;
      t.stream = static_cast<int>(s);
      t.duration_s = step.kind == PassKind::forward ? forward_s : backward_s;
      t.memory_bytes = step.kind == PassKind::forward ? activation_bytes : -activation_bytes;
      t.device = static_cast<int>(s);
      t.label = std::string(step.kind == PassKind::forward ? "F" : "B") + " mb" +
                std::to_string(step.micro_batch) + " c" + std::to_string(step.chunk) + " s" +
                std::to_string(s);
      id_of[{static_cast<int>(step.kind), step.micro_batch, vs}] = g.add(std::move(t));
    }
  const int64_t last = v * p - 1;
  for (const auto& [key, id] : id_of) {
    const auto [kind, mb, vs] = key;
    const bool forward = kind == static_cast<int>(PassKind::forward);
    int before = -1;
    int64_t from = -1;  // virtual stage the input comes from
    if (forward && vs > 0) from = vs - 1;
    if (!forward && vs < last) from = vs + 1;
    if (from >= 0) before = id_of.at({kind, mb, from});
    if (!forward && vs == last) before = id_of.at({static_cast<int>(PassKind::forward), mb, vs});
    if (before < 0) continue;
    const int64_t src = from >= 0 ? from % p : vs % p, dst = vs % p;
    if (transfer_s > 0 && src != dst) {
      Task x;
      x.stream = forward ? down[static_cast<size_t>(src)] : up[static_cast<size_t>(src)];
      x.duration_s = transfer_s;
      x.device = static_cast<int>(src);  // the sender's, for interference with its compute
      x.transfer = true;
      x.after = {before};
      x.label = std::string(forward ? "send act" : "send grad") + " mb" + std::to_string(mb) +
                " vs" + std::to_string(from);
      before = g.add(std::move(x));
    }
    g.tasks[static_cast<size_t>(id)].after.push_back(before);
  }
  // A link sends in the order its device produces: sort each link's queue by its producer's
  // place in the device's order (tasks were created in that order, so by producer id).
  for (int st = static_cast<int>(p); st < g.streams; ++st) {
    auto& queue = g.order[static_cast<size_t>(st)];
    std::sort(queue.begin(), queue.end(), [&](int a, int b) {
      return g.tasks[static_cast<size_t>(a)].after.front() <
             g.tasks[static_cast<size_t>(b)].after.front();
    });
  }
  return g;
}

}  // namespace ts
