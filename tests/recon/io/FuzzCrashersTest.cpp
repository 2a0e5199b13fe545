// Regression tests for the inputs our libFuzzer targets (fuzz/) found: each file in
// tests/data/io/fuzz-crashers/<target>/ is fed to the same reader call as fuzz/fuzz_<target>.cpp
// and must now be refused with a FormatError instead of crashing, hanging or allocating.
#include <gtest/gtest.h>

#include "fuzz/FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiffIo.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb::io {
namespace {

const std::filesystem::path kCrashers =
    std::filesystem::path(TOMOWB_TEST_DATA_DIR) / "io" / "fuzz-crashers";

// Splits an input as fuzz::splitInput does and writes header (and payload) into `dir`.
std::pair<std::filesystem::path, bool> writeSplit(const std::string& input,
                                                  const test::TempDir& dir,
                                                  const std::string& headerName,
                                                  const std::string& singleName) {
  const auto at = input.find(fuzz::kPayloadSeparator);
  if (at == std::string::npos) {
    test::writeBytes(dir / singleName, input);
    return {dir / singleName, false};
  }
  test::writeBytes(dir / headerName, input.substr(0, at));
  test::writeBytes(dir / "in.raw", input.substr(at + fuzz::kPayloadSeparator.size()));
  return {dir / headerName, true};
}

// Runs `read` on every crasher of `target` (copied into a scratch folder as the fuzzer did).
void expectAllRefused(const std::string& target,
                      const std::function<void(const std::string&, const test::TempDir&)>& read) {
  const auto folder = kCrashers / target;
  if (!std::filesystem::exists(folder)) return;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const test::TempDir dir;
    const std::string input = test::readBytes(entry.path());
    const std::string message = test::formatErrorOf([&] { read(input, dir); });
    EXPECT_NE(message.find(dir.path().string()), std::string::npos)
        << entry.path() << ": " << message;
    EXPECT_EQ(message.rfind("not a FormatError", 0), std::string::npos)
        << entry.path() << ": " << message;
  }
}

TEST(FuzzCrashers, RawSidecarCrashersAreFormatErrors) {
  expectAllRefused("raw_sidecar", [](const std::string& input, const test::TempDir& dir) {
    const auto [sidecar, withPayload] = writeSplit(input, dir, "in.json", "in.json");
    if (readRawSidecar(sidecar).content == RawContent::Volume)
      readVolumeRaw(sidecar);
    else
      readProjectionsRaw(sidecar);
  });
}

TEST(FuzzCrashers, MetaImageCrashersAreFormatErrors) {
  expectAllRefused("mhd", [](const std::string& input, const test::TempDir& dir) {
    readMetaImage(writeSplit(input, dir, "in.mhd", "in.mha").first);
  });
}

TEST(FuzzCrashers, NpyCrashersAreFormatErrors) {
  expectAllRefused("npy", [](const std::string& input, const test::TempDir& dir) {
    test::writeBytes(dir / "in.npy", input);
    readNpy(dir / "in.npy");
  });
}

TEST(FuzzCrashers, RabbitCtCrashersAreFormatErrors) {
  expectAllRefused("rabbitct", [](const std::string& input, const test::TempDir& dir) {
    test::writeBytes(dir / "in.rct", input);
    readRabbitCt(dir / "in.rct");
  });
}

#if TOMOWB_HAVE_TIFF
TEST(FuzzCrashers, TiffCrashersAreFormatErrors) {
  expectAllRefused("tiff", [](const std::string& input, const test::TempDir& dir) {
    test::writeBytes(dir / "in.tif", input);
    readTiffVolume(dir / "in.tif");
  });
}
#endif

// Found on 2026-11-23: a tilt-series builder whose first tilt is -8e8 degrees with a 60-degree
// step made ~13 million views (a timeout); the loader now caps a builder at 2^20 views.
TEST(FuzzCrashers, GeometryJsonCrashersAreFormatErrors) {
  expectAllRefused("geometry_json", [](const std::string& input, const test::TempDir& dir) {
    test::writeBytes(dir / "in.json", input);
    loadGeometry(dir / "in.json");
  });
}

}  // namespace
}  // namespace tomowb::io
