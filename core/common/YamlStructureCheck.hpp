#pragma once
// What yaml-cpp accepts but a tilescope input must not be, checked on the parser's events before
// any loader walks the tree:
// - more than one document: yaml-cpp's Load reads the first and silently drops the rest;
// - an alias that refers to a node containing it: the tree becomes a cycle and a walk never ends;
// - more nodes than kYamlNodeBudget once every alias is expanded: yaml-cpp shares an aliased
//   node, but every walk (loaders, canonical text, hashes) visits it once per use, so a file of a
//   few hundred bytes of nested aliases ("billion laughs") makes a walk of 10^9 nodes;
// - a scalar (name, key, text) that is not valid UTF-8: names end up in JSON and SQLite, which
//   need UTF-8, so the error belongs here, at the scalar's line, not in a JSON writer later.
#include <cstdint>
#include <string>

namespace ts {

// Well above every bundled file and the largest workload accepted (200,000 operators of about
// 15 nodes each is 3,000,000), and small enough to walk in seconds.
inline constexpr int64_t kYamlNodeBudget = 10'000'000;

// Throws InputError at the `---` of a second document, at the alias that passes the budget or
// closes a cycle, or at a scalar that is not UTF-8. `text` must be YAML that yaml-cpp parses.
void check_yaml_structure(const std::string& text, const std::string& file);

}  // namespace ts
