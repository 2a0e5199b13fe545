// Shell quoting for the command lines the cluster client writes into sbatch scripts and hands to
// ssh (which passes its command to the remote login shell as one string): every word is quoted
// so that no path, name or parameter is ever read as shell syntax.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tomowb::cluster {

// The word as one POSIX shell word: unchanged when it has only safe characters
// (A-Z a-z 0-9 and _ - . / , : = + @ %), else in single quotes with each ' written as '\''.
// The empty word is ''.
std::string shellQuote(std::string_view word);

// The words quoted and joined by spaces: a command line a POSIX shell runs as these words.
std::string shellCommand(const std::vector<std::string>& words);

}  // namespace tomowb::cluster
