// MemoryBudget under container and process limits (review D14): the memory a cgroup leaves and
// the address-space rlimit bound what the checks let through, and a refused allocation says
// which limit and how much.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/core/Volume.h"
#include "support/TestSupport.h"

namespace tomowb {
namespace {

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(MemoryBudget, CgroupV2LimitMinusUsageOfTheGroupAndItsAncestors) {
  test::TempDir root;
  writeText(root / "memory.max", "max\n");
  writeText(root / "a" / "memory.max", "1000000000\n");  // the parent binds tighter
  writeText(root / "a" / "memory.current", "900000000\n");
  writeText(root / "a" / "b" / "memory.max", "2000000000\n");
  writeText(root / "a" / "b" / "memory.current", "500000000\n");
  writeText(root / "a" / "b" / "memory.stat", "anon 1\ninactive_file 100000000\n");
  EXPECT_EQ(detail::cgroupAvailableBytes("0::/a/b\n", root.path()), 100000000u);
  EXPECT_EQ(detail::cgroupAvailableBytes("0::/\n", root.path()), std::nullopt);
}

TEST(MemoryBudget, CgroupV1MemoryControllerAndItsUnlimitedValue) {
  test::TempDir root;
  const auto group = root / "memory" / "docker" / "abc";
  writeText(group / "memory.limit_in_bytes", "209715200\n");  // 200 MiB, as in the review
  writeText(group / "memory.usage_in_bytes", "104857600\n");
  writeText(group / "memory.stat", "cache 5\ntotal_inactive_file 4857600\n");
  writeText(root / "memory" / "memory.limit_in_bytes", "9223372036854771712\n");
  const std::string cgroups = "5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n";
  EXPECT_EQ(detail::cgroupAvailableBytes(cgroups, root.path()), 209715200u - 100000000u);
  EXPECT_EQ(detail::cgroupAvailableBytes("4:memory:/\n", root.path()), std::nullopt);
}

TEST(MemoryBudget, AddressSpaceLimitBoundsTheCheckAndTheMessageSaysSo) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "RLIMIT_AS cannot be lowered under AddressSanitizer's shadow memory";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  GTEST_SKIP() << "RLIMIT_AS cannot be lowered under AddressSanitizer's shadow memory";
#endif
#endif
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_AS, &old), 0);
  std::uint64_t vmKib = 0;
  {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("VmSize:", 0) == 0) vmKib = std::stoull(line.substr(7));
  }
  ASSERT_GT(vmKib, 0u);
  struct rlimit tight = old;
  tight.rlim_cur = vmKib * 1024 + (std::uint64_t{256} << 20);
  if (old.rlim_max != RLIM_INFINITY && tight.rlim_cur > old.rlim_max) GTEST_SKIP();
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &tight), 0);
  const std::uint64_t available = availableHostMemoryBytes();
  std::string message;
  try {
    checkHostAllocation(std::uint64_t{1} << 30, "a test volume");
  } catch (const OutOfMemoryError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_AS, &old);
  EXPECT_LE(available, std::uint64_t{256} << 20);
  EXPECT_NE(message.find("1.00 GiB"), std::string::npos) << message;
  EXPECT_NE(message.find("address-space limit"), std::string::npos) << message;
}

TEST(MemoryBudget, AFailedAllocationBecomesAnOutOfMemoryErrorWithTheSize) {
  try {
    allocateOrExplain(std::uint64_t{3} << 30, "a 1024x1024x768 volume",
                      [] { throw std::bad_alloc(); });
    FAIL() << "no exception";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("3.00 GiB"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1024x1024x768"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb
