// `recon fdk` on short scans (issue #17, point 1): the textbook short scan (N views over
// [0, 180 deg + fan), each standing for one angular step) reconstructs without a word; a scan a few
// steps short is refused with the span found and the span needed, and --allow-incomplete
// reconstructs it with a warning.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

#include "cli/CliRun.h"
#include "recon/geometry/ScanBuilders.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

using test::CliResult;
using test::runCli;

// A builder geometry of `views` views evenly over [0, rangeDeg) (the last one a step short of it).
void writeArc(const std::filesystem::path& path, int views, double rangeDeg) {
  std::ofstream out(path);
  out << R"({"format": "tomowb-geometry", "version": 1, "builder": {"kind": "circular-cone",)"
      << R"("sourceToIsocentreMm": 200, "sourceToDetectorMm": 400, "views": )" << views
      << R"(, "scan": "arc", "rangeDeg": )" << rangeDeg * (views - 1) / views
      << R"(, "detector": {"cols": 64, "rows": 8, "pitchMm": 2.0}}})";
}

double fanDeg() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 200;
  p.sourceToDetectorMm = 400;
  p.detector.cols = 64;
  p.detector.rows = 8;
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
  return fullFanAngleRad(p) * 180.0 / std::numbers::pi;
}

TEST(ShortScanCli, TextbookShortScanRunsAndAShorterOneNeedsAllowIncomplete) {
  const test::TempDir dir;
  const auto path = [&](const char* name) { return (dir / name).string(); };
  const int views = 120;
  writeArc(dir / "textbook.json", views, 180.0 + fanDeg());
  writeArc(dir / "short.json", views, 180.0 + fanDeg() - 4 * (180.0 + fanDeg()) / views);
  for (const char* name : {"textbook", "short"}) {
    const CliResult p = runCli("-q phantom --geometry " + path(name) + std::string(".json") +
                               " -o " + path(name) + "-p.json");
    ASSERT_EQ(p.exitCode, 0) << p.output;
  }
  const CliResult ok = runCli("--no-record recon fdk -i " + path("textbook-p.json") + " -o " +
                              path("a.mhd") + " --size 16");
  EXPECT_EQ(ok.exitCode, 0) << ok.output;
  EXPECT_EQ(ok.output.find("needs"), std::string::npos) << ok.output;

  const CliResult refused = runCli("--no-record recon fdk -i " + path("short-p.json") + " -o " +
                                   path("b.mhd") + " --size 16");
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.output.find("covers"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("needs"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("--allow-incomplete"), std::string::npos) << refused.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "b.mhd"));

  const CliResult allowed = runCli("--no-record recon fdk -i " + path("short-p.json") + " -o " +
                                   path("c.mhd") + " --size 16 --allow-incomplete");
  EXPECT_EQ(allowed.exitCode, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("weighted wrongly"), std::string::npos) << allowed.output;
  EXPECT_TRUE(std::filesystem::exists(dir / "c.mhd"));
}

}  // namespace
}  // namespace tomowb
