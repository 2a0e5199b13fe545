// Runs the built tomowb-cli (TOMOWB_CLI_PATH, a compile definition of the CLI tests) with
// arguments and collects its exit code and its output (stdout and stderr together), for the CLI
// tests that drive the program as a user does.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace tomowb::test {

struct CliResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr
};

inline CliResult runCli(const std::string& args) {
  CliResult r;
  const std::string command = std::string(TOMOWB_CLI_PATH) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), int(buffer.size()), pipe) != nullptr) r.output += buffer.data();
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tomowb::test
