#include "support/TestSupport.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "recon/device/GpuDevices.h"

namespace tomowb::test {

std::uint64_t randomSeed() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read before any test starts a thread
  if (const char* fixed = std::getenv("TOMOWB_TEST_SEED")) return std::strtoull(fixed, nullptr, 10);
  const auto seed = static_cast<std::uint64_t>(
      std::chrono::high_resolution_clock::now().time_since_epoch().count());
  std::cout << "[ seed     ] TOMOWB_TEST_SEED=" << seed << "\n";
  return seed;
}

namespace {

// Our environment without the names `set` gives, then `set`'s "NAME=value" entries.
std::vector<std::string> environmentWith(const std::vector<std::string>& set) {
  const auto nameOf = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
  for (const std::string& entry : set)
    if (entry.find('=') == std::string::npos || entry.front() == '=')
      throw std::invalid_argument("startProgram: environment entry '" + entry +
                                  "' is not NAME=value");
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const bool replaced = std::any_of(
        set.begin(), set.end(), [&](const std::string& s) { return nameOf(s) == nameOf(entry); });
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  return env;
}

// Pointers to the strings, null-terminated, for execve.
std::vector<char*> pointersTo(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// In the forked child: `path` opened for writing as descriptor `to`; async-signal-safe.
void redirectInChild(const char* path, int to) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd == to) {  // `to` was closed: the file took its number, to keep across exec
    if (::fcntl(fd, F_SETFD, 0) != 0) ::_exit(126);
    return;
  }
  if (fd < 0 || ::dup2(fd, to) != to) ::_exit(126);
  ::close(fd);
}

}  // namespace

pid_t startProgram(const ProgramLaunch& launch) {
  std::vector<std::string> args = {launch.program};
  args.insert(args.end(), launch.arguments.begin(), launch.arguments.end());
  std::vector<std::string> env = environmentWith(launch.environment);
  const std::vector<char*> argv = pointersTo(args), envp = pointersTo(env);
  const std::string folder = launch.folder.string();
  const std::string out = launch.stdoutPath.string(), err = launch.stderrPath.string();
  const bool errToOut = !err.empty() && err == out;
  const rlimit fileSize{launch.fileSizeLimit, launch.fileSizeLimit};
  const pid_t pid = ::fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork " + launch.program);
  if (pid > 0) return pid;
  // The child: async-signal-safe calls only (the output files open relative to `folder`).
  if (!folder.empty() && ::chdir(folder.c_str()) != 0) ::_exit(126);
  if (!out.empty()) redirectInChild(out.c_str(), STDOUT_FILENO);
  if (errToOut && ::dup2(STDOUT_FILENO, STDERR_FILENO) != STDERR_FILENO) ::_exit(126);
  if (!err.empty() && !errToOut) redirectInChild(err.c_str(), STDERR_FILENO);
  if (launch.fileSizeLimit > 0) {
    ::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails with EFBIG instead
    if (::setrlimit(RLIMIT_FSIZE, &fileSize) != 0) ::_exit(126);
  }
  if (launch.alarmSeconds > 0) ::alarm(launch.alarmSeconds);
  ::execve(argv[0], argv.data(), envp.data());
  ::_exit(127);
}

namespace {

std::string fileText(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where each thread of `pid` waits: its state and kernel wait channel, the kernel stack (root
// only), and gdb's backtraces of every thread where gdb is installed.
std::string whereItWaits(pid_t pid) {
  std::ostringstream out;
  const std::filesystem::path proc = "/proc/" + std::to_string(pid);
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(proc / "task", ec)) {
    const std::string stat = fileText(task.path() / "stat");
    const std::size_t close = stat.rfind(')');
    const std::string state = close == std::string::npos ? "?" : stat.substr(close + 2, 1);
    out << "thread " << task.path().filename().string() << " state " << state << " waits in "
        << fileText(task.path() / "wchan") << "\n"
        << fileText(task.path() / "stack");
  }
  if (::access("/usr/bin/gdb", X_OK) == 0) {
    const std::string command = "timeout 60 /usr/bin/gdb -p " + std::to_string(pid) +
                                " -batch -ex 'thread apply all bt' 2>&1";
    if (FILE* gdb = ::popen(command.c_str(), "r")) {
      std::array<char, 4096> buffer{};
      while (std::fgets(buffer.data(), int(buffer.size()), gdb) != nullptr) out << buffer.data();
      ::pclose(gdb);
    }
  } else {
    out << "(no /usr/bin/gdb for the user-space stacks)\n";
  }
  return out.str();
}

}  // namespace

int waitForChild(pid_t pid, const std::string& what, std::chrono::seconds limit) {
  // A watchdog kills the child at the deadline; this thread waits for its end without reaping it
  // (WNOWAIT), so the watchdog can never signal a process id already given to another process.
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::string hung;
  std::thread watchdog([&] {
    std::unique_lock lock(mutex);
    if (ended.wait_for(lock, limit, [&] { return done; })) return;
    hung = whereItWaits(pid);
    ::kill(pid, SIGKILL);
  });
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  {
    const std::lock_guard lock(mutex);
    done = true;
  }
  ended.notify_all();
  watchdog.join();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!hung.empty())
    ADD_FAILURE() << what << " still ran after " << limit.count()
                  << " s and was killed; where it waited:\n"
                  << hung;
  return status;
}

TempDir::TempDir() {
  // mkdtemp: a new folder no other process (ctest -j runs several test processes at once) can
  // be given too; a name from a clock-seeded generator could be shared, and the other process
  // then removes this one's files when it ends.
  std::string pattern = (std::filesystem::temp_directory_path() / "tomowb-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder " + pattern + ": " +
                             std::error_code(errno, std::generic_category()).message());
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

bool gpuAvailable() {
  return !cuda::listGpuDevices().empty();
}

}  // namespace tomowb::test
