#include "arch/CostHooks.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

#include "common/DataType.hpp"

namespace ts {

// The C constants a plugin compares with are these enums' values.
static_assert(static_cast<uint32_t>(OpClass::matmul) == TILESCOPE_OP_MATMUL);
static_assert(static_cast<uint32_t>(OpClass::elementwise) == TILESCOPE_OP_ELEMENTWISE);
static_assert(static_cast<uint32_t>(OpClass::reduction) == TILESCOPE_OP_REDUCTION);
static_assert(static_cast<uint32_t>(OpClass::lookup) == TILESCOPE_OP_LOOKUP);
static_assert(static_cast<uint32_t>(DataType::fp32) == TILESCOPE_DTYPE_FP32);
static_assert(static_cast<uint32_t>(DataType::fp16) == TILESCOPE_DTYPE_FP16);
static_assert(static_cast<uint32_t>(DataType::bf16) == TILESCOPE_DTYPE_BF16);
static_assert(static_cast<uint32_t>(DataType::fp8) == TILESCOPE_DTYPE_FP8);
static_assert(static_cast<uint32_t>(DataType::int8) == TILESCOPE_DTYPE_INT8);
static_assert(static_cast<uint32_t>(DataType::int16) == TILESCOPE_DTYPE_INT16);
static_assert(static_cast<uint32_t>(DataType::int32) == TILESCOPE_DTYPE_INT32);

namespace {

struct HookTable {
  std::mutex mutex;
  std::map<std::string, ComputeCostHook> hooks;
  void (*provider)() = nullptr;
  bool provided = false;
};

HookTable& table() {
  static HookTable t;
  return t;
}

}  // namespace

void register_cost_hook(const ComputeCostHook& hook) {
  if (hook.seconds == nullptr)
    throw std::invalid_argument("cost hook '" + hook.name + "' has no function");
  HookTable& t = table();
  std::lock_guard lock(t.mutex);
  const auto [it, added] = t.hooks.emplace(hook.name, hook);
  if (!added && it->second.provider != hook.provider)
    throw std::invalid_argument("cost hook '" + hook.name + "' is already provided by " +
                                it->second.provider);
}

std::optional<ComputeCostHook> find_cost_hook(const std::string& name) {
  HookTable& t = table();
  void (*provider)() = nullptr;
  {
    std::lock_guard lock(t.mutex);
    if (auto it = t.hooks.find(name); it != t.hooks.end()) return it->second;
    if (t.provided || t.provider == nullptr) return std::nullopt;
    t.provided = true;
    provider = t.provider;
  }
  provider();  // outside the lock: it registers hooks
  std::lock_guard lock(t.mutex);
  if (auto it = t.hooks.find(name); it != t.hooks.end()) return it->second;
  return std::nullopt;
}

std::optional<ComputeCostHook> find_registered_cost_hook(const std::string& name) {
  HookTable& t = table();
  std::lock_guard lock(t.mutex);
  if (auto it = t.hooks.find(name); it != t.hooks.end()) return it->second;
  return std::nullopt;
}

std::vector<ComputeCostHook> known_cost_hooks() {
  HookTable& t = table();
  std::lock_guard lock(t.mutex);
  std::vector<ComputeCostHook> all;
  for (const auto& [name, hook] : t.hooks) all.push_back(hook);
  return all;
}

void set_cost_hook_provider(void (*provider)()) {
  HookTable& t = table();
  std::lock_guard lock(t.mutex);
  t.provider = provider;
  t.provided = false;
}

}  // namespace ts
