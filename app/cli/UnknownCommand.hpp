#pragma once
// `tilescope X` where X is no command. CLI11 reads the word as a stray argument and says "A
// subcommand is required", which hides the typo; this says what was typed, what is there, and
// the nearest command when one is a slip of the keys away.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::cli {

// `tilescope: unknown command 'X' (commands: a, b, ...)`, with `; did you mean 'Y'?` when Y is
// within two edits of X (or X begins it); nullopt when `word` is one of `commands`.
std::optional<std::string> unknown_command_text(std::string_view word,
                                                const std::vector<std::string>& commands);

}  // namespace ts::cli
