// tomowb-cli against the reader-side cases of the hostile-input review (2026-11-24): pipes given
// where a file is read (D7), option values that passed CLI11's range checks as NaN or overflowed
// (D25), and reader warnings that `info` printed on stdout. Each run has a 20 s alarm, so a run
// that blocks (as the FIFO cases did) fails instead of hanging the suite.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

struct CliRun {
  int exitCode = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CliRun runCli(const std::vector<std::string>& args, const test::TempDir& dir) {
  const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
  test::ProgramLaunch launch;
  launch.program = TOMOWB_CLI_PATH;
  launch.arguments = args;
  launch.stdoutPath = out;
  launch.stderrPath = err;
  launch.alarmSeconds = 20;  // survives exec: a blocked run dies with SIGALRM
  const pid_t pid = test::startProgram(launch);
  int status = 0;
  waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
}

void expectRefused(const CliRun& r, const std::string& named) {
  EXPECT_NE(r.exitCode, 0) << r.err;
  EXPECT_LT(r.exitCode, 128) << "killed by a signal: " << r.err;
  EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
}

Volume smallVolume() {
  Volume v({8, 8, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (std::size_t i = 0; i < v.voxels().size(); ++i) v.voxels()[i] = static_cast<float>(i % 7);
  return v;
}

TEST(HostileInputCli, PipesAreRefusedNamingThemInsteadOfBlocking) {
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  const std::string fifo = (dir / "fifo.json").string();
  expectRefused(runCli({"info", fifo}, dir), "fifo.json");
  const std::string a = (dir / "a.mhd").string();
  io::writeVolume(a, smallVolume());
  expectRefused(runCli({"compare", a, a, "--tolerances", fifo}, dir), "fifo.json");
  const CliRun help = runCli({"export", "dicom", "--help"}, dir);
  if (help.exitCode == 0)
    expectRefused(runCli({"export", "dicom", a, (dir / "out").string(), "--provenance", fifo}, dir),
                  "fifo.json");
}

TEST(HostileInputCli, NanAndOverflowingOptionValuesAreRefused) {
  test::TempDir dir;
  const std::string a = (dir / "a.mhd").string(), b = (dir / "b.mhd").string();
  io::writeVolume(a, smallVolume());
  io::writeVolume(b, smallVolume());
  for (const char* value : {"nan", "inf", "-nan"}) {
    const CliRun r = runCli({"-q", "phantom", "--views", "8", "--cols", "16", "--rows", "16", "-o",
                             (dir / "q.json").string(), "--truth", (dir / "t.mhd").string(),
                             "--size", "16", "--voxel-mm", value},
                            dir);
    expectRefused(r, "--voxel-mm");
    EXPECT_FALSE(std::filesystem::exists(dir / "q.json")) << value;
  }
  expectRefused(runCli({"-q", "phantom", "--views", "8", "--cols", "16", "--rows", "16", "-o",
                        (dir / "q.json").string(), "--origin-mm", "nan", "0", "0"},
                       dir),
                "--origin-mm");
  expectRefused(runCli({"metrics", a, "-r", b, "--region", "slab:0:99999999999999999999"}, dir),
                "--region");
  expectRefused(runCli({"metrics", a, "-r", b, "--region", "sphere:nan,0,0,4"}, dir), "--region");
  expectRefused(
      runCli({"compare", a, b, "--slice", "99999", "--report", (dir / "r").string()}, dir),
      "--slice");
  EXPECT_FALSE(std::filesystem::exists(dir / "r"));
  const CliRun help = runCli({"import", "dicom", "--help"}, dir);
  if (help.exitCode == 0) {
    expectRefused(runCli({"import", "dicom", dir.path().string(), b, "--water-mu", "-1"}, dir),
                  "--water-mu");
    expectRefused(runCli({"import", "dicom", dir.path().string(), b, "--water-mu", "nan"}, dir),
                  "--water-mu");
  }
}

TEST(HostileInputCli, IterativeBoundsMustBeFinite) {
  test::TempDir dir;
  TiltSeriesParams p;
  p.cols = p.rows = 16;
  p.pixelSizeMm = 1;
  p.tiltAnglesRad = {-0.5, 0.0, 0.5};
  io::writeTiltSeries(dir / "tilts.mrc", ProjectionStack(tiltSeries(p)), p.tiltAnglesRad);
  for (const char* option : {"--min", "--max"}) {
    const CliRun r =
        runCli({"-q", "--no-record", "recon", "sirt", "-i", (dir / "tilts.mrc").string(), "-o",
                (dir / "s.mrc").string(), "--thickness", "8", "--iterations", "1", option, "nan"},
               dir);
    expectRefused(r, option);
  }
}

TEST(HostileInputCli, InfoPrintsReaderWarningsOnStderr) {
  test::TempDir dir;
  const auto mrc = dir / "v.mrc";
  io::writeVolume(mrc, smallVolume());
  // A blank machine stamp: the MRC reader warns that it guessed the byte order.
  std::fstream f(mrc, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(212);
  f.write("\0\0\0\0", 4);
  f.close();
  const CliRun r = runCli({"info", mrc.string()}, dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("machine stamp"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("machine stamp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("v.mrc"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tomowb
