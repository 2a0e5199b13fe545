// main() for the GUI and render tests: gives them an X display and a QApplication. When no
// DISPLAY is set (CI, ssh sessions) it starts a private Xvfb with Mesa's software OpenGL and stops
// it at exit, so `ctest` works anywhere the packages from scripts/setup.sh are installed. Without
// Xvfb and without a display the tests fail with a message saying so: they are never skipped.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

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
  // A display number unlikely to clash with parallel test processes.
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int display = 100 + static_cast<int>((getpid() * 7 + attempt * 13) % 800);
    const std::string socket = "/tmp/.X11-unix/X" + std::to_string(display);
    const std::string lock = "/tmp/.X" + std::to_string(display) + "-lock";
    struct stat info {};
    if (stat(socket.c_str(), &info) == 0 || stat(lock.c_str(), &info) == 0) continue;
    const pid_t child = fork();
    if (child == 0) {
      const std::string name = ":" + std::to_string(display);
      // Die with the test process, and hold none of its pipes: ctest waits for every holder of
      // a test's output pipe, so a leftover Xvfb would hang it.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      const int null = open("/dev/null", O_RDWR);
      dup2(null, STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      for (int fd = 3; fd < 1024; ++fd) close(fd);
      execl(xvfb, "Xvfb", name.c_str(), "-screen", "0", screen.c_str(), "-nolisten", "tcp",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int wait = 0; wait < 100; ++wait) {
      if (stat(socket.c_str(), &info) == 0) {
        setenv("DISPLAY", (":" + std::to_string(display)).c_str(), 1);
        return child;
      }
      int status = 0;
      if (waitpid(child, &status, WNOHANG) == child) break;  // lost a race for that number
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  tomowb::catalog::installBuiltinVariants();  // the composition root (recon/catalog/Builtins.h)
  testing::InitGoogleTest(&argc, argv);
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
