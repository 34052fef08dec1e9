#pragma once
// What every import writes through: all of it in one transaction, or none of it. Into an
// existing database that is ResultStore::write_all; a database that does not exist yet is built
// under a temporary name beside it and appears at `path` only once everything is in (a failure,
// a full disk or a kill leaves no database, no -wal and no -shm behind).
#include <functional>
#include <string>

namespace ts {

class ResultStore;

void import_into_store(const std::string& path, const std::function<void(ResultStore&)>& writes);

}  // namespace ts
