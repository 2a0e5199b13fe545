// OutputSet (review D2, D13, D15, D17): outputs checked against every input and each other before
// any work, staged, and committed together under a folder lock, or not at all.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "recon/core/Error.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/OutputSet.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> namesIn(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(folder))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string problemOf(const OutputSet& set) {
  try {
    set.check();
  } catch (const ParameterError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputSet, AnOutputThatIsAFileOfAnInputIsRefusedNamingBoth) {
  test::TempDir dir;
  writeVolumeRaw(dir / "scan.json", test::randomVolume({4, 4, 2}, 1));
  {
    OutputSet set;
    set.addInput(dir / "scan.json", "-i");
    set.addOutput(dir / "scan.mhd", "-o");  // scan.raw: the input's data
    const std::string why = problemOf(set);
    EXPECT_NE(why.find("scan.raw"), std::string::npos) << why;
    EXPECT_NE(why.find("-o"), std::string::npos) << why;
  }
  {
    OutputSet set;  // the same file under another spelling, and through a hard link
    set.addInput(dir / "scan.json", "-i");
    set.addOutput(dir.path() / "." / "scan.json", "--telemetry");
    EXPECT_NE(problemOf(set), "");
    fs::create_hard_link(dir / "scan.raw", dir / "alias.csv");
    OutputSet linked;
    linked.addInput(dir / "scan.json", "-i");
    linked.addOutput(dir / "alias.csv", "--residuals");
    EXPECT_NE(problemOf(linked).find("--residuals"), std::string::npos);
  }
}

TEST(OutputSet, TheDataFileASidecarActuallyNamesIsAnInput) {
  test::TempDir dir;
  writeVolumeRaw(dir / "proj.json", test::randomVolume({4, 4, 2}, 1));
  // scan2.json describes proj.raw: writing proj.mhd would replace scan2's data.
  std::string sidecar = test::readBytes(dir / "proj.json");
  test::writeBytes(dir / "scan2.json", sidecar);
  ASSERT_NE(sidecar.find("proj.raw"), std::string::npos);
  OutputSet set;
  set.addInput(dir / "scan2.json", "-i");
  set.addOutput(dir / "proj.mhd", "-o");
  EXPECT_NE(problemOf(set).find("proj.raw"), std::string::npos);
}

TEST(OutputSet, OutputsThatShareAFileAndFoldersThatHoldInputsAreRefused) {
  test::TempDir dir;
  OutputSet set;
  set.addOutput(dir / "o.json", "-o");
  set.addOutput(dir / "o.json", "--telemetry");
  EXPECT_NE(problemOf(set).find("--telemetry"), std::string::npos);
  OutputSet pair;  // o.mhd and o.json both write o.raw
  pair.addOutput(dir / "o.mhd", "-o");
  pair.addOutput(dir / "o.json", "--truth");
  EXPECT_NE(problemOf(pair).find("o.raw"), std::string::npos);

  fs::create_directories(dir / "in");
  test::writeBytes(dir / "in" / "t.mha", "x");
  OutputSet force;
  force.addInput(dir / "in" / "t.mha", "VOLUME");
  force.addReplacedFolder(dir / "in", "OUTDIR (--force)");
  EXPECT_NE(problemOf(force).find("t.mha"), std::string::npos);
  OutputSet parent;  // replacing a folder above the input deletes it too
  parent.addInput(dir / "in" / "t.mha", "VOLUME");
  parent.addReplacedFolder(dir.path(), "--report (--force)");
  EXPECT_NE(problemOf(parent), "");
  OutputSet elsewhere;
  elsewhere.addInput(dir / "in" / "t.mha", "VOLUME");
  elsewhere.addReplacedFolder(dir / "out", "OUTDIR (--force)");
  EXPECT_EQ(problemOf(elsewhere), "");
}

TEST(OutputSet, AFileNameThatIsAnExistingFolderIsRefusedUpFront) {
  test::TempDir dir;
  fs::create_directories(dir / "o.mhd");
  OutputSet set;
  set.addOutput(dir / "o.mhd", "-o");
  EXPECT_NE(problemOf(set).find("existing folder"), std::string::npos);
  fs::create_directories(dir / "slices");
  test::writeBytes(dir / "slices" / "other.txt", "x");
  OutputSet series;
  series.addOutput(dir / "slices/", "-o");
  EXPECT_NE(problemOf(series).find("holds files"), std::string::npos);
}

TEST(OutputSet, StagedFilesAppearOnlyOnCommitAllTogether) {
  test::TempDir dir;
  test::writeBytes(dir / "keep.txt", "mine");
  const Volume v = test::randomVolume({4, 3, 2}, 7);
  {
    OutputSet set;
    set.addOutput(dir / "r.mhd", "-o");
    set.addOutput(dir / "sub" / "t.csv", "--telemetry");
    set.check();
    writeVolume(set.staged(dir / "r.mhd"), v);
    test::writeBytes(set.staged(dir / "sub" / "t.csv"), "a,b\n");
    EXPECT_FALSE(fs::exists(dir / "r.mhd"));
    EXPECT_FALSE(fs::exists(dir / "sub"));
    set.commit();
  }
  EXPECT_EQ(namesIn(dir.path()), (std::vector<std::string>{"keep.txt", "r.mhd", "r.raw", "sub"}));
  EXPECT_EQ(namesIn(dir / "sub"), std::vector<std::string>{"t.csv"});
  test::expectSameVolume(readVolume(dir / "r.mhd"), v);
}

TEST(OutputSet, AbandonedOrCancelledBeforeCommitLeavesNothing) {
  test::TempDir dir;
  {
    OutputSet set;
    writeVolume(set.staged(dir / "r.mhd"), test::randomVolume({2, 2, 2}, 1));
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  CancelToken token;
  OutputSet set(&token);
  writeVolume(set.staged(dir / "r.mhd"), test::randomVolume({2, 2, 2}, 1));
  test::writeBytes(set.staged(dir / "r.run.json"), "{}");
  token.request();  // Ctrl-C while the outputs were written
  EXPECT_THROW(set.commit(), Cancelled);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(OutputSet, AFailedRenamePutsTheOldFilesBack) {
  test::TempDir dir;
  test::writeBytes(dir / "a.csv", "old a");
  OutputSet set;
  test::writeBytes(set.staged(dir / "a.csv"), "new a");
  test::writeBytes(set.staged(dir / "b.pgm"), "new b");
  // b.pgm becomes a folder with files before the commit: its rename must fail.
  fs::create_directories(dir / "b.pgm");
  test::writeBytes(dir / "b.pgm" / "x", "x");
  EXPECT_THROW(set.commit(), IoError);
  EXPECT_EQ(test::readBytes(dir / "a.csv"), "old a");
  EXPECT_EQ(namesIn(dir.path()), (std::vector<std::string>{"a.csv", "b.pgm"}));
}

// D17: two runs writing one .mhd name. Staged pairs are committed whole, under a lock of the
// folder: the result is one run's header with the same run's data, never a mix.
TEST(OutputSet, PairsOfTwoWritersNeverMixAndCommitsWaitForTheFolderLock) {
  test::TempDir dir;
  const Volume small = test::randomVolume({4, 4, 4}, 1), large = test::randomVolume({6, 6, 6}, 2);
  OutputSet a, b;
  writeVolume(a.staged(dir / "r.mhd"), small);
  writeVolume(b.staged(dir / "r.mhd"), large);
  b.commit();
  a.commit();
  test::expectSameVolume(readVolume(dir / "r.mhd"), small);

  OutputSet c;
  writeVolume(c.staged(dir / "r.mhd"), large);
  const int folder = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(folder, 0);
  ASSERT_EQ(::flock(folder, LOCK_EX), 0);  // another writer is committing
  std::atomic<bool> done{false};
  std::thread committer([&] {
    c.commit();
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(done) << "the commit did not wait for the folder's lock";
  test::expectSameVolume(readVolume(dir / "r.mhd"), small);
  ::flock(folder, LOCK_UN);
  ::close(folder);
  committer.join();
  EXPECT_TRUE(done);
  test::expectSameVolume(readVolume(dir / "r.mhd"), large);
  EXPECT_EQ(namesIn(dir.path()), (std::vector<std::string>{"r.mhd", "r.raw"}));
}

TEST(OutputSet, ANewFolderIsCreatedOnlyByTheCommit) {
  test::TempDir dir;
  OutputSet set;
  test::writeBytes(set.staged(dir / "demo" / "summary.json"), "{}");
  test::writeBytes(set.staged(dir / "demo" / "run.json"), "{}");
  EXPECT_FALSE(fs::exists(dir / "demo"));
  set.commit();
  EXPECT_EQ(namesIn(dir / "demo"), (std::vector<std::string>{"run.json", "summary.json"}));
  EXPECT_EQ(namesIn(dir.path()), std::vector<std::string>{"demo"});
}

TEST(OutputSet, ErrorMessagesNameTheFinalPathsNotTheStagingFolders) {
  test::TempDir dir;
  OutputSet set;
  const fs::path inExisting = set.staged(dir / "r.raw");
  const fs::path inNew = set.staged(dir / "demo" / "truth.raw");
  const std::string message = inExisting.string() + ": write failed; " + inNew.string() +
                              ": write failed: No space left on device";
  EXPECT_EQ(OutputSet::withFinalNames(message), (dir / "r.raw").string() + ": write failed; " +
                                                    (dir / "demo" / "truth.raw").string() +
                                                    ": write failed: No space left on device");
}

}  // namespace
}  // namespace tomowb::io
