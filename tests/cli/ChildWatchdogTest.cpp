// test::waitForChild, which every CLI test waits with: a child that ends is reaped with its
// status; one still running at the limit fails the test with where its threads wait, and is
// killed, so a hung tomowb-cli fails in minutes with its stacks instead of at ctest's timeout.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <string>

#include "support/TestSupport.h"

namespace tomowb {
namespace {

pid_t startSleep(const char* seconds) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execl("/bin/sleep", "sleep", seconds, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

TEST(ChildWatchdog, AChildThatEndsGivesItsStatus) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(7);
  const int status = test::waitForChild(pid, "exit 7", std::chrono::seconds(60));
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7);
}

TEST(ChildWatchdog, AChildStillRunningAtTheLimitFailsTheTestWithWhereItWaitsAndIsKilled) {
  const pid_t pid = startSleep("60");
  ASSERT_GT(pid, 0);
  testing::TestPartResultArray failures;
  int status = 0;
  const auto started = std::chrono::steady_clock::now();
  {
    const testing::ScopedFakeTestPartResultReporter intercept(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    status = test::waitForChild(pid, "sleep 60", std::chrono::seconds(1));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(50));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  ASSERT_EQ(failures.size(), 1);
  const std::string message = failures.GetTestPartResult(0).message();
  EXPECT_NE(message.find("sleep 60 still ran after 1 s and was killed"), std::string::npos)
      << message;
  // Its one thread, asleep: /proc's state and wait channel.
  EXPECT_NE(message.find("thread " + std::to_string(pid) + " state S waits in"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace tomowb
