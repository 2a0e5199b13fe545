// `tomowb-cli recon fdk` in slabs (issue #22, points 2 to 4 and 7), as a user runs it: out of core
// it matches the in-memory volume; two and four processes started by hand (--rank K --ranks N,
// no communication) give the bits of one; a run interrupted with Ctrl-C (SIGINT) after some slabs
// says how to finish it, and --resume does, bit for bit. The slab runs use paths relative to
// their working folder.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/CliRun.h"
#include "recon/io/RawVolumeIo.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

namespace fs = std::filesystem;

std::vector<float> samples(const fs::path& raw) {
  const Volume v = io::readVolumeRaw(raw);
  return {v.voxels().begin(), v.voxels().end()};
}

// Starts tomowb-cli in `folder` with `environment` ("NAME=value" entries added to ours).
pid_t spawn(const fs::path& folder, const std::vector<std::string>& arguments,
            const std::vector<std::string>& environment = {}) {
  test::ProgramLaunch launch;
  launch.program = TOMOWB_CLI_PATH;
  launch.arguments = arguments;
  launch.environment = environment;
  launch.folder = folder;
  launch.stdoutPath = "/dev/null";
  return test::startProgram(launch);
}

int waitFor(pid_t pid) {
  const int status = test::waitForChild(pid, "tomowb-cli");
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

const std::vector<std::string> kRecon = {"-q",        "--no-record", "recon", "fdk",          "-i",
                                         "scan.json", "--size",      "96",    "--slab-slices"};

std::vector<std::string> slabRun(const std::string& out, const std::string& slices,
                                 std::vector<std::string> extra = {}) {
  std::vector<std::string> a = kRecon;
  a.push_back(slices);
  a.push_back("-o");
  a.push_back(out);
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

class SlabCli : public testing::Test {
 protected:
  void SetUp() override {
    const test::CliResult r = test::runCli("-q phantom -o '" + (dir / "scan.json").string() +
                                           "' --cols 96 --rows 80 --views 120");
    ASSERT_EQ(r.exitCode, 0) << r.output;
  }
  test::TempDir dir;
};

TEST_F(SlabCli, OutOfCoreMatchesInMemoryAndRanksStartedByHandGiveTheSameBits) {
  const test::CliResult whole =
      test::runCli("-q --no-record recon fdk -i '" + (dir / "scan.json").string() + "' -o '" +
                   (dir / "whole.raw").string() + "' --size 96");
  ASSERT_EQ(whole.exitCode, 0) << whole.output;
  const test::CliResult one =
      test::runCli("--no-record recon fdk -i '" + (dir / "scan.json").string() + "' -o '" +
                   (dir / "one.raw").string() + "' --size 96 --slab-slices 12");
  ASSERT_EQ(one.exitCode, 0) << one.output;
  EXPECT_NE(one.output.find("slab plan: 8 slabs of 12 slices"), std::string::npos) << one.output;
  const std::vector<float> a = samples(dir / "one.raw"), w = samples(dir / "whole.raw");
  ASSERT_EQ(a.size(), w.size());
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (double(a[i]) - w[i]) * (double(a[i]) - w[i]);
    den += double(w[i]) * w[i];
  }
  EXPECT_LT(std::sqrt(num / den), 1e-5);

  for (int ranks : {2, 4}) {
    const std::string out = "ranks" + std::to_string(ranks) + ".raw";
    std::vector<pid_t> processes;
    for (int rank = 0; rank < ranks; ++rank)
      processes.push_back(spawn(
          dir.path(),
          slabRun(out, "12", {"--rank", std::to_string(rank), "--ranks", std::to_string(ranks)})));
    for (const pid_t p : processes) EXPECT_EQ(waitFor(p), 0) << ranks << " ranks";
    ASSERT_TRUE(fs::exists(dir / out)) << ranks << " ranks";
    EXPECT_EQ(samples(dir / out), a) << ranks << " ranks differ from one process";
    EXPECT_FALSE(fs::exists(dir / (out + ".partial")));
  }
  // The run record (written by the rank that put the output in place) says who wrote what.
  const std::vector<pid_t> two = {
      spawn(dir.path(), {"recon", "fdk", "-i", "scan.json", "--size", "96", "--slab-slices", "12",
                         "-o", "recorded.raw", "--rank", "0", "--ranks", "2"}),
      spawn(dir.path(), {"recon", "fdk", "-i", "scan.json", "--size", "96", "--slab-slices", "12",
                         "-o", "recorded.raw", "--rank", "1", "--ranks", "2"})};
  for (const pid_t p : two) EXPECT_EQ(waitFor(p), 0);
  std::ifstream recordFile(dir / "recorded.run.json");
  ASSERT_TRUE(recordFile.good()) << "no run record";
  const nlohmann::json record = nlohmann::json::parse(recordFile);
  const nlohmann::json& ranksRecord = record.at("parameters").at("slabs").at("ranks");
  ASSERT_EQ(ranksRecord.size(), 2u);
  std::vector<int> slabs;
  for (const nlohmann::json& rank : ranksRecord) {
    EXPECT_EQ(rank.at("ranks"), 2);
    for (const nlohmann::json& s : rank.at("slabs")) slabs.push_back(s.get<int>());
  }
  std::sort(slabs.begin(), slabs.end());
  EXPECT_EQ(slabs, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(record.at("outputs").size(), 2u);
}

TEST_F(SlabCli, ARunInterruptedByCtrlCIsFinishedByResumeBitForBit) {
  ASSERT_EQ(waitFor(spawn(dir.path(), slabRun("straight.raw", "1"))), 0);
  // One slice per slab: 96 slabs. Interrupted once its manifest lists a few.
  const pid_t run = spawn(dir.path(), slabRun("resumed.raw", "1"));
  const fs::path manifest = dir / "resumed.raw.rank0.manifest.json";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(manifest) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(run, SIGINT);
  const int interrupted = waitFor(run);
  if (interrupted == 0) GTEST_SKIP() << "the run finished before it could be interrupted";
  EXPECT_EQ(interrupted, 130);
  EXPECT_FALSE(fs::exists(dir / "resumed.raw")) << "no output before every slab is in";
  ASSERT_TRUE(fs::exists(dir / "resumed.raw.partial"));
  ASSERT_TRUE(fs::exists(manifest));

  const test::CliResult resumed =
      test::runCli("--no-record recon fdk -i '" + (dir / "scan.json").string() + "' -o '" +
                   (dir / "resumed.raw").string() + "' --size 96 --slab-slices 1 --resume");
  ASSERT_EQ(resumed.exitCode, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("done before"), std::string::npos) << resumed.output;
  EXPECT_EQ(resumed.output.find(" 0 done before"), std::string::npos) << resumed.output;
  EXPECT_EQ(samples(dir / "resumed.raw"), samples(dir / "straight.raw"));
  EXPECT_FALSE(fs::exists(manifest));
  EXPECT_FALSE(fs::exists(dir / "resumed.raw.partial"));

  // Nothing left to resume: said so, naming the file.
  const test::CliResult again =
      test::runCli("--no-record recon fdk -i '" + (dir / "scan.json").string() + "' -o '" +
                   (dir / "resumed.raw").string() + "' --size 96 --slab-slices 1 --resume");
  EXPECT_EQ(again.exitCode, 1) << again.output;
  EXPECT_NE(again.output.find("resumed.raw.partial"), std::string::npos) << again.output;
}

// Ranks started without --slab-slices share the planner's slabs, two or more a rank (before,
// one slab for a grid that fits in memory left the second rank idle); a resume without
// --slab-slices goes on with the height of the run it finishes, which its own ranks (here one
// process, which would plan two slabs) would not choose.
TEST_F(SlabCli, RanksWithoutASlabHeightGetTwoSlabsEachAndAResumeKeepsTheRunsHeight) {
  ASSERT_EQ(waitFor(spawn(dir.path(), slabRun("straight.raw", "24"))), 0);
  const std::vector<std::string> auto2 = {"-q",        "--no-record", "recon", "fdk", "-i",
                                          "scan.json", "--size",      "96",    "-o",  "two.raw",
                                          "--ranks",   "2",           "--rank"};
  std::vector<std::string> rank0 = auto2;
  rank0.emplace_back("0");
  ASSERT_EQ(waitFor(spawn(dir.path(), rank0)), 0);
  EXPECT_FALSE(fs::exists(dir / "two.raw")) << "rank 1's slabs are missing";
  std::ifstream manifestFile(dir / "two.raw.rank0.manifest.json");
  ASSERT_TRUE(manifestFile.good());
  const nlohmann::json manifest = nlohmann::json::parse(manifestFile);
  EXPECT_EQ(manifest.at("run").at("slabSlices"), 24) << manifest.dump();
  EXPECT_EQ(manifest.at("finished"), (nlohmann::json{0, 1})) << manifest.dump();

  const test::CliResult resumed =
      test::runCli("--no-record recon fdk -i '" + (dir / "scan.json").string() + "' -o '" +
                   (dir / "two.raw").string() + "' --size 96 --resume");
  ASSERT_EQ(resumed.exitCode, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("4 slabs of 24 slices"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("2 slabs reconstructed here, 2 done before"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(samples(dir / "two.raw"), samples(dir / "straight.raw"));
}

#if TOMOWB_HAVE_HDF5
// An HDF5 output from the CLI: the same volume as the raw one (metrics against it), a run record
// that lists the file, and `info` that reads it.
TEST_F(SlabCli, AnHdf5OutputMatchesTheRawOneAndIsRecorded) {
  const std::string scan = "'" + (dir / "scan.json").string() + "'";
  ASSERT_EQ(test::runCli("-q --no-record recon fdk -i " + scan + " -o '" +
                         (dir / "v.raw").string() + "' --size 96 --slab-slices 12")
                .exitCode,
            0);
  const test::CliResult h5 = test::runCli("-q recon fdk -i " + scan + " -o '" +
                                          (dir / "v.h5").string() + "' --size 96 --slab-slices 12");
  ASSERT_EQ(h5.exitCode, 0) << h5.output;
  EXPECT_TRUE(fs::exists(dir / "v.run.json"));
  EXPECT_FALSE(fs::exists(dir / "v.h5.partial"));
  const test::CliResult info = test::runCli("info '" + (dir / "v.h5").string() + "'");
  ASSERT_EQ(info.exitCode, 0) << info.output;
  EXPECT_NE(info.output.find("HDF5"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("96 x 96 x 96"), std::string::npos) << info.output;
  const test::CliResult same = test::runCli("metrics '" + (dir / "v.h5").string() +
                                            "' --reference '" + (dir / "v.raw").string() + "'");
  ASSERT_EQ(same.exitCode, 0) << same.output;
  EXPECT_NE(same.output.find("max |diff|    0"), std::string::npos) << same.output;
}
#endif

TEST_F(SlabCli, PlanOnlySaysWhatARunWouldTakeAndWritesNothing) {
  const test::CliResult r = test::runCli("recon fdk -i '" + (dir / "scan.json").string() +
                                         "' -o '" + (dir / "big.raw").string() +
                                         "' --shape 512 512 400 --slab-slices 50 --plan-only");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("slab plan: 8 slabs of 50 slices (512 x 512 x 400)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("disk: the output needs 400.0 MiB"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "big.raw"));
  EXPECT_FALSE(fs::exists(dir / "big.raw.partial"));
  EXPECT_FALSE(fs::exists(dir / "big.raw.rank0.manifest.json"));
}

// -o naming the projections' own samples: refused before anything is written (a slab run writes
// in place, so without the check it replaced the projections with the volume and exited 0).
TEST_F(SlabCli, ASlabRunRefusesToWriteOverTheProjectionsItReads) {
  const fs::path samples = dir / "scan.raw";
  std::ifstream before(samples, std::ios::binary);
  const std::string original((std::istreambuf_iterator<char>(before)),
                             std::istreambuf_iterator<char>());
  ASSERT_FALSE(original.empty());
  for (const char* command : {"fdk", "sirt"}) {
    const test::CliResult r =
        test::runCli(std::string("recon ") + command + " -i '" + (dir / "scan.json").string() +
                     "' -o '" + samples.string() + "' --slab-slices 4 --size 32");
    EXPECT_NE(r.exitCode, 0) << command;
    EXPECT_NE(r.output.find("would overwrite"), std::string::npos) << r.output;
  }
  std::ifstream after(samples, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(after)), std::istreambuf_iterator<char>()),
            original);
}

}  // namespace
}  // namespace tomowb

namespace tomowb {
namespace {

// A cone-beam SIRT out of core in one process (issue #22, point 2): --volume-on-disk streams the
// slabs through the projectors with the iterate in files beside -o, and gives the in-memory
// run's volume within float32 rounding; the plan says so; nothing is left beside the output.
TEST_F(SlabCli, ConeBeamSirtOnDiskMatchesTheInMemoryRun) {
  const std::string scan = "'" + (dir / "scan.json").string() + "'";
  const std::string common =
      "-q --no-record recon sirt -i " + scan + " --size 32 --iterations 4 --nonneg -o '";
  test::CliResult r = test::runCli(common + (dir / "memory.raw").string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = test::runCli(common + (dir / "disk.raw").string() + "' --slab-slices 8 --volume-on-disk");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const std::vector<float> memory = samples(dir / "memory.raw"), disk = samples(dir / "disk.raw");
  ASSERT_EQ(memory.size(), disk.size());
  double worst = 0, largest = 0;
  for (std::size_t i = 0; i < memory.size(); ++i) {
    worst = std::max(worst, std::abs(double(memory[i]) - double(disk[i])));
    largest = std::max(largest, std::abs(double(memory[i])));
  }
  EXPECT_GT(largest, 1e-3);
  EXPECT_LT(worst, 1e-5 * largest);
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path()))
    left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"disk.json", "disk.raw", "memory.json", "memory.raw",
                                            "scan.json", "scan.raw"}));

  r = test::runCli("recon sirt -i " + scan + " --size 32 -o '" + (dir / "plan.raw").string() +
                   "' --slab-slices 8 --volume-on-disk --plan-only");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("out of core"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("slab plan: 4 slabs of 8 slices"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace tomowb
