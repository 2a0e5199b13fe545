// ExternalCommand: runs a program (sbatch, squeue, sacct, scancel, ssh, scp) with an argument
// vector, never through a shell, with a time limit; collects its exit status, stdout and stderr.
// posix_spawnp, so it is safe from any thread of a multi-threaded program (the window's worker).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tomowb::cluster {

struct CommandResult {
  std::vector<std::string> argv;
  int exitCode = -1;      // -1: it did not start, or a signal ended it
  bool started = false;   // false: the program was not found or could not run (see error)
  bool timedOut = false;  // killed at the time limit
  std::string out, err;
  std::string error;  // why it did not start ("sbatch: No such file or directory")

  bool ok() const noexcept { return started && !timedOut && exitCode == 0; }
  // "sbatch (exit 1): sbatch: error: invalid partition specified: nope": the program, what
  // happened and its stderr (trimmed), for error messages.
  std::string describe() const;
};

struct CommandOptions {
  std::chrono::milliseconds timeout{30000};
  std::string input;                 // written to its stdin (then closed)
  std::filesystem::path workFolder;  // empty: this process's
};

// Never throws for a program that fails, is missing or times out: the result says so.
CommandResult runExternalCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options = {});

}  // namespace tomowb::cluster
