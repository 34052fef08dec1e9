#include "measure/ImportTransaction.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/InputError.hpp"
#include "common/NewFileBeside.hpp"
#include "measure/ResultStore.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

void remove_database_files(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
}

}  // namespace

void import_into_store(const std::string& path, const std::function<void(ResultStore&)>& writes) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    ResultStore store(path, ResultStore::Mode::read_write);
    store.write_all([&] { writes(store); });
    return;
  }
  if (auto parent = fs::path(path).parent_path(); !parent.empty()) {
    fs::create_directories(parent, ec);
    if (ec)
      throw InputError(SourceLocation{path, 0, 0},
                       fmt::format("cannot make its folder: {}", ec.message()));
  }
  // 0666 less the umask, as SQLite creates a database (common/NewFileBeside).
  const NewFileBeside created = create_file_beside(path, "cannot create the database");
  ::close(created.fd);  // an empty file: the store adopts it
  const std::string& temporary = created.path;
  try {
    {
      ResultStore store(temporary, ResultStore::Mode::read_write);
      store.write_all([&] { writes(store); });
      store.fold_into_one_file();
    }
    // link, not rename: a database someone created at `path` meanwhile is never replaced.
    if (::link(temporary.c_str(), path.c_str()) != 0) {
      if (errno != EEXIST)
        throw InputError(SourceLocation{path, 0, 0},
                         fmt::format("cannot create the database: {}", std::strerror(errno)));
      // Another import created it first (four imports started at once into a new database):
      // theirs is whole (it was linked complete), so this run is added to it as to any existing
      // database, waiting on its lock like every writer.
      remove_database_files(temporary);
      ResultStore store(path, ResultStore::Mode::read_write);
      store.write_all([&] { writes(store); });
      return;
    }
    ::unlink(temporary.c_str());
  } catch (const InputError& e) {
    remove_database_files(temporary);
    // The temporary is ours, not the person's: an error in it (a full disk) names the database
    // they asked for, which is what does not appear.
    if (e.where().file != temporary) throw;
    throw InputError(SourceLocation{path, e.where().line, e.where().column}, e.message());
  } catch (...) {
    remove_database_files(temporary);
    throw;
  }
}

}  // namespace ts
