// SHA-256 of files (run records hash every input): known digests, and pipes and devices refused
// by name instead of blocking or hashing forever (D7 of the hostile-input review: `rerun` of a
// record whose inputs named a FIFO or /dev/zero hung, and SIGTERM could not end it).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "recon/core/Error.h"
#include "recon/io/Sha256.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

TEST(Sha256, HashesAFileLikeItsBytes) {
  if (!sha256Available()) GTEST_SKIP() << "no OpenSSL";
  test::TempDir dir;
  std::ofstream(dir / "abc.txt") << "abc";
  EXPECT_EQ(sha256HexOfFile(dir / "abc.txt"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const std::string big((std::size_t{1} << 20) + 17, 'q');  // more than one 1 MiB block
  std::ofstream(dir / "big.bin", std::ios::binary) << big;
  EXPECT_EQ(sha256HexOfFile(dir / "big.bin"), sha256Hex(big));
  EXPECT_THROW(sha256HexOfFile(dir / "missing"), IoError);
}

TEST(Sha256, RefusesPipesAndDevicesNamingThem) {
  if (!sha256Available()) GTEST_SKIP() << "no OpenSSL";
  ::alarm(30);  // before the fix these blocked or ran forever: fail instead of hanging
  test::TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  for (const std::filesystem::path& path : {dir / "fifo", std::filesystem::path("/dev/zero")}) {
    try {
      sha256HexOfFile(path);
      ADD_FAILURE() << path;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
  }
  ::alarm(0);
}

}  // namespace
}  // namespace tomowb
