#include <gtest/gtest.h>

#include <thread>

#include "recon/core/Error.h"
#include "recon/io/ProgressFile.h"
#include "support/TestSupport.h"

namespace tomowb::io {
namespace {

TEST(ProgressFile, IsWrittenAtOnceThrottledWhileRunningAndFinishedAtTheEnd) {
  test::TempDir dir;
  const auto path = dir / "progress.json";
  ProgressFileWriter writer(path, 0, 1, std::chrono::milliseconds(200));
  std::optional<ProgressSnapshot> s = readProgressFile(path);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->state, ProgressState::Running);
  EXPECT_EQ(s->stage, "start");
  EXPECT_GT(s->pid, 0);
  writer.report("filter", 0.1);  // a new stage: written at once
  EXPECT_DOUBLE_EQ(readProgressFile(path)->fraction, 0.1);
  writer.report("filter", 0.2);  // within 200 ms of the last write: not yet
  EXPECT_DOUBLE_EQ(readProgressFile(path)->fraction, 0.1);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  writer.report("filter", 0.3);
  EXPECT_DOUBLE_EQ(readProgressFile(path)->fraction, 0.3);
  writer.finish(ProgressState::Failed, 1, "scan.json: field 'detector.rows': must be > 0");
  writer.report("filter", 0.9);  // after the end: ignored
  s = readProgressFile(path);
  EXPECT_EQ(s->state, ProgressState::Failed);
  EXPECT_EQ(s->exitCode, 1);
  EXPECT_EQ(s->message, "scan.json: field 'detector.rows': must be > 0");
  EXPECT_DOUBLE_EQ(s->fraction, 0.3);
}

TEST(ProgressFile, AFolderThatIsNotThereFailsAtTheStartNamingTheFile) {
  EXPECT_THROW(ProgressFileWriter("/nonexistent-folder/progress.json", 0, 1), IoError);
  EXPECT_FALSE(readProgressFile("/nonexistent-folder/progress.json"));
}

TEST(ProgressFile, RanksWriteFilesOfTheirOwnThatCombineIntoTheRun) {
  EXPECT_EQ(progressPathForRank("/j/progress.json", 0, 1), "/j/progress.json");
  EXPECT_EQ(progressPathForRank("/j/progress.json", 1, 2), "/j/progress.rank1.json");
  ProgressSnapshot a, b;
  a.ranks = b.ranks = 2;
  b.rank = 1;
  a.fraction = 0.5;
  b.fraction = 0.25;
  auto c = combineProgress({a, b});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->state, ProgressState::Running);
  EXPECT_DOUBLE_EQ(c->fraction, 0.375);
  EXPECT_DOUBLE_EQ(combineProgress({a}, 2)->fraction, 0.25);  // rank 1 not started yet
  a.state = ProgressState::Done;
  EXPECT_EQ(combineProgress({a, b})->state, ProgressState::Running);
  b.state = ProgressState::Failed;
  b.message = "disk full";
  c = combineProgress({a, b});
  EXPECT_EQ(c->state, ProgressState::Failed);
  EXPECT_EQ(c->message, "disk full");
  EXPECT_FALSE(combineProgress({}));
}

TEST(ProgressFile, TextThatIsNotAProgressFileIsAFormatErrorNamingIt) {
  EXPECT_THROW(parseProgressText("{}", "p.json"), FormatError);
  EXPECT_THROW(parseProgressText("not json", "p.json"), FormatError);
  ProgressSnapshot s;
  nlohmann::json j = s.toJson();
  j["state"] = "exploded";
  EXPECT_THROW(ProgressSnapshot::fromJson(j, "p.json"), FormatError);
}

}  // namespace
}  // namespace tomowb::io
