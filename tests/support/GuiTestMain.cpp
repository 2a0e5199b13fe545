// main() for the GUI and render tests: gives them an X display and a QApplication. When no
// DISPLAY is set (CI, ssh sessions) it starts a private Xvfb with Mesa's software OpenGL and stops
// it at exit, so `ctest` works anywhere the packages from scripts/setup.sh are installed. Without
// Xvfb and without a display the tests fail with a message saying so: they are never skipped.
#include <execinfo.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "recon/catalog/Builtins.h"
#include "render/VtkOpenGLWidget.h"

namespace {

pid_t startPrivateXvfb() {
  const char* xvfb = "/usr/bin/Xvfb";
  if (access(xvfb, X_OK) != 0) return -1;
  // TOMOWB_TEST_XVFB_SCREEN ("1366x768x24"): the screen size, for the layout tests that run once
  // per screen size (tests/CMakeLists.txt).
  const char* screenVariable = std::getenv("TOMOWB_TEST_XVFB_SCREEN");
  const std::string screen = screenVariable != nullptr ? screenVariable : "1600x1000x24";
  // Xvfb picks a free display number itself and writes it to a pipe once it accepts clients
  // (-displayfd): parallel test processes never share one. (A number chosen here could be taken
  // by two processes starting at once; the loser then drew on the winner's server and lost its
  // X connection, mid-test, when the winner's test ended.) It listens on Linux's abstract socket
  // only (-nolisten unix), which goes with its process: a server of the same number ending just
  // as this one started unlinked this one's /tmp/.X11-unix socket file, and the test could not
  // connect ("could not connect to display :0", LoadTask.DestroyingWhileLoadingIsSafe under
  // ctest -j2, 2026-11-27).
  int ready[2] = {-1, -1};
  if (pipe2(ready, O_CLOEXEC) != 0) return -1;
  const pid_t child = fork();
  if (child < 0) {
    close(ready[0]);
    close(ready[1]);
    return -1;
  }
  if (child == 0) {
    // Die with the test process, and hold none of its pipes: ctest waits for every holder of a
    // test's output pipe, so a leftover Xvfb would hang it.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    const int null = open("/dev/null", O_RDWR);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    const int fd = dup2(ready[1], 3);  // the write end, kept across exec
    for (int other = 4; other < 1024; ++other) close(other);
    if (fd != 3) _exit(127);
    execl(xvfb, "Xvfb", "-displayfd", "3", "-screen", "0", screen.c_str(), "-nolisten", "tcp",
          "-nolisten", "unix", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  std::string number;
  char c = 0;
  while (read(ready[0], &c, 1) == 1 && c != '\n') number += c;
  close(ready[0]);
  if (number.empty()) {  // Xvfb failed before it was ready
    waitpid(child, nullptr, 0);
    return -1;
  }
  setenv("DISPLAY", (":" + number).c_str(), 1);
  return child;
}

// A crash prints where it happened (CI keeps only the test's output).
void printBacktraceAndDie(int signal) {
  std::array<void*, 64> frames{};
  const int count = backtrace(frames.data(), int(frames.size()));
  const char header[] = "\n*** fatal signal in a GUI test; backtrace (addr2line -e the binary):\n";
  (void)!write(STDERR_FILENO, header, sizeof header - 1);
  backtrace_symbols_fd(frames.data(), count, STDERR_FILENO);
  std::signal(signal, SIG_DFL);
  raise(signal);
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  testing::InitGoogleTest(&argc, argv);
  for (const int fatal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(fatal, printBacktraceAndDie);
  pid_t xvfb = -1;
  const char* platform = std::getenv("QT_QPA_PLATFORM");
  const bool needsX = platform == nullptr || std::string(platform).starts_with("xcb");
  const bool listingOnly = GTEST_FLAG_GET(list_tests);
  if (listingOnly) return RUN_ALL_TESTS();  // ctest's test discovery needs no display
  if (needsX && std::getenv("DISPLAY") == nullptr) {
    xvfb = startPrivateXvfb();
    if (xvfb < 0) {
      std::fprintf(stderr,
                   "GUI tests need an X display: set DISPLAY, or install Xvfb "
                   "(scripts/setup.sh does)\n");
      return 1;
    }
  }
  tomowb::render::VtkOpenGLWidget::configureDefaultSurfaceFormat();
  int result = 0;
  {
    // Settings and caches never touch the user's real configuration; each test process has its
    // own settings folder, since ctest runs tests in parallel and they clear their settings.
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QApplication app(argc, argv);
    QApplication::setOrganizationName("TomoWorkbenchTests");
    QApplication::setApplicationName("tomowb-tests");
    result = RUN_ALL_TESTS();
  }
  if (xvfb > 0) {
    kill(xvfb, SIGTERM);
    waitpid(xvfb, nullptr, 0);
  }
  return result;
}
