#include "recon/cluster/ExternalCommand.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "recon/core/DetachedSpawnAttributes.h"

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawnp

namespace tomowb::cluster {

namespace {

std::string errnoText(int error) {
  char buffer[256];
  return ::strerror_r(error, buffer, sizeof buffer);
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  return text.substr(first);
}

// A pipe whose ends close on exec; closes what it still holds.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) fd[0] = fd[1] = -1;
  }
  ~Pipe() {
    closeEnd(0);
    closeEnd(1);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void closeEnd(int end) {
    if (fd[end] >= 0) ::close(fd[end]);
    fd[end] = -1;
  }
  bool valid() const { return fd[0] >= 0 && fd[1] >= 0; }
};

void killGroup(pid_t pid) {
  ::kill(-pid, SIGTERM);
  for (int i = 0; i < 20; ++i) {  // 1 s for it to go, then SIGKILL
    if (::waitpid(pid, nullptr, WNOHANG) != 0) return;
    ::usleep(50000);
  }
  ::kill(-pid, SIGKILL);
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

std::string CommandResult::describe() const {
  const std::string program = argv.empty() ? std::string("(nothing)") : argv.front();
  std::string text = program;
  if (!started)
    text += ": could not run it: " + error;
  else if (timedOut)
    text += ": no answer within the time limit; stopped";
  else if (exitCode < 0)
    text += ": ended by a signal";
  else
    text += " (exit " + std::to_string(exitCode) + ")";
  const std::string said = trimmed(err.empty() ? out : err);
  if (!said.empty()) text += ": " + said;
  return text;
}

namespace {

// Starts argv[0] (found on PATH) with stdin, stdout and stderr on the pipes, in its own process
// group, with default signal actions and no blocked signals (the CLI's SIGINT handler must not
// be inherited as "blocked"). Returns its pid, or -1 with result.error set.
pid_t spawnChild(const std::vector<std::string>& argv, const CommandOptions& options, Pipe& in,
                 Pipe& out, Pipe& err, CommandResult& result) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.fd[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], STDERR_FILENO);
  if (!options.workFolder.empty())
    posix_spawn_file_actions_addchdir_np(&actions, options.workFolder.c_str());
  const DetachedSpawnAttributes attributes;
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int spawned =
      ::posix_spawnp(&pid, args[0], &actions, attributes.get(), args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned == 0) return pid;
  result.error = errnoText(spawned);
  if (!options.workFolder.empty() && spawned == ENOENT)
    result.error += " (the program, or the folder " + options.workFolder.string() + ")";
  return -1;
}

// Writes what the pipe takes of input[written..]; closes it when all is in or it breaks.
std::size_t writeSome(const std::string& input, std::size_t written, Pipe& in) {
  const ssize_t n = ::write(in.fd[1], input.data() + written, input.size() - written);
  if (n > 0) written += static_cast<std::size_t>(n);
  if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) in.closeEnd(1);
  return written;
}

// Appends what the pipe has to `into`; closes it at its end.
void readSome(Pipe& pipe, std::string& into) {
  char buffer[65536];
  const ssize_t n = ::read(pipe.fd[0], buffer, sizeof buffer);
  if (n > 0)
    into.append(buffer, std::size_t(n));
  else if (n == 0 || (errno != EINTR && errno != EAGAIN))
    pipe.closeEnd(0);
}

// Feeds `input` to the child's stdin and collects its stdout and stderr until it closes them
// or the deadline passes (result.timedOut). Writes without SIGPIPE (a program that exits early
// closes the pipe): non-blocking, with SIGPIPE blocked in this thread and a pending one taken
// back before unblocking.
void pumpPipes(const std::string& input, std::chrono::steady_clock::time_point deadline, Pipe& in,
               Pipe& out, Pipe& err, CommandResult& result) {
  ::fcntl(in.fd[1], F_SETFL, O_NONBLOCK);
  sigset_t pipeOnly, previous;
  sigemptyset(&pipeOnly);
  sigaddset(&pipeOnly, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
  std::size_t written = 0;
  if (input.empty()) in.closeEnd(1);
  while (out.fd[0] >= 0 || err.fd[0] >= 0 || in.fd[1] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      break;
    }
    pollfd fds[3];
    nfds_t count = 0;
    if (out.fd[0] >= 0) fds[count++] = {out.fd[0], POLLIN, 0};
    if (err.fd[0] >= 0) fds[count++] = {err.fd[0], POLLIN, 0};
    if (in.fd[1] >= 0) fds[count++] = {in.fd[1], POLLOUT, 0};
    if (::poll(fds, count, static_cast<int>(std::min<long>(left.count(), 1000))) < 0 &&
        errno != EINTR)
      break;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.fd[1])
        written = writeSome(input, written, in);
      else
        readSome(fds[i].fd == out.fd[0] ? out : err,
                 fds[i].fd == out.fd[0] ? result.out : result.err);
    }
  }
  in.closeEnd(1);
  timespec zero{0, 0};
  while (::sigtimedwait(&pipeOnly, nullptr, &zero) > 0) {
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

// Its exit status once it ends (its output is closed, so it should end at once), or the process
// group stopped at the deadline.
void reap(pid_t pid, std::chrono::steady_clock::time_point deadline, CommandResult& result) {
  if (result.timedOut) {
    killGroup(pid);
    return;
  }
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) return;
    if (std::chrono::steady_clock::now() > deadline) {
      result.timedOut = true;
      killGroup(pid);
      return;
    }
    ::usleep(10000);
  }
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

CommandResult runExternalCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options) {
  CommandResult result;
  result.argv = argv;
  if (argv.empty()) {
    result.error = "no program given";
    return result;
  }
  Pipe in, out, err;
  if (!in.valid() || !out.valid() || !err.valid()) {
    result.error = "pipe: " + errnoText(errno);
    return result;
  }
  const pid_t pid = spawnChild(argv, options, in, out, err, result);
  if (pid < 0) return result;
  result.started = true;
  in.closeEnd(0);
  out.closeEnd(1);
  err.closeEnd(1);
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  pumpPipes(options.input, deadline, in, out, err, result);
  reap(pid, deadline, result);
  return result;
}

}  // namespace tomowb::cluster
