#include "fuzz/GeneratedSqlite.hpp"

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace ts::fuzz {
namespace {

// What one input may generate: the inputs libFuzzer makes are a few KB, so these only bound a
// hand-made one (and keep each run of a target short).
constexpr size_t kMaxTables = 32;
constexpr size_t kMaxColumns = 64;
constexpr size_t kMaxRows = 20'000;

std::string sql_name(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (size_t from = 0;;) {
    const size_t bar = line.find('|', from);
    out.push_back(line.substr(from, bar == std::string_view::npos ? line.npos : bar - from));
    if (bar == std::string_view::npos) return out;
    from = bar + 1;
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Binds one value as its text says: NULL, an integer, a real, a blob or text.
void bind_value(sqlite3_stmt* s, int at, std::string_view v) {
  if (v == "NULL") {
    sqlite3_bind_null(s, at);
    return;
  }
  int64_t i = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), i);
      !v.empty() && ec == std::errc() && end == v.data() + v.size()) {
    sqlite3_bind_int64(s, at, i);
    return;
  }
  double d = 0;
  if (v == "inf" || v == "-inf" || v == "nan") {
    d = v == "nan" ? std::numeric_limits<double>::quiet_NaN()
                   : (v[0] == '-' ? -1 : 1) * std::numeric_limits<double>::infinity();
    sqlite3_bind_double(s, at, d);  // SQLite stores NaN as NULL
    return;
  }
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      !v.empty() && ec == std::errc() && end == v.data() + v.size()) {
    sqlite3_bind_double(s, at, d);
    return;
  }
  if (v.size() >= 3 && (v[0] == 'x' || v[0] == 'X') && v[1] == '\'' && v.back() == '\'') {
    std::string bytes;
    const std::string_view hex = v.substr(2, v.size() - 3);
    for (size_t k = 0; k + 1 < hex.size(); k += 2) {
      const int hi = hex_digit(hex[k]), lo = hex_digit(hex[k + 1]);
      if (hi < 0 || lo < 0) break;
      bytes += static_cast<char>(hi * 16 + lo);
    }
    sqlite3_bind_blob(s, at, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
    return;
  }
  sqlite3_bind_text(s, at, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

class Generator {
 public:
  Generator(sqlite3* db, const GeneratedTables& tables) : db_(db) {
    if (!tables.default_table.empty()) use(tables.default_table, tables.default_columns);
  }
  ~Generator() { sqlite3_finalize(insert_); }

  void line(std::string_view text) {
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (text.empty() || text.front() == '#') return;
    if (text.starts_with("@TABLE ") || text.starts_with("@VIEW ")) {
      const bool view = text.starts_with("@VIEW ");
      std::vector<std::string> w = words(text.substr(view ? 6 : 7));
      if (w.empty() || ++objects_ > kMaxTables) return finish_table();
      const std::string name = w.front();
      std::vector<std::string> columns(w.begin() + 1, w.end());
      if (columns.size() > kMaxColumns) columns.resize(kMaxColumns);
      if (columns.empty()) columns.push_back("value");
      std::string list;
      for (const std::string& c : columns) list += (list.empty() ? "" : ", ") + sql_name(c);
      if (view) {
        // Every column is the counter of a recursion that never stops.
        std::string values;
        for (size_t c = 0; c < columns.size(); ++c) values += (c ? ", n" : "n");
        exec("CREATE VIEW " + sql_name(name) + " (" + list +
             ") AS WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r) SELECT " +
             values + " FROM r");
        return finish_table();
      }
      exec("CREATE TABLE " + sql_name(name) + " (" + list + ")");
      use(name, columns);
      return;
    }
    if (!insert_ || ++rows_ > kMaxRows) return;
    const std::vector<std::string_view> values = fields(text);
    sqlite3_reset(insert_);
    sqlite3_clear_bindings(insert_);
    for (size_t c = 0; c < columns_ && c < values.size(); ++c)
      bind_value(insert_, static_cast<int>(c + 1), values[c]);
    sqlite3_step(insert_);  // a refused row (a constraint, a type) is not written
  }

 private:
  void exec(const std::string& sql) { sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr); }

  void finish_table() {
    sqlite3_finalize(insert_);
    insert_ = nullptr;
    columns_ = 0;
  }

  // The rows below go into `table`.
  void use(const std::string& table, const std::vector<std::string>& columns) {
    finish_table();
    if (columns.empty()) return;
    std::string list, marks;
    for (const std::string& c : columns) {
      list += (list.empty() ? "" : ", ") + sql_name(c);
      marks += marks.empty() ? "?" : ", ?";
    }
    const std::string sql =
        "INSERT INTO " + sql_name(table) + " (" + list + ") VALUES (" + marks + ")";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &insert_, nullptr) != SQLITE_OK) {
      sqlite3_finalize(insert_);
      insert_ = nullptr;
      return;
    }
    columns_ = columns.size();
  }

  sqlite3* db_;
  sqlite3_stmt* insert_ = nullptr;
  size_t columns_ = 0;
  size_t objects_ = 0;
  size_t rows_ = 0;
};

}  // namespace

void write_generated_sqlite(const std::string& path, const std::string& text,
                            const GeneratedTables& tables) {
  sqlite3* raw = nullptr;
  if (sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(raw);
    throw std::runtime_error("cannot create the generated database " + path);
  }
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  // Nothing here needs to survive a crash: the fastest writes.
  sqlite3_exec(raw, "PRAGMA synchronous = OFF; BEGIN", nullptr, nullptr, nullptr);
  {
    Generator generator(raw, tables);
    std::string_view rest(text);
    while (!rest.empty()) {
      const size_t end = rest.find('\n');
      generator.line(rest.substr(0, end));
      if (end == std::string_view::npos) break;
      rest.remove_prefix(end + 1);
    }
  }
  sqlite3_exec(raw, "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace ts::fuzz
