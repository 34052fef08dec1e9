#include "common/YamlStructureCheck.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "common/InputError.hpp"

namespace ts {
namespace {

// Length of the UTF-8 sequence at `i`, or 0 when it is not a valid one (overlong forms,
// surrogates and code points above U+10FFFF are invalid, as in RFC 3629).
size_t utf8_sequence_length(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

// Offset of the first byte that does not start a valid UTF-8 sequence, or npos.
size_t first_invalid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t length = utf8_sequence_length(s, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string::npos;
}

// Counts, for every node, the nodes under it with aliases expanded. An anchored node's total is
// known at its end, so an alias adds a number instead of walking again: linear in the file.
class StructureCheck : public YAML::EventHandler {
 public:
  explicit StructureCheck(const std::string& file) : file_(file) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1)
      fail(mark,
           "a second YAML document starts here; expected one document per file (remove this "
           "`---` and what follows, or put it in its own file)");
  }
  void OnDocumentEnd() override {}

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    const size_t bad = first_invalid_utf8(value);
    if (bad != std::string::npos) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(value[bad]));
      fail(mark, "text is not valid UTF-8 (byte " + std::string(hex) + " at byte " +
                     std::to_string(bad + 1) + " of the value); expected UTF-8 text");
    }
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto found = anchored_nodes_.find(anchor);
    if (found == anchored_nodes_.end())
      fail(mark,
           "this alias refers to a node that contains it; expected an alias of a node that is "
           "already complete (a cycle has no end)");
    add(mark, found->second);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    count(mark, 1);
    open_.push_back({anchor, 1});  // joins its parent's count when it ends
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value style) override {
    OnSequenceStart(mark, tag, anchor, style);
  }
  void OnMapEnd() override { close(); }

 private:
  struct OpenCollection {
    YAML::anchor_t anchor;
    int64_t nodes;  // the collection and what is under it so far, aliases expanded
  };

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw InputError({file_, mark.line + 1, mark.column + 1}, message);
  }

  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (anchor) anchored_nodes_[anchor] = 1;
    add(mark, 1);
  }

  // `nodes` more nodes in the file. Every count stays at most the budget before the addition,
  // and so below 2 x budget after it: no overflow.
  void count(const YAML::Mark& mark, int64_t nodes) {
    total_ += nodes;
    if (total_ > kYamlNodeBudget)
      fail(mark, "more than " + std::to_string(kYamlNodeBudget) +
                     " YAML nodes with every alias expanded (this alias or node passes the "
                     "budget); expected a smaller file or fewer nested aliases");
  }

  // `nodes` more nodes inside the innermost open collection.
  void add(const YAML::Mark& mark, int64_t nodes) {
    count(mark, nodes);
    if (!open_.empty()) open_.back().nodes += nodes;
  }

  void close() {
    const OpenCollection done = open_.back();
    open_.pop_back();
    if (done.anchor) anchored_nodes_[done.anchor] = done.nodes;
    if (!open_.empty()) open_.back().nodes += done.nodes;
  }

  const std::string& file_;
  int documents_ = 0;
  int64_t total_ = 0;
  std::vector<OpenCollection> open_;
  std::unordered_map<YAML::anchor_t, int64_t> anchored_nodes_;  // only complete nodes
};

}  // namespace

void check_yaml_structure(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  StructureCheck check(file);
  try {
    while (parser.HandleNextDocument(check)) {
    }
  } catch (const YAML::Exception& e) {
    // A syntax error after the first document, which Load never read: the second document is
    // reported at its `---` before its content is parsed, so this is a fault of the first.
    throw InputError({file, e.mark.line + 1, e.mark.column + 1}, "invalid YAML: " + e.msg);
  }
}

}  // namespace ts
