#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>

#include "recon/core/Error.h"
#include "recon/io/InputFile.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

TEST(InputFile, ReadsRangesInsideTheFile) {
  test::TempDir dir;
  test::writeBytes(dir / "a.bin", "0123456789");
  const InputFile file(dir / "a.bin");
  EXPECT_EQ(file.size(), 10u);
  EXPECT_EQ(file.readString(3, 4, "x"), "3456");
  EXPECT_EQ(file.readAll(10, "x"), "0123456789");
}

TEST(InputFile, RefusesARangeBeyondTheEndNamingTheFileAndField) {
  test::TempDir dir;
  test::writeBytes(dir / "a.bin", "0123456789");
  const InputFile file(dir / "a.bin");
  TOMOWB_EXPECT_FORMAT_ERROR(file.readString(8, 3, "payload"), dir / "a.bin", "payload");
  TOMOWB_EXPECT_FORMAT_ERROR(file.requireRange(UINT64_MAX - 1, 4, "offset"), dir / "a.bin",
                             "truncated");
  TOMOWB_EXPECT_FORMAT_ERROR(file.readAll(9, "sidecar"), dir / "a.bin", "limit");
}

TEST(InputFile, RefusesAFolder) {
  test::TempDir dir;
  TOMOWB_EXPECT_FORMAT_ERROR(InputFile(dir.path()), dir.path(), "not a regular file");
}

TEST(InputFile, RefusesAPipeWithoutWaitingForAWriter) {
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "pipe").c_str(), 0600), 0);
  TOMOWB_EXPECT_FORMAT_ERROR(InputFile(dir / "pipe"), dir / "pipe", "not a regular file");
}

TEST(InputFile, MissingFileIsAnIoErrorNamingIt) {
  test::TempDir dir;
  try {
    InputFile file(dir / "missing.raw");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.raw"), std::string::npos);
  }
}

TEST(InputFile, RefusesASymbolicLinkWhenAskedNamingIt) {
  test::TempDir dir;
  test::writeBytes(dir / "data.raw", "1234");
  std::filesystem::create_symlink("data.raw", dir / "link.raw");
  EXPECT_EQ(InputFile(dir / "link.raw").size(), 4u);
  TOMOWB_EXPECT_FORMAT_ERROR(InputFile(dir / "link.raw", Symlinks::Refuse), dir / "link.raw",
                             "symbolic link");
  EXPECT_EQ(InputFile(dir / "data.raw", Symlinks::Refuse).size(), 4u);
}

TEST(InputFile, DataFileBesideHeaderTakesOnlyPlainNames) {
  EXPECT_EQ(dataFileBesideHeader("/d/h.mhd", "h.raw", "ElementDataFile"),
            std::filesystem::path("/d/h.raw"));
  for (const std::string bad : {"", ".", "..", "../x.raw", "/etc/passwd", "a/b.raw"})
    TOMOWB_EXPECT_FORMAT_ERROR(dataFileBesideHeader("/d/h.mhd", bad, "ElementDataFile"), "/d/h.mhd",
                               "ElementDataFile");
}

}  // namespace
}  // namespace tomowb::io
