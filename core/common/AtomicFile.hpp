#pragma once
// Writes a whole file or nothing: the content goes to `path.tmp`, which is renamed over `path`
// once complete, so a failure (or a crash) never leaves a half-written output and an earlier
// file at `path` stays as it was. Throws InputError naming the path on failure, after removing
// the temporary file. Every output tilescope writes goes through here.
#include <functional>
#include <ostream>
#include <string>

namespace ts {

void write_file_atomically(const std::string& path, const std::string& text);

// For writers that stream: `write` fills the temporary file. An exception from it removes the
// temporary and propagates; the file at `path` is untouched.
void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace ts
