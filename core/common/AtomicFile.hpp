#pragma once
// Writes a whole file or nothing: the text goes to `path.tmp`, which is renamed over `path` once
// complete, so a failure (or a crash) never leaves a half-written output. Throws InputError
// naming the path on failure, after removing the temporary file.
#include <string>

namespace ts {

void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace ts
