#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
  // The folder appears after the writer started (one there at the start is refused at once).
  AtomicFileWriter out(dir / "occupied");
  std::filesystem::create_directories(dir / "occupied" / "child");
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

// Review D6: a FIFO, a device node or a link to one at the output path was replaced by a
// regular file (as root with /dev/null: the system's node). Such a target is refused, before any
// data is written, and stays as it was.
TEST(AtomicFileWriter, RefusesATargetThatIsNotARegularFileAndLeavesItAlone) {
  test::TempDir dir;
  const auto fifo = dir / "fifo.csv";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THROW(AtomicFileWriter{fifo}, IoError);
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));

  const auto link = dir / "stdout.csv";
  std::filesystem::create_symlink("/dev/null", link);
  try {
    AtomicFileWriter out(link);
    ADD_FAILURE() << "a link to /dev/null was accepted";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("character device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("stdout.csv"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_symlink(link));

  std::filesystem::create_directory(dir / "folder.csv");
  EXPECT_THROW(AtomicFileWriter{dir / "folder.csv"}, IoError);

  const auto node = dir / "null.csv";  // a copy of /dev/null: needs root (CI runs as root)
  if (::mknod(node.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) {
    EXPECT_THROW(AtomicFileWriter{node}, IoError);
    EXPECT_TRUE(std::filesystem::is_character_file(node));
  }
  EXPECT_EQ(entriesIn(dir.path()), 4u - (std::filesystem::exists(node) ? 0u : 1u))
      << "no temporary file may be left";

  // A link into /proc names a process's stream (/dev/stdout, /proc/self/fd/1) even when a regular
  // file sits behind it: refused, never replaced (review D6).
  {
    const int fd = ::open((dir / "behind.csv").c_str(), O_CREAT | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    const auto procLink = dir / "fd.csv";
    std::filesystem::create_symlink("/proc/self/fd/" + std::to_string(fd), procLink);
    try {
      AtomicFileWriter out(procLink);
      ADD_FAILURE() << "a link to /proc/self/fd was accepted";
    } catch (const IoError& e) {
      EXPECT_NE(std::string(e.what()).find("/proc/self/fd/"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(std::filesystem::is_symlink(procLink));
    ::close(fd);
    std::filesystem::remove(procLink);
    std::filesystem::remove(dir / "behind.csv");
  }

  // A link to a regular file is still replaced, as before.
  test::writeBytes(dir / "real.csv", "old");
  std::filesystem::create_symlink(dir / "real.csv", dir / "alias.csv");
  AtomicFileWriter out(dir / "alias.csv");
  out.write("new");
  out.commit();
  EXPECT_EQ(test::readBytes(dir / "alias.csv"), "new");
}

TEST(AtomicFileWriter, ATargetThatBecomesAFifoBeforeCommitIsRefusedThen) {
  test::TempDir dir;
  AtomicFileWriter out(dir / "late.csv");
  out.write("data");
  ASSERT_EQ(::mkfifo((dir / "late.csv").c_str(), 0600), 0);
  EXPECT_THROW(out.commit(), IoError);
  EXPECT_TRUE(std::filesystem::is_fifo(dir / "late.csv"));
  EXPECT_EQ(entriesIn(dir.path()), 1u);
}

}  // namespace
}  // namespace tomowb::io
