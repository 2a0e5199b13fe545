// Any projections with any geometry from the command line (issue #17, point 3): an ASTRA user's
// .npy ([rows][views][cols]) and cone_vec text reconstruct in one `recon fdk` command into the
// same volume as our raw + JSON pair of the same scan; `convert` writes that pair; a view-count
// mismatch is refused naming both files; `recon wbp` takes an .npy with an IMOD .tlt.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <numbers>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "recon/geometry/ScanBuilders.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/ImodFiles.h"
#include "recon/io/NpyIo.h"
#include "recon/io/SampleType.h"
#include "recon/io/TiffIo.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "recon/phantom/AnalyticProjector.h"
#include "support/TestSupport.h"
#include "tests/recon/io/IoTestSupport.h"

namespace tomowb {
namespace {

struct CliResult {
  int exitCode = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CliResult cli(const std::vector<std::string>& args, const test::TempDir& dir) {
  test::ProgramLaunch launch;
  launch.program = TOMOWB_CLI_PATH;
  launch.arguments = args;
  launch.stdoutPath = dir / "stdout.txt";
  launch.stderrPath = dir / "stderr.txt";
  const pid_t pid = test::startProgram(launch);
  std::string command = "tomowb-cli";
  for (const std::string& a : args) command += " " + a;
  const int status = test::waitForChild(pid, command);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
          slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
}

Geometry scanGeometry(std::int64_t views) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 40;
  p.detector.rows = 28;
  p.detector.pitchUMm = p.detector.pitchVMm = 6.0;
  p.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(p);
}

void writeConeVec(const std::filesystem::path& path, const Geometry& g) {
  std::ofstream out(path);
  out << std::setprecision(17);
  for (const View& v : g.views()) {
    for (const auto* vec : {&v.source, &v.detectorCentre, &v.u, &v.v})
      out << vec->x() << " " << vec->y() << " " << vec->z() << " ";
    out << "\n";
  }
}

// As ASTRA's astra.data3d.get hands it over: numpy shape (rows, views, cols).
void writeAstraNpy(const std::filesystem::path& path, const ProjectionStack& p) {
  Volume a = Volume::centred({p.cols(), p.viewCount(), p.rows()}, Eigen::Vector3d::Ones());
  for (std::int64_t v = 0; v < p.viewCount(); ++v)
    for (std::int64_t r = 0; r < p.rows(); ++r)
      for (std::int64_t c = 0; c < p.cols(); ++c) a.at(c, v, r) = p.at(v, r, c);
  io::writeNpy(path, a);
}

// `a` is `reference` within float32 rounding: the largest difference at most 1e-5 of the largest
// magnitude, which must not be 0.
void expectSameWithin1e5(const Volume& a, const Volume& reference) {
  ASSERT_EQ(a.shape(), reference.shape());
  float worst = 0, peak = 0;
  for (std::size_t i = 0; i < a.voxels().size(); ++i) {
    worst = std::max(worst, std::abs(a.voxels()[i] - reference.voxels()[i]));
    peak = std::max(peak, std::abs(reference.voxels()[i]));
  }
  ASSERT_GT(peak, 0.0f);
  EXPECT_LE(worst, 1e-5f * peak);
}

class ProjectionInputCli : public testing::Test {
 protected:
  void SetUp() override {
    projections = phantom::projectPhantom(phantom::modifiedSheppLogan3d(100.0), scanGeometry(48),
                                          {}, nullptr);
    writeAstraNpy(dir / "projections.npy", projections);
    writeConeVec(dir / "cone_vec.txt", projections.geometry());
    io::writeProjections(dir / "scan.json", projections);
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  // `tomowb-cli --no-record recon fdk ARGS` on a 32^3 grid of 5 mm voxels.
  CliResult fdk32(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--no-record", "recon", "fdk"});
    args.insert(args.end(), {"--size", "32", "--voxel-mm", "5"});
    return cli(args, dir);
  }

  test::TempDir dir;
  ProjectionStack projections;
};

TEST_F(ProjectionInputCli, AnAstraNpyAndConeVecReconstructInOneCommandAsOurPairDoes) {
  CliResult r =
      cli({"--no-record", "recon", "fdk", "-i", path("projections.npy"), "--geometry",
           path("cone_vec.txt"), "-o", path("astra.mhd"), "--size", "32", "--voxel-mm", "5"},
          dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("ASTRA layout [rows][views][cols]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ASTRA cone_vec vectors"), std::string::npos) << r.out;
  r = cli({"--no-record", "recon", "fdk", "-i", path("scan.json"), "-o", path("ours.mhd"), "--size",
           "32", "--voxel-mm", "5"},
          dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  expectSameWithin1e5(io::readVolume(dir / "astra.mhd"), io::readVolume(dir / "ours.mhd"));
}

// Out of core (issue #22, point 2): a slab run of an .npy, a MetaImage (.mha, .mhd + .raw), an
// MRC stack, a multi-page TIFF or a TIFF series with --geometry reads a band of detector rows at a
// time from the file (ASTRA's layout and ours), and gives the slab run of our raw pair of the same
// scan within float32 rounding.
// The stack as a Fortran-order float32 .npy (the first axis fastest): in our layout
// (views, rows, cols), or in ASTRA's (rows, views, cols).
std::string fortranNpy(const ProjectionStack& p, bool astra) {
  std::string samples;
  const std::int64_t first = astra ? p.rows() : p.viewCount(),
                     second = astra ? p.viewCount() : p.rows();
  for (std::int64_t c = 0; c < p.cols(); ++c)
    for (std::int64_t j = 0; j < second; ++j)
      for (std::int64_t i = 0; i < first; ++i) {
        const float value = astra ? p.at(j, i, c) : p.at(i, j, c);
        samples.append(reinterpret_cast<const char*>(&value), sizeof value);
      }
  const std::string shape = "(" + std::to_string(first) + ", " + std::to_string(second) + ", " +
                            std::to_string(p.cols()) + ")";
  return test::npyFile(test::dict("<f4", shape, true), samples);
}

TEST_F(ProjectionInputCli, AStackFileRunsInSlabsReadingABandOfRowsAtATime) {
  // Ours: [views][rows][cols].
  Volume views = Volume::centred({projections.cols(), projections.rows(), projections.viewCount()},
                                 Eigen::Vector3d::Ones());
  std::copy(projections.pixels().begin(), projections.pixels().end(), views.voxels().begin());
  io::writeNpy(dir / "views.npy", views);
  io::writeVolume(dir / "views.mha", views);
  io::writeVolume(dir / "views.mhd", views);
  io::writeVolume(dir / "views.mrc", views);
  // A Fortran-order .npy (views fastest), as numpy saves a column-major array: read a column
  // at a time.
  test::writeBytes(dir / "fortran.npy", fortranNpy(projections, false));
  std::vector<std::pair<std::string, std::string>> inputs = {
      {"fortran.npy", "views"}, {"projections.npy", "astra"}, {"views.npy", "views"},
      {"views.mha", "views"},   {"views.mhd", "views"},       {"views.mrc", "views"}};
#if TOMOWB_HAVE_TIFF
  // A multi-page TIFF in both layouts, and a series (a folder of one file per view).
  io::writeVolume(dir / "views.tif", views);
  io::writeVolume(dir / "astra.tif", io::readVolume(dir / "projections.npy"));
  io::writeTiffSlices(dir / "series", views);
  inputs.insert(inputs.end(),
                {{"views.tif", "views"}, {"astra.tif", "astra"}, {"series", "views"}});
#endif
  if (io::hdf5VolumesSupported()) {
    // An HDF5 /volume dataset stored contiguously (as this program writes one), both layouts.
    io::writeVolume(dir / "views.h5", views);
    io::writeVolume(dir / "astra.h5", io::readVolume(dir / "projections.npy"));
    // Chunked and compressed, as facilities write them: read through libhdf5 band by band.
    io::writeHdf5VolumeChunked(dir / "views-chunked.h5", views);
    io::writeHdf5VolumeChunked(dir / "astra-chunked.h5", io::readVolume(dir / "projections.npy"));
    inputs.insert(inputs.end(), {{"views.h5", "views"},
                                 {"astra.h5", "astra"},
                                 {"views-chunked.h5", "views"},
                                 {"astra-chunked.h5", "astra"}});
  }
  // Fortran order in ASTRA's layout (rows fastest): a column's span of views at a time.
  test::writeBytes(dir / "astra-fortran.npy", fortranNpy(projections, true));
  inputs.emplace_back("astra-fortran.npy", "astra");
  CliResult r = fdk32({"-i", path("scan.json"), "-o", path("ours.raw"), "--slab-slices", "8"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Volume ours = io::readVolume(dir / "ours.raw");
  for (const auto& [file, layout] : inputs) {
    SCOPED_TRACE(file);
    const std::string result = file + ".out.raw";
    r = fdk32({"-i", path(file), "--geometry", path("cone_vec.txt"), "--layout", layout, "-o",
               path(result), "--slab-slices", "8"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("read a band of rows at a time"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("slab plan: 4 slabs of 8 slices"), std::string::npos) << r.out;
    expectSameWithin1e5(io::readVolume(dir / result), ours);
  }
}

// float16 stacks (numpy's '<f2'; MRC mode 12 is read the same way) run in slabs too, a band of
// rows at a time, giving the volume of the float32 stack of the same values.
TEST_F(ProjectionInputCli, AFloat16StackRunsInSlabsLikeItsFloat32Values) {
  // Our layout, [views][rows][cols]; the values rounded down to float16 (they are >= 0 and far
  // from float16's limits: a line integral of a few centimetres of 1/cm).
  std::string halves;
  Volume decoded = Volume::centred(
      {projections.cols(), projections.rows(), projections.viewCount()}, Eigen::Vector3d::Ones());
  auto out = decoded.voxels().begin();
  for (const float value : projections.pixels()) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    const int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127 + 15;
    const std::uint16_t half =
        exponent <= 0 ? 0
                      : static_cast<std::uint16_t>((bits >> 16 & 0x8000u) |
                                                   static_cast<std::uint32_t>(exponent) << 10 |
                                                   (bits >> 13 & 0x3ffu));
    ASSERT_LT(exponent, 31) << value;
    halves += static_cast<char>(half & 0xff);
    halves += static_cast<char>(half >> 8);
    *out++ = io::halfToFloat(half);
  }
  const std::string shape = "(" + std::to_string(projections.viewCount()) + ", " +
                            std::to_string(projections.rows()) + ", " +
                            std::to_string(projections.cols()) + ")";
  test::writeBytes(dir / "half.npy", test::npyFile(test::dict("<f2", shape), halves));
  io::writeNpy(dir / "decoded.npy", decoded);
  // The same halves as an MRC stack of mode 12: our float32 MRC with its mode and samples
  // replaced (the samples start after the 1024-byte header and the extended header, nsymbt).
  io::writeVolume(dir / "decoded.mrc", decoded);
  std::string mrc = test::readBytes(dir / "decoded.mrc");
  std::int32_t extended = 0;
  std::memcpy(&extended, mrc.data() + 92, 4);
  const std::int32_t mode = 12;
  std::memcpy(mrc.data() + 12, &mode, 4);
  mrc.resize(1024 + static_cast<std::size_t>(extended));
  test::writeBytes(dir / "half.mrc", mrc + halves);
  CliResult r = fdk32({"-i", path("decoded.npy"), "--geometry", path("cone_vec.txt"), "--layout",
                       "views", "-o", path("decoded.raw"), "--slab-slices", "8"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Volume fromFloat = io::readVolume(dir / "decoded.raw");
  for (const std::string input : {"half.npy", "half.mrc"}) {
    SCOPED_TRACE(input);
    r = fdk32({"-i", path(input), "--geometry", path("cone_vec.txt"), "--layout", "views", "-o",
               path(input + ".raw"), "--slab-slices", "8"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("read a band of rows at a time"), std::string::npos) << r.out;
    const Volume fromHalf = io::readVolume(dir / (input + ".raw"));
    ASSERT_EQ(fromHalf.shape(), fromFloat.shape());
    EXPECT_TRUE(
        std::equal(fromHalf.voxels().begin(), fromHalf.voxels().end(), fromFloat.voxels().begin()))
        << "the float16 stack did not give the bits of its float32 values";
  }
}

// Out of core: a RabbitCT file (each view's matrix between the views' pixels) runs in slabs
// reading a band of rows of each view, as the whole file loaded gives it.
TEST_F(ProjectionInputCli, ARabbitCtFileRunsInSlabsReadingABandOfRowsAtATime) {
  test::writeBytes(
      dir / "scan.rct",
      test::rabbitFile(projections.geometry(), [&](std::int64_t v, std::int64_t r, std::int64_t c) {
        return projections.at(v, r, c);
      }));
  CliResult r = fdk32({"-i", path("scan.rct"), "-o", path("whole.raw")});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find("read a band of rows at a time"), std::string::npos) << r.out;
  r = fdk32({"-i", path("scan.rct"), "-o", path("slabs.raw"), "--slab-slices", "8"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("(RabbitCT) with its own matrices, read a band of rows at a time"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("slab plan: 4 slabs of 8 slices"), std::string::npos) << r.out;
  expectSameWithin1e5(io::readVolume(dir / "slabs.raw"), io::readVolume(dir / "whole.raw"));
}

TEST_F(ProjectionInputCli, ConvertWritesRawAndJsonWithTheGeometry) {
  const CliResult r = cli({"convert", path("projections.npy"), "--geometry", path("cone_vec.txt"),
                           "-o", path("converted.json")},
                          dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const ProjectionStack back = io::readProjections(dir / "converted.json");
  ASSERT_EQ(back.pixelCount(), projections.pixelCount());
  EXPECT_TRUE(std::equal(back.pixels().begin(), back.pixels().end(), projections.pixels().begin()));
  ASSERT_EQ(back.viewCount(), projections.viewCount());
  for (std::int64_t i = 0; i < back.viewCount(); ++i)
    EXPECT_TRUE(back.geometry().projectionMatrix(i).isApprox(
        projections.geometry().projectionMatrix(i), 1e-12));
  // Only raw + JSON holds projections with their geometry.
  const CliResult bad = cli({"convert", path("projections.npy"), "--geometry", path("cone_vec.txt"),
                             "-o", path("converted.mhd")},
                            dir);
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("--out"), std::string::npos) << bad.err;
}

TEST_F(ProjectionInputCli, AViewCountMismatchNamesBothFiles) {
  writeConeVec(dir / "short.txt", scanGeometry(47));
  const CliResult r = cli({"recon", "fdk", "-i", path("projections.npy"), "--geometry",
                           path("short.txt"), "-o", path("never.mhd")},
                          dir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("projections.npy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("short.txt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("47 views"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "never.mhd"));
  // Without a geometry an .npy is refused naming the option.
  const CliResult none =
      cli({"recon", "fdk", "-i", path("projections.npy"), "-o", path("never.mhd")}, dir);
  EXPECT_EQ(none.exitCode, 1);
  EXPECT_NE(none.err.find("--geometry"), std::string::npos) << none.err;
}

// A tilt series of the Shepp-Logan phantom: 31 views from -60 to +60 degrees, 32 columns.
std::pair<TiltSeriesParams, ProjectionStack> sheppLoganTiltSeries(std::int64_t rows) {
  TiltSeriesParams scan;
  scan.cols = 32;
  scan.rows = rows;
  for (int i = 0; i < 31; ++i)
    scan.tiltAnglesRad.push_back((-60.0 + 4.0 * i) * std::numbers::pi / 180);
  ProjectionStack p =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(20.0), tiltSeries(scan), {}, nullptr);
  return {std::move(scan), std::move(p)};
}

// An MRC tilt series with its .tlt, and a multi-page TIFF one with --tilt-angles, run in slabs
// reading a band of rows at a time (issue #22): the volume matches the run that loads the stack
// whole; --log needs whole views, so it loads it.
TEST(ProjectionInputCliEt, ATiltSeriesRunsInSlabsReadingABandOfRowsAtATime) {
  test::TempDir dir;
  const auto [scan, p] = sheppLoganTiltSeries(12);
  io::writeTiltSeries(dir / "ts.mrc", p, scan.tiltAnglesRad);  // and ts.tlt
  std::vector<std::vector<std::string>> inputs = {{"ts.mrc"}};
#if TOMOWB_HAVE_TIFF
  io::writeTiffProjections(dir / "ts.tif", p);
  inputs.push_back({"ts.tif", "--tilt-angles", (dir / "ts.tlt").string()});
#endif
  for (const std::vector<std::string>& input : inputs) {
    SCOPED_TRACE(input.front());
    const auto run = [&](const std::string& out, std::vector<std::string> extra) {
      std::vector<std::string> args = {"--no-record", "recon", "sirt", "-i",
                                       (dir / input.front()).string()};
      args.insert(args.end(), input.begin() + 1, input.end());
      for (const char* a : {"--thickness", "8", "--iterations", "3", "-o"}) args.emplace_back(a);
      args.push_back((dir / out).string());
      args.insert(args.end(), extra.begin(), extra.end());
      return cli(args, dir);
    };
    const CliResult whole = run("whole.json", {});
    ASSERT_EQ(whole.exitCode, 0) << whole.err;
    const CliResult slabs = run("slabs.json", {"--slab-slices", "5"});
    ASSERT_EQ(slabs.exitCode, 0) << slabs.err;
    EXPECT_NE(slabs.out.find("(tilt series) with tilt angles from ts.tlt"), std::string::npos)
        << slabs.out;
    EXPECT_NE(slabs.out.find("read a band of rows at a time"), std::string::npos) << slabs.out;
    const Volume a = io::readVolume(dir / "whole.json");
    const Volume b = io::readVolume(dir / "slabs.json");
    ASSERT_EQ(a.voxelCount(), b.voxelCount());
    double worst = 0, peak = 0;
    for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
      worst = std::max(worst, double(std::abs(a.voxels()[i] - b.voxels()[i])));
      peak = std::max(peak, double(std::abs(a.voxels()[i])));
    }
    ASSERT_GT(peak, 0.0);
    EXPECT_LE(worst, 1e-5 * peak) << "the slab run differs from the whole run";

    const CliResult logged = run("log.json", {"--slab-slices", "5", "--log", "--i0", "10"});
    ASSERT_EQ(logged.exitCode, 0) << logged.err;
    EXPECT_EQ(logged.out.find("read a band of rows at a time"), std::string::npos) << logged.out;
  }
}

TEST(ProjectionInputCliEt, WbpTakesAnNpyWithATlt) {
  test::TempDir dir;
  const auto [scan, p] = sheppLoganTiltSeries(8);
  Volume stack = Volume::centred({p.cols(), p.rows(), p.viewCount()}, Eigen::Vector3d::Ones());
  std::copy(p.pixels().begin(), p.pixels().end(), stack.voxels().begin());
  io::writeNpy(dir / "tilts.npy", stack);
  std::vector<double> deg;
  for (double a : scan.tiltAnglesRad) deg.push_back(a * 180 / std::numbers::pi);
  io::writeTiltAnglesDeg(dir / "angles.tlt", deg);
  const CliResult r =
      cli({"--no-record", "recon", "wbp", "-i", (dir / "tilts.npy").string(), "--geometry",
           (dir / "angles.tlt").string(), "--thickness", "8", "-o", (dir / "wbp.mrc").string()},
          dir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.err.find("pixel size unknown"), std::string::npos) << r.err;
  EXPECT_EQ(io::readVolume(dir / "wbp.mrc").nx(), 32);
}

}  // namespace
}  // namespace tomowb
