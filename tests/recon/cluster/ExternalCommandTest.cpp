#include <gtest/gtest.h>

#include <chrono>

#include "recon/cluster/ExternalCommand.h"

namespace tomowb::cluster {
namespace {

TEST(ExternalCommand, CollectsExitStatusStdoutAndStderr) {
  const CommandResult r = runExternalCommand({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "sh (exit 3): err");
}

TEST(ExternalCommand, FeedsItsInputAndRunsInTheFolderGiven) {
  CommandOptions options;
  options.input = std::string(200000, 'x') + "\n";  // more than a pipe holds
  options.workFolder = "/";
  const CommandResult r = runExternalCommand({"sh", "-c", "wc -c; pwd"}, options);
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "200001\n/\n");
}

TEST(ExternalCommand, AProgramThatIsNotThereSaysSoNamingIt) {
  const CommandResult r = runExternalCommand({"tomowb-no-such-program", "x"});
  EXPECT_FALSE(r.started);
  EXPECT_NE(r.describe().find("tomowb-no-such-program: could not run it"), std::string::npos)
      << r.describe();
}

TEST(ExternalCommand, StopsAProgramAtTheTimeLimitWithWhatItStarted) {
  CommandOptions options;
  options.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = runExternalCommand({"sh", "-c", "sleep 30 & sleep 30"}, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timedOut);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(seconds, 5.0);
  EXPECT_NE(r.describe().find("no answer within the time limit"), std::string::npos);
}

TEST(ExternalCommand, AProgramThatClosesItsInputEarlyDoesNotKillTheCaller) {
  CommandOptions options;
  options.input = std::string(1 << 20, 'y');  // SIGPIPE for the writer unless it is handled
  const CommandResult r = runExternalCommand({"true"}, options);
  EXPECT_EQ(r.exitCode, 0);
}

}  // namespace
}  // namespace tomowb::cluster
