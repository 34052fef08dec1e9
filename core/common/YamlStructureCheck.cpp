#include "common/YamlStructureCheck.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <sstream>
#include <unordered_map>
#include <vector>

#include "common/InputError.hpp"
#include "common/Utf8.hpp"

namespace ts {
namespace {

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
    if (bad != std::string::npos)
      fail(mark, "text " + utf8_fault(value, bad) + "; expected UTF-8 text");
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
