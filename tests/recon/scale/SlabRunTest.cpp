// Out-of-core FDK in slabs (issue #22, points 2, 4 and 7): the slab plan bounds each slab's
// detector rows correctly and tiles the grid; reading rows from our raw file gives the same band
// as the stack in memory; slab runs match the in-memory FDK; 1, 2 and 4 ranks give the same bits;
// a run cancelled part-way and resumed (with another rank count, too) gives the same bits as an
// uninterrupted one; too little disk, a manifest of another run and a resume with nothing to
// resume are clear errors.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>
#include <utility>

#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/RawVolumeIo.h"
#if TOMOWB_HAVE_TIFF
#include "recon/io/TiffIo.h"
#endif
#include "recon/io/VolumeFiles.h"
#include "recon/job/CancelToken.h"
#include "recon/job/ProgressSink.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/scale/ProjectionRowSource.h"
#include "recon/scale/SlabPlan.h"
#include "recon/scale/SlabRun.h"
#include "support/TestSupport.h"

namespace tomowb::scale {
namespace {

namespace fs = std::filesystem;

Geometry coneScan(std::int64_t views = 60, double offsetV = 0.0) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 600;
  p.detector.cols = 64;
  p.detector.rows = 48;
  p.detector.pitchUMm = 2.0;
  p.detector.pitchVMm = 2.0;
  p.detector.offsetVMm = offsetV;
  p.anglesRad = fullScanAnglesRad(views, 0.2);
  return circularConeBeam(p);
}

const ProjectionStack& phantomScan() {
  static const ProjectionStack scan =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(40.0), coneScan());
  return scan;
}

// Stops the run once `slabs` slabs are in (the progress after each slab says how many).
struct StopAfter : ProgressSink {
  StopAfter(CancelToken& token, double fraction) : token(token), fraction(fraction) {}
  void report(std::string_view stage, double f) override {
    if (stage == "slabs" && f >= fraction) token.request();
  }
  CancelToken& token;
  double fraction;
};

// A 1 MiB tmpfs mounted at `path` for the test's life (root with CAP_SYS_ADMIN; CI runs as
// root), to fill up; `why` says why not where it cannot be mounted.
struct SmallDisk {
  explicit SmallDisk(fs::path at) : path(std::move(at)) {
    fs::create_directories(path);
    mounted = ::mount("tomowb-test", path.c_str(), "tmpfs", 0, "size=1m") == 0;
    if (!mounted)
      why = std::string("cannot mount a 1 MiB tmpfs to fill (") + std::strerror(errno) +
            "): needs root with CAP_SYS_ADMIN";
  }
  ~SmallDisk() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  fs::path path;
  bool mounted = false;
  std::string why;
};

// The phantom scan reconstructed on a 40 x 40 x 36 grid of 1.5 mm voxels.
class SlabRun : public testing::Test {
 protected:
  SlabRun() { params.volume = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5)); }
  test::TempDir dir;
  const ProjectionStack& scan = phantomScan();
  fdk::FdkParams params;
  InMemoryRowSource source{scan};
  JobContext plain;

  // The raw output of slabs of 5 slices, the reference of the other output formats.
  Volume rawReference() {
    SlabRunOptions o;
    o.plan.slabSlices = 5;
    o.output = dir / "raw.raw";
    EXPECT_TRUE(reconstructFdkInSlabs(source, params, o, plain).finished);
    return io::readVolumeRaw(o.output);
  }
  // Runs `o` until about a third of its slabs are in, then cancels it.
  void cancelPartWay(const SlabRunOptions& o) {
    CancelToken token;
    StopAfter stop(token, 0.3);
    JobContext stopping(token, &stop);
    EXPECT_THROW(reconstructFdkInSlabs(source, params, o, stopping), Cancelled);
  }
};

void expectSameVolume(const Volume& got, const Volume& expected) {
  EXPECT_EQ(got.shape(), expected.shape());
  EXPECT_EQ(got.originMm(), expected.originMm());
  EXPECT_EQ(got.voxelSizeMm(), expected.voxelSizeMm());
  EXPECT_TRUE(std::equal(got.voxels().begin(), got.voxels().end(), expected.voxels().begin()));
}

std::vector<float> readSamples(const fs::path& output) {
  const Volume v = io::readVolumeRaw(output);
  return {v.voxels().begin(), v.voxels().end()};
}

TEST(SlabPlan, EverySlabsRowsHoldWhereItsVoxelsProjectAndTheSlabsTileTheGrid) {
  std::mt19937_64 rng(test::randomSeed());
  const Geometry g = coneScan(36, 5.0);
  const VolumeGrid grid = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5));
  SlabPlanOptions o;
  o.slabSlices = 7;
  const SlabPlan plan = planSlabs(g, grid, o);
  ASSERT_EQ(plan.slabs.size(), 6u);  // 36 slices: 5 of 7 and one of 1
  std::int64_t next = 0;
  for (const Slab& s : plan.slabs) {
    EXPECT_EQ(s.z0, next);
    next = s.z1;
    EXPECT_LE(s.slices(), 7);
    EXPECT_LT(s.rows(), g.detector().rows) << "a slab of 7 of 36 slices needs fewer rows";
  }
  EXPECT_EQ(next, 36);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  for (const Slab& s : plan.slabs)
    for (int k = 0; k < 200; ++k) {
      std::uniform_int_distribution<std::int64_t> z(s.z0, s.z1 - 1), xy(0, 39);
      const Eigen::Vector3d p =
          grid.originMm +
          grid.voxelSizeMm.cwiseProduct(Eigen::Vector3d(
              double(xy(rng)) + u(rng), double(xy(rng)) + u(rng), double(z(rng)) + u(rng)));
      for (std::int64_t view = 0; view < g.viewCount(); view += 5) {
        const Eigen::Vector3d h = g.projectionMatrix(view) * p.homogeneous();
        const double row = h.y() / h.z();
        if (row < 0 || row > double(g.detector().rows - 1)) continue;  // off the detector
        EXPECT_GE(std::floor(row), double(s.rowFirst)) << "slab " << s.index << " view " << view;
        EXPECT_LE(std::ceil(row), double(s.rowLast)) << "slab " << s.index << " view " << view;
      }
    }
}

TEST(SlabPlan, FromAMemoryBudgetTheSlabsAreAsTallAsFitAndRanksShareThemInOrder) {
  const Geometry g = coneScan(36);
  const VolumeGrid grid = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5));
  SlabPlanOptions o;
  o.hostMemoryBytes = 1u << 20;  // 1 MiB
  const SlabPlan plan = planSlabs(g, grid, o);
  EXPECT_LE(plan.peakHostBytes(), o.hostMemoryBytes);
  EXPECT_LT(plan.slabSlices, 36);
  SlabPlanOptions taller = o;
  taller.slabSlices = plan.slabSlices + 1;
  EXPECT_GT(planSlabs(g, grid, taller).peakHostBytes(), o.hostMemoryBytes) << "not the tallest";
  o.hostMemoryBytes = 1000;
  EXPECT_THROW(planSlabs(g, grid, o), OutOfMemoryError);

  const std::vector<int> pending = {0, 1, 2, 4, 5, 7, 8};
  std::vector<int> all;
  for (int rank = 0; rank < 3; ++rank) {
    const std::vector<int> share = SlabPlan::share(pending, rank, 3);
    EXPECT_GE(share.size(), 2u);
    all.insert(all.end(), share.begin(), share.end());
  }
  EXPECT_EQ(all, pending);
}

// A height from the planner, shared by ranks (SlabPlanOptions::sharedByRanks): a grid that
// memory holds whole still goes in two pieces or more a rank (one slab per grid left all but
// one rank idle), as slabs or as mirrored pairs, never thinner than kMinSharedSlabSlices; a
// plan that memory bounds to more pieces, and a height the user gives, stay as they are.
TEST(SlabPlan, RanksSharingThePlannersSlabsGetTwoPiecesEachWhereTheGridHasTheSlices) {
  const Geometry g = coneScan(36);
  const VolumeGrid grid = VolumeGrid::centred({40, 40, 64}, Eigen::Vector3d::Constant(1.5));
  SlabPlanOptions o;
  o.hostMemoryBytes = std::uint64_t{1} << 30;  // the whole grid fits
  EXPECT_EQ(planSlabs(g, grid, o).slabs.size(), 1u) << "no ranks said: as tall as fits";
  for (const bool pairs : {false, true}) {
    o.mirrorPairs = pairs;
    for (const int ranks : {1, 2, 3, 4}) {
      o.sharedByRanks = ranks;
      const SlabPlan plan = planSlabs(g, grid, o);
      const std::size_t pieces = plan.units().size();
      const std::string what =
          (pairs ? "pairs, " : "slabs, ") + std::to_string(ranks) + " ranks: " + plan.summary();
      EXPECT_EQ(plan.mirrorPairs, pairs) << what;
      if (ranks * 2 * (pairs ? 2 : 1) * kMinSharedSlabSlices <= 64) {
        EXPECT_GE(pieces, std::size_t(2 * ranks)) << what;
        EXPECT_LE(pieces, std::size_t(2 * ranks + 1)) << what << ": no thinner than needed";
      } else {
        EXPECT_EQ(plan.slabSlices, kMinSharedSlabSlices) << what;
      }
      for (int rank = 0; rank < ranks; ++rank) {
        std::vector<int> all(pieces);
        std::iota(all.begin(), all.end(), 0);
        EXPECT_FALSE(SlabPlan::share(all, rank, ranks).empty()) << what << ": rank " << rank;
      }
      std::int64_t next = 0;
      for (const Slab& s : plan.slabs) {
        EXPECT_EQ(s.z0, next) << what;
        EXPECT_GE(s.slices(), kMinSharedSlabSlices) << what;
        next = s.z1;
      }
      EXPECT_EQ(next, 64) << what;
    }
  }
  // Two ranks, pairs, 64 slices: 8 slabs of 8, four pairs, two a rank.
  o.sharedByRanks = 2;
  EXPECT_EQ(planSlabs(g, grid, o).slabSlices, 8);
  // Memory that holds fewer slices already makes the pieces: unchanged.
  o.mirrorPairs = false;
  o.hostMemoryBytes = 1u << 20;
  SlabPlanOptions alone = o;
  alone.sharedByRanks = 0;
  const SlabPlan bounded = planSlabs(g, grid, alone);
  ASSERT_GE(bounded.units().size(), 4u) << bounded.summary();
  EXPECT_EQ(planSlabs(g, grid, o).slabSlices, bounded.slabSlices);
  // A height the user gives is kept, one piece or not.
  o.hostMemoryBytes = std::uint64_t{1} << 30;
  o.slabSlices = 64;
  EXPECT_EQ(planSlabs(g, grid, o).slabs.size(), 1u);
  // A grid too thin for two slabs of the least height stays whole.
  o.slabSlices = 0;
  VolumeGrid thin = grid;
  thin.shape.nz = 12;
  EXPECT_EQ(planSlabs(g, thin, o).slabs.size(), 1u);
}

// Out-of-core SIRT on a GPU streams a slab at a time through the GPU projectors: the slabs get
// as short as that GPU memory needs, and a height that cannot fit is refused with one that does.
TEST(SlabPlan, SlabsStreamedThroughAGpuAreAsTallAsItsMemoryAllows) {
  const Geometry g = coneScan(36);
  const VolumeGrid grid = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5));
  SlabPlanOptions o;
  o.hostMemoryBytes = std::uint64_t{1} << 30;  // not the limit here
  SlabPlanOptions one = o, all = o;
  one.slabSlices = 1;
  all.slabSlices = 36;
  const std::uint64_t thinnest = planSlabs(g, grid, one).peakDeviceBytes();
  const std::uint64_t whole = planSlabs(g, grid, all).peakDeviceBytes();
  ASSERT_LT(thinnest, whole);
  EXPECT_EQ(planSlabs(g, grid, o).slabSlices, 36) << "no GPU limit: the host memory decides";

  o.deviceMemoryBytes = (thinnest + whole) / 2;
  const SlabPlan plan = planSlabs(g, grid, o);
  EXPECT_GT(plan.slabSlices, 1);
  EXPECT_LT(plan.slabSlices, 36);
  EXPECT_LE(plan.peakDeviceBytes(), o.deviceMemoryBytes);
  EXPECT_NE(plan.summary().find("GPU memory"), std::string::npos) << plan.summary();
  SlabPlanOptions taller = o;
  taller.slabSlices = plan.slabSlices + 1;
  try {
    (void)planSlabs(g, grid, taller);
    ADD_FAILURE() << "a slab taller than the GPU memory allows was planned";
  } catch (const OutOfMemoryError& e) {
    EXPECT_NE(std::string(e.what()).find("--slab-slices " + std::to_string(plan.slabSlices)),
              std::string::npos)
        << e.what();
  }
  o.deviceMemoryBytes = thinnest - 1;
  EXPECT_THROW(planSlabs(g, grid, o), OutOfMemoryError);
}

TEST(ProjectionRowSource, ABandFromTheRawFileIsTheBandInMemoryWithItsPixelsInPlace) {
  test::TempDir dir;
  const ProjectionStack& scan = phantomScan();
  io::writeProjectionsRaw(dir / "scan.raw", scan);
  RawFileRowSource file(dir / "scan.json");
  InMemoryRowSource memory(scan);
  const ProjectionStack a = file.readRows(11, 29), b = memory.readRows(11, 29);
  ASSERT_EQ(a.rows(), 19);
  EXPECT_TRUE(std::equal(a.pixels().begin(), a.pixels().end(), b.pixels().begin()));
  EXPECT_EQ(a.at(7, 3, 20), scan.at(7, 14, 20));
  for (std::int64_t view : {0, 17, 59})
    for (double col : {0.0, 31.5, 63.0})
      EXPECT_LT((a.geometry().pixelPosition(view, col, 2.0) -
                 scan.geometry().pixelPosition(view, col, 13.0))
                    .norm(),
                1e-9);
  EXPECT_THROW(memory.readRows(40, 48), ParameterError);
  EXPECT_THROW(RawFileRowSource(dir / "missing.json"), Error);
}

// A mirrored slab pair's two bands (ProjectionRowSource::readRowBands): each view holds the rows
// of the first band, then those of the second, from the raw file (a pread per view and band) as
// from memory (the generic copy).
TEST(ProjectionRowSource, TwoBandsOfRowsLieOneAfterTheOtherInEachView) {
  test::TempDir dir;
  const ProjectionStack& scan = phantomScan();
  io::writeProjectionsRaw(dir / "scan.raw", scan);
  RawFileRowSource file(dir / "scan.json");
  InMemoryRowSource memory(scan);
  const std::vector<std::pair<std::int64_t, std::int64_t>> bands = {{3, 10}, {37, 44}};
  for (ProjectionRowSource* source :
       {static_cast<ProjectionRowSource*>(&file), static_cast<ProjectionRowSource*>(&memory)}) {
    const ProjectionStack both = source->readRowBands(bands);
    ASSERT_EQ(both.rows(), 16);
    ASSERT_EQ(both.viewCount(), scan.viewCount());
    std::int64_t wrong = 0;
    for (std::int64_t v = 0; v < scan.viewCount(); ++v)
      for (std::int64_t r = 0; r < 16; ++r)
        for (std::int64_t c = 0; c < scan.cols(); ++c)
          wrong += both.at(v, r, c) != scan.at(v, r < 8 ? 3 + r : 37 + r - 8, c);
    EXPECT_EQ(wrong, 0);
    EXPECT_THROW(source->readRowBands({{3, 10}, {40, 48}}), ParameterError);
    EXPECT_THROW(source->readRowBands({}), ParameterError);
  }
}

// Slabs in mirrored pairs (a GPU z-mirror kernel on a mirror geometry): slab k goes with slab
// n-1-k wherever the grid holds more than two slabs. A height that does not split the grid evenly
// is laid out from both ends, what is left in one middle slab, so the pairs stay mirror images
// (their slices and their detector rows). A pair is one piece of work and of memory, ranks share
// pieces, and a height from the memory budget fits pairs.
TEST(SlabPlan, MirroredPairsPairSlabKWithSlabNMinus1MinusKForAnyHeightBelowHalfTheGrid) {
  const Geometry g = coneScan(36);
  const std::int64_t rows = g.detector().rows;
  const VolumeGrid grid = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5));
  SlabPlanOptions o;
  o.mirrorPairs = true;
  o.slabSlices = 6;
  const SlabPlan six = planSlabs(g, grid, o);
  EXPECT_TRUE(six.mirrorPairs);
  EXPECT_EQ(six.units(), (std::vector<std::vector<int>>{{0, 5}, {1, 4}, {2, 3}}));
  std::uint64_t widestPair = 0, widestRows = 0;
  for (const std::vector<int>& unit : six.units()) {
    const Slab &low = six.slabs[std::size_t(unit[0])], &high = six.slabs[std::size_t(unit[1])];
    widestPair = std::max(widestPair, six.slabHostBytes(low) + six.slabHostBytes(high));
    widestRows = std::max(widestRows, six.slabRowBytes(low) + six.slabRowBytes(high));
  }
  // A pair is one piece of memory, and the next pair's rows are read ahead meanwhile.
  EXPECT_EQ(six.peakHostBytes(), widestPair + widestRows);
  EXPECT_NE(six.summary().find("mirror image"), std::string::npos) << six.summary();
  o.slabSlices = 12;
  EXPECT_EQ(planSlabs(g, grid, o).units(), (std::vector<std::vector<int>>{{0, 2}, {1}}));
  // Uneven heights: 36 = 3 x 5 + 6 + 3 x 5 (the middle slab taller), 2 x 8 + 4 + 2 x 8 and
  // 17 + 2 + 17 (shorter).
  const std::vector<std::pair<std::int64_t, std::int64_t>> uneven = {{5, 6}, {8, 4}, {17, 2}};
  for (const auto& [height, middle] : uneven) {
    o.slabSlices = height;
    const SlabPlan p = planSlabs(g, grid, o);
    SCOPED_TRACE(p.summary());
    EXPECT_TRUE(p.mirrorPairs);
    const std::size_t n = p.slabs.size();
    ASSERT_EQ(n % 2, 1u);
    EXPECT_EQ(p.slabs[n / 2].slices(), middle);
    EXPECT_NE(p.summary().find(std::to_string(n) + " slabs of " + std::to_string(height) +
                               " slices, the middle one " + std::to_string(middle)),
              std::string::npos);
    std::int64_t z = 0;
    for (const Slab& s : p.slabs) {
      EXPECT_EQ(s.z0, z) << "the slabs tile the grid in order";
      z = s.z1;
    }
    EXPECT_EQ(z, 36);
    const std::vector<std::vector<int>> units = p.units();
    ASSERT_EQ(units.size(), n / 2 + 1);
    for (const std::vector<int>& unit : units) {
      if (unit.size() == 1) {
        EXPECT_EQ(unit[0], int(n / 2));
        continue;
      }
      const Slab &low = p.slabs[std::size_t(unit[0])], &high = p.slabs[std::size_t(unit[1])];
      EXPECT_EQ(unit[1], int(n) - 1 - unit[0]);
      EXPECT_EQ(low.slices(), height);
      EXPECT_EQ(high.z0, 36 - low.z1) << "not mirror images";
      EXPECT_EQ(high.z1, 36 - low.z0);
      EXPECT_EQ(high.rowFirst, rows - 1 - low.rowLast) << "their rows are not mirror images";
      EXPECT_EQ(high.rowLast, rows - 1 - low.rowFirst);
    }
  }
  // Two slabs or one: not paired; for two, the plan says why and which heights pair.
  for (const std::int64_t height : {18, 20, 36}) {
    o.slabSlices = height;
    const SlabPlan plain = planSlabs(g, grid, o);
    EXPECT_FALSE(plain.mirrorPairs) << height << " slices";
    EXPECT_EQ(plain.units().size(), plain.slabs.size());
    EXPECT_EQ(plain.summary().find("not in mirrored pairs") != std::string::npos, height != 36)
        << plain.summary();
    if (height != 36)
      EXPECT_NE(plain.summary().find("a --slab-slices below 18 gives pairs"), std::string::npos)
          << plain.summary();
  }
  // Unpaired, an uneven height keeps its slabs from z = 0, the last one short.
  o.mirrorPairs = false;
  o.slabSlices = 5;
  EXPECT_EQ(planSlabs(g, grid, o).slabs.back().slices(), 1);
  o.mirrorPairs = true;
  // A height from the memory budget: pairs, evenly where a count near the tallest divides the
  // grid (36), else symmetrically (37 slices, a prime).
  o.slabSlices = 0;
  o.hostMemoryBytes = 1u << 20;
  const SlabPlan budget = planSlabs(g, grid, o);
  EXPECT_TRUE(budget.mirrorPairs) << budget.summary();
  EXPECT_EQ(36 % budget.slabSlices, 0);
  EXPECT_LE(budget.peakHostBytes(), o.hostMemoryBytes);
  VolumeGrid prime = grid;
  prime.shape.nz = 37;
  const SlabPlan symmetric = planSlabs(g, prime, o);
  EXPECT_TRUE(symmetric.mirrorPairs) << symmetric.summary();
  EXPECT_LE(symmetric.peakHostBytes(), o.hostMemoryBytes);
  EXPECT_GT(symmetric.slabSlices, 1) << "as tall as fits";
  o.mirrorPairs = false;
  EXPECT_FALSE(planSlabs(g, grid, o).mirrorPairs);
}

// A Fortran-order stack in ASTRA's layout (rows fastest, as numpy saves a column-major
// (rows, views, cols) array) read a band at a time: a band shorter than a page (the column's
// span read at once) and one of a page or more (one read per column and view), both exactly the
// samples of those rows, in place.
TEST(ProjectionRowSource, AFortranOrderAstraStackGivesEachBandItsSamples) {
  test::TempDir dir;
  CircularConeParams p;
  p.sourceToIsocentreMm = 300;
  p.sourceToDetectorMm = 600;
  p.detector.cols = 3;
  p.detector.rows = 1100;
  p.detector.pitchUMm = p.detector.pitchVMm = 0.1;
  p.anglesRad = {0.0, 1.0, 2.0, 3.0};
  io::ProjectionStackOnDisk stack;
  stack.geometry = circularConeBeam(p);
  stack.path = dir / "astra-fortran.bin";
  stack.layout = io::ProjectionLayout::Astra;
  stack.fortranOrder = true;
  const std::int64_t views = 4, rows = 1100, cols = 3;
  const auto value = [](std::int64_t v, std::int64_t r, std::int64_t c) {
    return float(c * 100000 + v * 10000 + r);
  };
  {
    std::ofstream out(stack.path, std::ios::binary);
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t v = 0; v < views; ++v)
        for (std::int64_t r = 0; r < rows; ++r) {
          const float x = value(v, r, c);
          out.write(reinterpret_cast<const char*>(&x), sizeof x);
        }
  }
  StackFileRowSource source(stack);
  for (const auto& [first, last] : {std::pair<std::int64_t, std::int64_t>{7, 19},
                                    {0, 0},
                                    {1099, 1099},
                                    {40, 1069},
                                    {0, 1099}}) {
    const ProjectionStack band = source.readRows(first, last);
    ASSERT_EQ(band.rows(), last - first + 1);
    std::int64_t wrong = 0;
    for (std::int64_t v = 0; v < views; ++v)
      for (std::int64_t r = 0; r < band.rows(); ++r)
        for (std::int64_t c = 0; c < cols; ++c) wrong += band.at(v, r, c) != value(v, first + r, c);
    EXPECT_EQ(wrong, 0) << "rows " << first << ".." << last;
  }
}

TEST_F(SlabRun, SlabsMatchTheInMemoryFdkAndOneTwoAndFourRanksGiveTheSameBits) {
  JobContext& context = plain;
  const Volume whole = fdk::reconstructFdk(scan, params, context);

  io::writeProjectionsRaw(dir / "scan.raw", scan);
  RawFileRowSource fromFile(dir / "scan.json");  // rows read from the file, band by band
  std::vector<std::vector<float>> results;
  for (int ranks : {1, 2, 4}) {
    SlabRunOptions o;
    o.output = dir / ("vol" + std::to_string(ranks) + ".raw");
    o.plan.slabSlices = 5;
    o.ranks = ranks;
    for (int rank = 0; rank < ranks; ++rank) {
      o.rank = rank;
      const SlabRunReport r = reconstructFdkInSlabs(fromFile, params, o, context);
      EXPECT_EQ(r.finished, rank == ranks - 1) << ranks << " ranks, rank " << rank;
      EXPECT_FALSE(r.computed.empty());
    }
    EXPECT_TRUE(fs::exists(o.output));
    EXPECT_FALSE(fs::exists(partialPathFor(o.output)));
    EXPECT_FALSE(fs::exists(manifestPathFor(o.output, 0)));
    results.push_back(readSamples(o.output));
  }
  EXPECT_EQ(results[0], results[1]) << "2 ranks differ from 1";
  EXPECT_EQ(results[0], results[2]) << "4 ranks differ from 1";

  // Against FDK of the whole volume in memory: the same numbers but for rounding (each slab's
  // filtered rows and matrices are computed for its own band).
  const Volume slabbed = io::readVolumeRaw(dir / "vol1.raw");
  ASSERT_EQ(slabbed.shape(), whole.shape());
  EXPECT_EQ(slabbed.originMm(), whole.originMm());
  double num = 0, den = 0, peak = 0;
  for (std::size_t i = 0; i < whole.voxels().size(); ++i) {
    const double d = double(slabbed.voxels()[i]) - whole.voxels()[i];
    num += d * d;
    den += double(whole.voxels()[i]) * whole.voxels()[i];
    peak = std::max(peak, std::abs(d));
  }
  EXPECT_LT(std::sqrt(num / den), 1e-5);
  EXPECT_GT(den, 0.0);
}

// An FDK slab run pairs mirror slabs where a z-mirror GPU kernel will run: its variant has one,
// and the grid is centred on the detector's centre row of an untilted detector.
TEST(SlabPlan, FdkPairsMirrorSlabsOnlyForAZMirrorGpuKernelOnAMirrorGeometry) {
  fdk::FdkParams p;
  p.volume = VolumeGrid::centred({40, 40, 36}, Eigen::Vector3d::Constant(1.5));
  p.variant = "fdk.bp.fast";
  EXPECT_TRUE(fdkSlabsPairWithMirrors(coneScan(), p));
  p.variant = "fdk.bp.soft-mirror";
  EXPECT_TRUE(fdkSlabsPairWithMirrors(coneScan(), p));
  EXPECT_FALSE(fdkSlabsPairWithMirrors(coneScan(60, 3.0), p)) << "detector moved up";
  fdk::FdkParams shifted = p;
  shifted.volume.originMm.z() += 1.5;
  EXPECT_FALSE(fdkSlabsPairWithMirrors(coneScan(), shifted)) << "grid off the centre";
  for (const char* plain : {"fdk.bp.cpu", "fdk.bp.layered16"}) {
    p.variant = plain;
    EXPECT_FALSE(fdkSlabsPairWithMirrors(coneScan(), p)) << plain;
  }
}

// The runner's side of mirrored slab pairs, on the CPU (the z-mirror kernel needs a GPU: see
// GpuSlabFdkTest): a stand-in algorithm gives every voxel its slice's number, so the output
// shows each slab of a pair at its place, from one and two ranks and after a resume; a pair of
// slabs apart gets two bands of rows, mirror images of each other, holding both slabs' rows.
TEST_F(SlabRun, MirroredPairsPutEachSlabInItsPlaceFromAnyRanksAndAfterAResume) {
  const VolumeGrid& grid = params.volume;
  const std::int64_t nz = grid.shape.nz, rows = scan.rows();
  const auto number = [](Volume& volume, std::int64_t k, std::int64_t slice) {
    const std::size_t n = static_cast<std::size_t>(volume.nx() * volume.ny());
    std::fill_n(volume.data() + static_cast<std::size_t>(k) * n, n, float(slice));
  };
  std::atomic<int> apart{0};
  SlabAlgorithm marking;
  marking.name = "FDK";
  marking.grid = grid;
  marking.slabInto = [&](const ProjectionStack&, const VolumeGrid& g, Volume& volume, JobContext&) {
    const auto z0 = std::lround((g.originMm.z() - grid.originMm.z()) / grid.voxelSizeMm.z());
    for (std::int64_t k = 0; k < g.shape.nz; ++k) number(volume, k, z0 + k);
  };
  marking.pairInto = [&](const ProjectionStack& bands, const fdk::FdkMirrorPair& pair,
                         Volume& volume, JobContext&) {
    ++apart;
    ASSERT_EQ(pair.bands.size(), 2u);
    const auto& [low, high] = std::pair(pair.bands[0], pair.bands[1]);
    EXPECT_EQ(high.rows, low.rows);
    EXPECT_EQ(high.first, rows - low.first - low.rows) << "not mirror images";
    ASSERT_EQ(bands.rows(), 2 * low.rows);
    for (const std::int64_t r : {std::int64_t{0}, low.rows - 1, low.rows, 2 * low.rows - 1})
      EXPECT_EQ(bands.at(7, r, 30),
                scan.at(7, r < low.rows ? low.first + r : high.first + r - low.rows, 30));
    const std::int64_t h = pair.z1 - pair.z0;
    ASSERT_EQ(volume.nz(), 2 * h);
    for (std::int64_t k = 0; k < h; ++k) {
      number(volume, k, pair.z0 + k);
      number(volume, h + k, nz - pair.z1 + k);
    }
  };
  const auto expectNumbered = [&](const fs::path& output) {
    const Volume v = io::readVolumeRaw(output);
    std::int64_t wrong = 0;
    for (std::int64_t z = 0; z < nz; ++z)
      wrong += v.at(3, 5, z) != float(z) || v.at(39, 39, z) != float(z);
    EXPECT_EQ(wrong, 0) << output;
  };
  SlabRunOptions o;
  o.plan.mirrorPairs = true;
  // Six slabs of 6: pairs {0, 5} and {1, 4} apart, {2, 3} across the centre. Slabs of 5: three
  // from each end, pairs {0, 6}, {1, 5} and {2, 4} apart, and a middle slab of 6 alone.
  for (const std::int64_t height : {6, 5}) {
    o.plan.slabSlices = height;
    for (const int ranks : {1, 2}) {
      o.output = dir / ("pairs" + std::to_string(height) + "-" + std::to_string(ranks) + ".raw");
      o.ranks = ranks;
      std::size_t written = 0;
      for (int rank = 0; rank < ranks; ++rank) {
        o.rank = rank;
        const SlabRunReport r = runSlabs(source, marking, o, plain);
        EXPECT_TRUE(r.plan.mirrorPairs);
        written += r.computed.size();
      }
      EXPECT_EQ(written, height == 6 ? 6u : 7u);
      expectNumbered(o.output);
    }
  }
  EXPECT_EQ(apart.load(), 2 * 2 + 2 * 3) << "the pairs apart, in each of the four runs";

  o.output = dir / "resumed.raw";
  o.ranks = 1;
  o.rank = 0;
  CancelToken token;
  StopAfter stop(token, 0.3);  // after the first pair
  JobContext stopping(token, &stop);
  EXPECT_THROW(runSlabs(source, marking, o, stopping), Cancelled);
  EXPECT_FALSE(fs::exists(o.output));
  o.resume = true;
  o.ranks = 2;
  std::size_t redone = 0;
  int before = 0;
  for (int rank = 0; rank < 2; ++rank) {
    o.rank = rank;
    const SlabRunReport r = runSlabs(source, marking, o, plain);
    redone += r.computed.size();
    before = r.doneBefore;
  }
  EXPECT_GT(before, 0);
  EXPECT_EQ(redone + std::size_t(before), 7u) << "the resume redoes only the pairs left";
  expectNumbered(o.output);

  // A run that went slab by slab (an older build, or pairs switched off) is not resumed in
  // pairs; the message names the switch that resumes it.
  o.output = dir / "unpaired.raw";
  o.ranks = 1;
  o.rank = 0;
  o.resume = false;
  o.plan.mirrorPairs = false;
  CancelToken again;
  StopAfter stopAgain(again, 0.3);
  JobContext stoppingAgain(again, &stopAgain);
  EXPECT_THROW(runSlabs(source, marking, o, stoppingAgain), Cancelled);
  o.resume = true;
  o.plan.mirrorPairs = true;
  try {
    runSlabs(source, marking, o, plain);
    ADD_FAILURE() << "a run slab by slab was resumed in pairs";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("TOMOWB_SLAB_MIRROR_PAIRS=off resumes it"),
              std::string::npos)
        << e.what();
  }
  o.plan.mirrorPairs = false;
  EXPECT_TRUE(runSlabs(source, marking, o, plain).finished);
  expectNumbered(o.output);
}

// The rows of the next piece are read while one is reconstructed: a stand-in algorithm waits in
// each slab but the last for the next slab's read to begin (a run that read only when a piece's
// turn came would never begin it, and the wait would time out). A read that fails ahead ends the
// run with its error once its slab's turn comes, after the slabs before it are written and listed,
// and a resume finishes the run to the bits of an uninterrupted one.
TEST_F(SlabRun, TheNextSlabsRowsAreReadWhileOneIsReconstructedAndAFailedReadEndsTheRunInOrder) {
  struct CountingSource : ProjectionRowSource {
    explicit CountingSource(ProjectionRowSource& inner) : inner(inner) {}
    const Geometry& geometry() const override { return inner.geometry(); }
    ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override {
      const int read = ++begun;
      {
        const std::lock_guard lock(mutex);
        changed.notify_all();
      }
      if (read == failAt) throw IoError("rows.raw", "read failed (test)");
      return inner.readRows(rowFirst, rowLast);
    }
    ProjectionRowSource& inner;
    std::atomic<int> begun{0};
    int failAt = 0;  // the read that fails (1 is the first); 0: none
    std::mutex mutex;
    std::condition_variable changed;
  };
  CountingSource counting(source);
  const VolumeGrid& grid = params.volume;
  std::atomic<int> overlapped{0};
  auto patience = std::chrono::seconds(5);  // for the next read to begin
  SlabAlgorithm waiting;
  waiting.name = "FDK";
  waiting.grid = grid;
  waiting.slabInto = [&](const ProjectionStack&, const VolumeGrid& g, Volume& volume, JobContext&) {
    const auto z0 = std::lround((g.originMm.z() - grid.originMm.z()) / grid.voxelSizeMm.z());
    const int slab = int(z0 / 9);
    std::fill(volume.voxels().begin(), volume.voxels().end(), float(z0));
    if (slab == 3) return;  // the last: nothing to read ahead
    std::unique_lock lock(counting.mutex);
    if (counting.changed.wait_for(lock, patience,
                                  [&] { return counting.begun.load() >= slab + 2; }))
      ++overlapped;
  };
  SlabRunOptions o;
  o.plan.slabSlices = 9;  // four slabs
  o.output = dir / "ahead.raw";
  const SlabRunReport whole = runSlabs(counting, waiting, o, plain);
  EXPECT_EQ(whole.computed.size(), 4u);
  EXPECT_EQ(overlapped.load(), 3) << "each slab but the last saw the next one's read begin";
  EXPECT_EQ(counting.begun.load(), 4) << "each slab's rows read once";

  counting.begun = 0;
  counting.failAt = 3;  // slab 2's rows, read ahead while slab 1 is reconstructed
  o.output = dir / "failed.raw";
  try {
    runSlabs(counting, waiting, o, plain);
    ADD_FAILURE() << "the failed read did not end the run";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("read failed (test)"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(o.output));
  counting.failAt = 0;
  o.resume = true;
  const SlabRunReport resumed = runSlabs(counting, waiting, o, plain);
  EXPECT_EQ(resumed.doneBefore, 2) << "slabs 0 and 1 were written before the error came out";
  EXPECT_EQ(resumed.computed, (std::vector<int>{2, 3}));
  const Volume a = io::readVolumeRaw(dir / "ahead.raw"), b = io::readVolumeRaw(o.output);
  EXPECT_TRUE(std::equal(a.voxels().begin(), a.voxels().end(), b.voxels().begin()));

  // TOMOWB_SLAB_READ_AHEAD=off (benchmarks): each slab's rows when its turn comes.
  ::setenv("TOMOWB_SLAB_READ_AHEAD", "off", 1);
  overlapped = 0;
  counting.begun = 0;
  patience = std::chrono::seconds(0);
  o.resume = false;
  o.output = dir / "in-turn.raw";
  runSlabs(counting, waiting, o, plain);
  ::unsetenv("TOMOWB_SLAB_READ_AHEAD");
  EXPECT_EQ(overlapped.load(), 0);
  EXPECT_EQ(counting.begun.load(), 4);
}

// A disk that fills up during the run (the output's space is not reserved up front): the write
// that finds no room is an IoError naming the file, and the manifest lists only the slabs written
// before it. The disk is a 1 MiB tmpfs mounted
// in the test's folder, which needs root (CAP_SYS_ADMIN; CI runs as root); the volume needs
// 1.15 MB.
TEST_F(SlabRun, ADiskThatFillsUpMidRunIsAClearErrorAndTheManifestListsWhatIsOnIt) {
  const SmallDisk disk(dir / "small");
  if (!disk.mounted) GTEST_SKIP() << disk.why;
  const fs::path& mount = disk.path;
  params.volume = VolumeGrid::centred({40, 40, 180}, Eigen::Vector3d::Constant(0.3));
  const Volume expected = [&] {
    SlabRunOptions o;
    o.output = dir / "reference.raw";
    o.plan.slabSlices = 20;
    EXPECT_TRUE(reconstructFdkInSlabs(source, params, o, plain).finished);
    return io::readVolumeRaw(o.output);
  }();
  SlabRunOptions o;
  o.output = mount / "vol.raw";
  o.plan.slabSlices = 20;                    // 9 slabs of 128 kB
  o.freeDiskBytes = std::uint64_t{1} << 40;  // the planner is told there is room
  try {
    (void)reconstructFdkInSlabs(source, params, o, plain);
    FAIL() << "a 1.15 MB volume fitted on a 1 MiB disk";
  } catch (const IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(partialPathFor(o.output).string()), std::string::npos) << what;
    EXPECT_NE(what.find("No space left on device"), std::string::npos) << what;
  }
  // The slabs the manifest lists are on the disk, with the bits of the uninterrupted run.
  const fs::path manifest = manifestPathFor(o.output, 0);
  ASSERT_TRUE(fs::exists(manifest));
  const nlohmann::json listed = nlohmann::json::parse(std::ifstream(manifest));
  const auto finished = listed.at("finished").get<std::vector<int>>();
  EXPECT_FALSE(finished.empty()) << "some slabs fitted";
  EXPECT_LT(finished.size(), 9u);
  std::ifstream partial(partialPathFor(o.output), std::ios::binary);
  const std::int64_t slice = 40 * 40;
  for (const int index : finished) {
    std::vector<float> got(static_cast<std::size_t>(20 * slice));
    partial.seekg(static_cast<std::streamoff>(index) * 20 * slice * 4);
    partial.read(reinterpret_cast<char*>(got.data()), static_cast<std::streamsize>(got.size() * 4));
    EXPECT_TRUE(std::equal(got.begin(), got.end(), expected.data() + index * 20 * slice))
        << "slab " << index;
  }
}

TEST_F(SlabRun, ACancelledRunResumedByAnyNumberOfRanksGivesTheUninterruptedBits) {
  SlabRunOptions o;
  o.plan.slabSlices = 4;  // 9 slabs
  o.output = dir / "straight.raw";
  ASSERT_TRUE(reconstructFdkInSlabs(source, params, o, plain).finished);
  const std::vector<float> straight = readSamples(o.output);

  for (int resumeRanks : {1, 3}) {
    o.output = dir / ("resumed" + std::to_string(resumeRanks) + ".raw");
    // Two ranks; each stopped after its first slabs (a kill between slabs).
    o.ranks = 2;
    for (int rank = 0; rank < 2; ++rank) {
      CancelToken token;
      StopAfter stop(token, rank == 0 ? 0.2 : 0.3);  // 2 of 4 and 3 of 5 slabs
      JobContext context(token, &stop);
      o.rank = rank;
      EXPECT_THROW(reconstructFdkInSlabs(source, params, o, context), Cancelled);
    }
    EXPECT_FALSE(fs::exists(o.output)) << "no output before every slab is in";
    EXPECT_TRUE(fs::exists(partialPathFor(o.output)));
    EXPECT_TRUE(fs::exists(manifestPathFor(o.output, 0)));
    // Resumed by another number of ranks.
    o.resume = true;
    o.ranks = resumeRanks;
    int redone = 0, before = -1;
    for (int rank = 0; rank < resumeRanks; ++rank) {
      o.rank = rank;
      const SlabRunReport r = reconstructFdkInSlabs(source, params, o, plain);
      redone += static_cast<int>(r.computed.size());
      if (rank == 0) before = r.doneBefore;  // the later ranks also see rank 0's new slabs
    }
    o.resume = false;
    EXPECT_GT(before, 0);
    EXPECT_EQ(redone + before, 9) << "only the missing slabs are redone";
    ASSERT_TRUE(fs::exists(o.output));
    EXPECT_EQ(readSamples(o.output), straight) << "resumed by " << resumeRanks << " ranks";
  }
}

#if TOMOWB_HAVE_TIFF
TEST_F(SlabRun, AFolderOfTiffSlicesHoldsTheSameVolumeAndResumesToo) {
  const Volume raw = rawReference();
  SlabRunOptions o;
  o.plan.slabSlices = 5;
  o.output = dir / "slices";
  cancelPartWay(o);
  EXPECT_FALSE(fs::exists(o.output)) << "no folder before every slab is in";
  EXPECT_TRUE(fs::is_directory(partialPathFor(o.output)));
  // What a writer killed in the middle of a slice (SIGKILL) leaves: its temporary file.
  std::ofstream(partialPathFor(o.output) / ".slice_0030.tif.partial-4242-7-123456") << "half";
  o.resume = true;
  ASSERT_TRUE(reconstructFdkInSlabs(source, params, o, plain).finished);
  expectSameVolume(io::readVolume(o.output), raw);
  EXPECT_TRUE(fs::exists(o.output / "slice_0035.tif"));
  EXPECT_FALSE(fs::exists(partialPathFor(o.output)));
  for (const auto& entry : fs::directory_iterator(o.output))
    EXPECT_EQ(entry.path().filename().string().rfind("slice_", 0), 0u)
        << "not a slice: " << entry.path();
}

// A folder of slices whose disk fills up while a slab's slices are written on several threads:
// the first failure is the error, naming the slice's file; the manifest lists only slabs with
// every slice in place; with room again, --resume finishes the volume with the same bits.
TEST_F(SlabRun, AFolderOfTiffSlicesOnADiskThatFillsUpFailsClearlyAndResumes) {
  const SmallDisk disk(dir / "small");
  if (!disk.mounted) GTEST_SKIP() << disk.why;
  const fs::path& mount = disk.path;
  params.volume = VolumeGrid::centred({40, 40, 180}, Eigen::Vector3d::Constant(0.3));
  SlabRunOptions o;
  o.output = dir / "reference.raw";
  o.plan.slabSlices = 20;
  ASSERT_TRUE(reconstructFdkInSlabs(source, params, o, plain).finished);
  const Volume expected = io::readVolumeRaw(o.output);

  o.output = mount / "slices";               // 180 slices of 6.4 kB and their headers
  o.freeDiskBytes = std::uint64_t{1} << 40;  // the planner is told there is room
  try {
    (void)reconstructFdkInSlabs(source, params, o, plain);
    FAIL() << "180 slices of 6.4 kB fitted on a 1 MiB disk";
  } catch (const IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((partialPathFor(o.output) / "slice_0").string()), std::string::npos)
        << what;
  }
  const nlohmann::json listed = nlohmann::json::parse(std::ifstream(manifestPathFor(o.output, 0)));
  const auto finished = listed.at("finished").get<std::vector<int>>();
  EXPECT_FALSE(finished.empty()) << "some slabs fitted";
  EXPECT_LT(finished.size(), 9u);
  // Every slice of the listed slabs is on the disk; resume leaves them be (same files after),
  // and the finished volume below has the uninterrupted bits.
  std::map<std::int64_t, fs::file_time_type> kept;
  for (const int index : finished)
    for (std::int64_t k = index * 20; k < (index + 1) * 20; ++k) {
      const fs::path path = partialPathFor(o.output) / io::tiffSliceFileName(k, 180);
      ASSERT_TRUE(fs::exists(path)) << path;
      kept[k] = fs::last_write_time(path);
    }
  for (const auto& entry : fs::directory_iterator(partialPathFor(o.output)))
    EXPECT_EQ(entry.path().extension(), ".tif") << "left behind: " << entry.path();

  // Room again: the same run with --resume writes the slabs no manifest lists.
  ASSERT_EQ(::mount("tomowb-test", mount.c_str(), "tmpfs", MS_REMOUNT, "size=4m"), 0)
      << std::strerror(errno);
  o.resume = true;
  const SlabRunReport resumed = reconstructFdkInSlabs(source, params, o, plain);
  ASSERT_TRUE(resumed.finished);
  EXPECT_EQ(resumed.doneBefore, static_cast<int>(finished.size()));
  for (const auto& [k, time] : kept)
    EXPECT_EQ(fs::last_write_time(o.output / io::tiffSliceFileName(k, 180)), time) << k;
  expectSameVolume(io::readVolume(o.output), expected);
}
#endif

#if TOMOWB_HAVE_HDF5
// An HDF5 output: the same bits as the raw one, from ranks that share it without talking (each
// writes its slabs at their offset in the one file), and after a cancelled run resumed.
TEST_F(SlabRun, AnHdf5FileHoldsTheSameVolumeFromSeveralRanksAndResumesToo) {
  const Volume raw = rawReference();
  SlabRunOptions o;
  o.plan.slabSlices = 5;
  o.output = dir / "ranks.h5";
  o.ranks = 3;
  for (int rank : {2, 0, 1}) {  // by hand, in any order: the last one puts the file in place
    o.rank = rank;
    const SlabRunReport r = reconstructFdkInSlabs(source, params, o, plain);
    EXPECT_EQ(r.finished, rank == 1) << "rank " << rank;
  }
  expectSameVolume(io::readVolume(o.output), raw);
  EXPECT_FALSE(fs::exists(partialPathFor(o.output)));
  EXPECT_FALSE(fs::exists(manifestPathFor(o.output, 0)));

  o.output = dir / "resumed.h5";
  o.rank = 0;
  o.ranks = 1;
  cancelPartWay(o);
  EXPECT_FALSE(fs::exists(o.output)) << "no file before every slab is in";
  EXPECT_TRUE(fs::exists(partialPathFor(o.output)));
  o.resume = true;
  const SlabRunReport resumed = reconstructFdkInSlabs(source, params, o, plain);
  ASSERT_TRUE(resumed.finished);
  EXPECT_GT(resumed.doneBefore, 0);
  expectSameVolume(io::readVolume(o.output), raw);

  // A partial file of another grid is refused by name on resume.
  o.output = dir / "other.h5";
  o.resume = false;
  cancelPartWay(o);
  fdk::FdkParams other = params;
  other.volume = VolumeGrid::centred({40, 40, 30}, Eigen::Vector3d::Constant(1.5));
  o.resume = true;
  try {
    (void)reconstructFdkInSlabs(source, other, o, plain);
    FAIL() << "a partial file of another grid was resumed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("other.h5"), std::string::npos) << e.what();
  }
}
#endif

TEST_F(SlabRun, TooLittleDiskAnotherRunsManifestAndNothingToResumeAreClearErrors) {
  JobContext& context = plain;
  SlabRunOptions o;
  o.output = dir / "vol.raw";
  o.plan.slabSlices = 6;
  o.freeDiskBytes = 1000;
  try {
    reconstructFdkInSlabs(source, params, o, context);
    FAIL() << "a disk with 1000 bytes free took a 230 kB volume";
  } catch (const IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(dir.path().string()), std::string::npos) << what;
    EXPECT_NE(what.find("vol.raw"), std::string::npos) << what;
    EXPECT_NE(what.find("free"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(partialPathFor(o.output)));
  o.freeDiskBytes.reset();

  o.resume = true;
  EXPECT_THROW(reconstructFdkInSlabs(source, params, o, context), IoError) << "nothing to resume";
  o.resume = false;

  // Stopped after a slab, then resumed with another grid: the manifest is refused by name.
  {
    CancelToken token;
    StopAfter stop(token, 0.01);
    JobContext stopping(token, &stop);
    EXPECT_THROW(reconstructFdkInSlabs(source, params, o, stopping), Cancelled);
  }
  fdk::FdkParams other = params;
  other.volume.voxelSizeMm *= 1.1;
  o.resume = true;
  try {
    reconstructFdkInSlabs(source, other, o, context);
    FAIL() << "a manifest of another grid was taken";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("manifest"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("grid"), std::string::npos) << e.what();
  }
  // The same run resumes.
  EXPECT_TRUE(reconstructFdkInSlabs(source, params, o, context).finished);
  EXPECT_TRUE(fs::exists(o.output));
}

}  // namespace
}  // namespace tomowb::scale
