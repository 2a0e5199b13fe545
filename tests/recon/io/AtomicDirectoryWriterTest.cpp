#include <gtest/gtest.h>

#include "recon/core/Error.h"
#include "recon/io/AtomicDirectoryWriter.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

TEST(AtomicDirectoryWriter, CommitRenamesTheFinishedFolderIntoPlace) {
  test::TempDir dir;
  {
    AtomicDirectoryWriter out(dir / "series");
    test::writeBytes(out.temporaryFolder() / "a.tif", "a");
    EXPECT_FALSE(std::filesystem::exists(dir / "series"));
    out.commit();
  }
  EXPECT_EQ(test::readBytes(dir / "series" / "a.tif"), "a");
}

TEST(AtomicDirectoryWriter, AbandonedWithoutCommitRemovesTheFolderAndItsFiles) {
  test::TempDir dir;
  {
    AtomicDirectoryWriter out(dir / "series");
    test::writeBytes(out.temporaryFolder() / "a.tif", "a");
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(AtomicDirectoryWriter, ReplacesAnEmptyFolderAndAcceptsATrailingSeparator) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "series");
  AtomicDirectoryWriter out(dir.path() / "series/");
  test::writeBytes(out.temporaryFolder() / "a.tif", "a");
  out.commit();
  EXPECT_TRUE(std::filesystem::exists(dir / "series" / "a.tif"));
}

TEST(AtomicDirectoryWriter, RefusesAFolderThatHoldsFiles) {
  test::TempDir dir;
  std::filesystem::create_directory(dir / "series");
  test::writeBytes(dir / "series" / "keep.txt", "precious");
  EXPECT_THROW(AtomicDirectoryWriter(dir / "series"), IoError);
  EXPECT_EQ(test::readBytes(dir / "series" / "keep.txt"), "precious");
}

}  // namespace
}  // namespace tomowb::io
