#include <gtest/gtest.h>
#include <unistd.h>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

std::size_t entriesIn(const std::filesystem::path& folder) {
  return static_cast<std::size_t>(std::distance(std::filesystem::directory_iterator(folder),
                                                std::filesystem::directory_iterator()));
}

TEST(AtomicFileWriter, CommitPutsTheDataAtTheFinalPathAndNothingElse) {
  test::TempDir dir;
  {
    AtomicFileWriter out(dir / "result.bin");
    out.write("hello ");
    out.write("world");
    EXPECT_EQ(out.bytesWritten(), 11u);
    EXPECT_FALSE(std::filesystem::exists(dir / "result.bin"));
    out.commit();
  }
  EXPECT_EQ(test::readBytes(dir / "result.bin"), "hello world");
  EXPECT_EQ(entriesIn(dir.path()), 1u);
}

TEST(AtomicFileWriter, AbandonedWithoutCommitLeavesNoFileAtAll) {
  test::TempDir dir;
  std::filesystem::path temporary;
  {
    AtomicFileWriter out(dir / "result.bin");
    temporary = out.temporaryPath();
    out.write("partial data");
    EXPECT_TRUE(std::filesystem::exists(temporary));
  }
  EXPECT_FALSE(std::filesystem::exists(temporary));
  EXPECT_FALSE(std::filesystem::exists(dir / "result.bin"));
  EXPECT_EQ(entriesIn(dir.path()), 0u);
}

TEST(AtomicFileWriter, ExplicitAbandonRemovesTheTemporaryFileAndRefusesMoreWrites) {
  test::TempDir dir;
  AtomicFileWriter out(dir / "result.bin");
  out.write("x");
  out.abandon();
  EXPECT_EQ(entriesIn(dir.path()), 0u);
  EXPECT_THROW(out.write("y"), IoError);
  EXPECT_THROW(out.commit(), IoError);
}

TEST(AtomicFileWriter, KeepsTheOldFileUntilCommitThenReplacesIt) {
  test::TempDir dir;
  test::writeBytes(dir / "result.bin", "old");
  {
    AtomicFileWriter out(dir / "result.bin");
    out.write("new");
    EXPECT_EQ(test::readBytes(dir / "result.bin"), "old");
  }
  EXPECT_EQ(test::readBytes(dir / "result.bin"), "old");
  AtomicFileWriter out(dir / "result.bin");
  out.write("new");
  out.commit();
  EXPECT_EQ(test::readBytes(dir / "result.bin"), "new");
}

TEST(AtomicFileWriter, FailedRenameLeavesNoTemporaryFileAndNamesThePath) {
  test::TempDir dir;
  std::filesystem::create_directories(dir / "occupied" / "child");
  AtomicFileWriter out(dir / "occupied");
  out.write("data");
  try {
    out.commit();
    FAIL() << "a non-empty folder cannot be replaced by a file";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("occupied"), std::string::npos) << e.what();
  }
  EXPECT_EQ(entriesIn(dir.path()), 1u);
}

TEST(AtomicFileWriter, MissingFolderIsAnIoErrorNamingThePath) {
  test::TempDir dir;
  try {
    AtomicFileWriter out(dir / "no-such-folder" / "result.bin");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("result.bin"), std::string::npos) << e.what();
  }
}

TEST(AtomicFileWriter, DuplicateHandleWritesIntoTheTemporaryFile) {
  test::TempDir dir;
  AtomicFileWriter out(dir / "result.bin");
  const int fd = out.duplicateHandle();
  ASSERT_EQ(::write(fd, "abc", 3), 3);
  ::close(fd);
  out.commit();
  EXPECT_EQ(test::readBytes(dir / "result.bin"), "abc");
}

TEST(AtomicFileWriter, TemporaryNamesOfLongFileNamesStayWithinTheNameLimit) {
  const std::string longName(250, 'n');
  const auto name = temporarySiblingName(std::filesystem::path("/tmp") / longName, "partial");
  EXPECT_LE(name.filename().string().size(), 255u);
}

}  // namespace
}  // namespace tomowb::io
