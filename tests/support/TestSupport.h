// Helpers shared by the tests: fresh random inputs, temporary folders, GPU skipping.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace tomowb::test {

// A fresh seed per run (printed by the test so a failure can be replayed with
// TOMOWB_TEST_SEED=<n>).
std::uint64_t randomSeed();

// A temporary folder removed when the object goes out of scope.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const noexcept { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// True if a CUDA device is usable in this process.
bool gpuAvailable();

// A program for startProgram to start.
struct ProgramLaunch {
  std::string program;                   // its path, also its argv[0]
  std::vector<std::string> arguments;    // argv[1..]
  std::vector<std::string> environment;  // "NAME=value" entries added to ours (replacing NAME's)
  std::filesystem::path folder;          // its working folder; ours when empty
  std::filesystem::path stdoutPath;      // its stdout into this file (truncated; a relative
                                         // path from `folder`); ours when empty
  std::filesystem::path stderrPath;      // its stderr likewise; stdoutPath's file when the same
  unsigned alarmSeconds = 0;             // SIGALRM after that long (survives exec); 0: none
  std::uint64_t fileSizeLimit = 0;       // RLIMIT_FSIZE, with SIGXFSZ ignored; 0: none
};

// Starts `launch` (fork and exec) and returns its pid; wait with waitForChild. Everything the
// child needs is made before the fork, and between fork and exec it makes async-signal-safe calls
// only: a forked copy of a process with threads holds every lock they held at that moment, and
// one that allocates there can hang for ever (Hdf5Volume's reader did, CI 2026-11-28). A child
// that cannot open its output files or exec ends with status 126 or 127; a failed fork, or an
// environment entry that is not NAME=value, throws.
pid_t startProgram(const ProgramLaunch& launch);

// waitpid(pid) for a child process the test started (the CLI), for at most `limit`: a child still
// running then is a test failure (ADD_FAILURE) that names `what` and shows where each of its
// threads waits (state, kernel wait channel and stack from /proc, and gdb's backtrace where gdb is
// installed); the child is then killed and reaped. Returns waitpid's status (SIGKILL's when it
// was killed). A hang so fails in minutes with its stacks, not at ctest's timeout without them.
int waitForChild(pid_t pid, const std::string& what,
                 std::chrono::seconds limit = std::chrono::seconds(300));

}  // namespace tomowb::test

#define TOMOWB_SKIP_WITHOUT_GPU()                                                  \
  do {                                                                             \
    if (!::tomowb::test::gpuAvailable()) GTEST_SKIP() << "no CUDA device present"; \
  } while (0)
