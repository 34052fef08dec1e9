#include "profile/ProfileCostHooks.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "arch/CostHooks.hpp"
#include "common/InputError.hpp"
#include "profile/CodePlugin.hpp"
#include "profile/PluginCall.hpp"
#include "profile/ProfileRegistry.hpp"

namespace ts {
namespace {

// One plugin hook, for the life of the process: the graphs that name it hold its address.
struct PluginHookRecord {
  std::string library;
  std::string name;
  std::string what;  // "its cost hook NAME", for a crash inside it (PluginCall)
  // Set once the library is open in this process; `user` is stored before `seconds`.
  std::atomic<TilescopeComputeSeconds> seconds{nullptr};
  std::atomic<const void*> user{nullptr};
};

struct HookRecords {
  std::mutex mutex;
  // By library and hook name; never removed (graphs hold their addresses).
  std::map<std::pair<std::string, std::string>, std::unique_ptr<PluginHookRecord>> by_key;
};

HookRecords& hook_records() {
  static HookRecords records;
  return records;
}

std::string describe_call(const TilescopeComputeTile& t) {
  if (t.op_class == TILESCOPE_OP_MATMUL)
    return fmt::format("a matmul call of {} x {} x {} (batch {})", t.m, t.n, t.k, t.batch);
  return fmt::format("a vector call of {} elements (batch {})", t.elements, t.batch);
}

double checked_answer(double seconds, const std::string& library, const std::string& hook,
                      const TilescopeComputeTile* call) {
  if (std::isfinite(seconds) && seconds >= 0) return seconds;
  const std::string answer = std::isnan(seconds)   ? "NaN"
                             : std::isinf(seconds) ? (seconds > 0 ? "infinity" : "-infinity")
                                                   : fmt::format("{:g} (negative)", seconds);
  throw InputError(SourceLocation{library, 0, 0},
                   fmt::format("cost hook {} of this plugin answered {} seconds{}; a hook must "
                               "answer a finite time of at least 0 (arch/ComputeCostHook.h)",
                               hook, answer, call ? " for " + describe_call(*call) : ""));
}

// What every plugin hook is registered as: opens the library on the first call, calls the
// plugin's function under a PluginCall and checks its answer.
double plugin_hook_seconds(const TilescopeComputeTile* tile, const void* user) {
  const auto* record = static_cast<const PluginHookRecord*>(user);
  TilescopeComputeSeconds seconds = record->seconds.load(std::memory_order_acquire);
  if (seconds == nullptr) {
    try {
      load_plugin_cost_hooks(record->library);
    } catch (const ProfileLoadError& e) {
      throw InputError(SourceLocation{record->library, 0, 0},
                       "cost hook " + record->name + ": the plugin did not load: " + e.problem());
    }
    seconds = record->seconds.load(std::memory_order_acquire);
    if (seconds == nullptr)
      throw InputError(SourceLocation{record->library, 0, 0},
                       "the plugin no longer provides cost hook " + record->name +
                           " (it changed since it was checked)");
  }
  double answer = 0;
  {
    const PluginCall call(record->library, record->what, false);
    answer = seconds(tile, record->user.load(std::memory_order_acquire));
  }
  return checked_answer(answer, record->library, record->name, tile);
}

// Every name usable, none twice, none another provider's: checked before anything is registered.
void check_hook_names(const std::string& library, const std::vector<std::string>& names) {
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (!is_profile_name(name))
      throw ProfileLoadError(library, fmt::format("cost hook {} has no usable name ('{}'; letters, "
                                                  "digits, '-', '_' and '.')",
                                                  i, name));
    if (!seen.insert(name).second)
      throw ProfileLoadError(library, fmt::format("cost hook {} appears twice", name));
    if (const auto known = find_registered_cost_hook(name); known && known->provider != library)
      throw ProfileLoadError(
          library, fmt::format("cost hook {} is already provided by {}", name, known->provider));
  }
}

PluginHookRecord& record_of(const std::string& library, const std::string& name) {
  HookRecords& records = hook_records();
  std::lock_guard lock(records.mutex);
  std::unique_ptr<PluginHookRecord>& slot = records.by_key[{library, name}];
  if (!slot) {
    slot = std::make_unique<PluginHookRecord>();
    slot->library = library;
    slot->name = name;
    slot->what = "its cost hook " + name;
  }
  return *slot;
}

void register_record(PluginHookRecord& record) {
  try {
    register_cost_hook({record.name, plugin_hook_seconds, &record, record.library});
  } catch (const std::invalid_argument& e) {  // another provider registered it meanwhile
    throw ProfileLoadError(record.library, e.what());
  }
}

}  // namespace

void provide_cost_hooks_from_profiles() {
  // Discovering the profiles declares every checked plugin's hooks; no library is opened.
  set_cost_hook_provider([] { (void)installed_profiles(); });
}

void declare_plugin_cost_hooks(const std::string& library, const std::vector<std::string>& names) {
  check_hook_names(library, names);
  for (const std::string& name : names) register_record(record_of(library, name));
}

void provide_plugin_cost_hooks(const std::string& library,
                               const std::vector<PluginHookFunction>& hooks) {
  std::vector<std::string> names;
  for (const PluginHookFunction& h : hooks) {
    names.push_back(h.name);
    if (h.seconds == nullptr)
      throw ProfileLoadError(library, fmt::format("cost hook {} has no function", h.name));
  }
  check_hook_names(library, names);
  for (const PluginHookFunction& h : hooks) {
    PluginHookRecord& record = record_of(library, h.name);
    record.user.store(h.user, std::memory_order_release);
    record.seconds.store(h.seconds, std::memory_order_release);
    register_record(record);
  }
}

double checked_cost_hook_answer(double seconds, const std::string& library,
                                const std::string& hook) {
  return checked_answer(seconds, library, hook, nullptr);
}

}  // namespace ts
