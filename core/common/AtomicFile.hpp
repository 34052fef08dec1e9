#pragma once
// Writes a whole file or nothing: the content goes to a temporary beside `path` (a unique name,
// so that two writers never share one), every write and the final fsync are checked, and only
// then is it renamed over `path`; a failure (a full disk, a size limit, a crash) never leaves a
// half-written output, an earlier file at `path` stays as it was, and the temporary is removed.
// Throws InputError naming the path and the system's reason. Every output tilescope writes
// goes through here.
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ts {

void write_file_atomically(const std::string& path, const std::string& text);

// For writers that stream: `write` fills the content. An exception from it propagates and
// nothing is written; the file at `path` is untouched.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

// A set of files that belong together (the mappings of one command): every temporary is
// written first, and only when all succeeded are they renamed into place; a failure leaves none
// of the new files and no temporary.
void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files);

// `name` made safe as one file name inside a folder: path separators, control characters and
// anything but letters, digits and . _ + - become '_', and leading dots are dropped (so a name
// cannot climb out with "..", hide, or be empty).
std::string safe_file_name(const std::string& name);

}  // namespace ts
