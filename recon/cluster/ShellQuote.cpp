#include "recon/cluster/ShellQuote.h"

#include <algorithm>
#include <cctype>

namespace tomowb::cluster {

std::string shellQuote(std::string_view word) {
  const auto safe = [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("_-./,:=+@%").find(char(c)) != std::string_view::npos;
  };
  if (!word.empty() && std::all_of(word.begin(), word.end(), safe)) return std::string(word);
  std::string quoted = "'";
  for (const char c : word) {
    if (c == '\'')
      quoted += "'\\''";
    else
      quoted += c;
  }
  return quoted + "'";
}

std::string shellCommand(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) {
    if (!line.empty()) line += ' ';
    line += shellQuote(w);
  }
  return line;
}

}  // namespace tomowb::cluster
