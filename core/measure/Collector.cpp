#include "measure/Collector.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/InputError.hpp"
#include "common/NameList.hpp"

namespace ts {

void CollectorRegistry::add(std::unique_ptr<Collector> collector) {
  if (find(collector->name()))
    throw std::invalid_argument("a collector named '" + collector->name() + "' is registered");
  collectors_.push_back(std::move(collector));
}

const Collector* CollectorRegistry::find(std::string_view name) const {
  for (const auto& c : collectors_)
    if (c->name() == name) return c.get();
  return nullptr;
}

const Collector& CollectorRegistry::get(std::string_view name, const std::string& where) const {
  if (const Collector* c = find(name)) return *c;
  throw InputError(
      SourceLocation{where, 0, 0},
      fmt::format("unknown collector '{}' (this build has: {})", name, join_names(names())));
}

std::vector<std::string> CollectorRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& c : collectors_) out.push_back(c->name());
  return out;
}

CollectorRegistry& collectors() {
  static CollectorRegistry registry;
  return registry;
}

}  // namespace ts
