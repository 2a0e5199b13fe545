// SIRT in slabs (issue #22, points 2 to 4 and 7): a cone beam whose slabs share detector rows
// solved by 1, 2 and 4 ranks that exchange those rows matches the in-memory SIRT within 1e-5;
// an aligned tilt series runs slab by slab, out of core, with the in-memory bits; a run killed
// after a checkpoint and resumed gives the uninterrupted bits; a resume with another rank count,
// ranks that cannot talk and CGLS are clear errors. The ranks here are threads of this process
// that talk through a communicator of shared memory (ThreadRanks below); tests/cli/SlabMpiTest
// runs the same under a real mpirun.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <mutex>
#include <random>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/CancelToken.h"
#include "recon/job/ProgressSink.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/scale/BandExchange.h"
#include "recon/scale/ProjectionRowSource.h"
#include "recon/scale/SlabRun.h"
#include "recon/scale/SlabStreamingPair.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"
#include "support/ThreadRanks.h"

namespace tomowb::scale {
namespace {

using test::ThreadRanks;

namespace fs = std::filesystem;

Geometry coneScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 200;
  p.sourceToDetectorMm = 400;
  p.detector.cols = 40;
  p.detector.rows = 32;
  p.detector.pitchUMm = 2.0;
  p.detector.pitchVMm = 2.0;
  p.anglesRad = fullScanAnglesRad(40, 0.3);
  return circularConeBeam(p);
}

const ProjectionStack& conePhantomScan() {
  static const ProjectionStack scan =
      phantom::projectPhantom(phantom::modifiedSheppLogan3d(18.0), coneScan());
  return scan;
}

// A tilt series of 12 rows: slice z of the tomogram sees row z only.
const ProjectionStack& tiltPhantomScan() {
  static const ProjectionStack scan = [] {
    TiltSeriesParams t;
    t.cols = 40;
    t.rows = 12;
    t.tiltAnglesRad = arcAnglesRad(31, 120 * 3.14159265358979 / 180, -60 * 3.14159265358979 / 180);
    return phantom::projectPhantom(phantom::modifiedSheppLogan3d(14.0, 1.0), tiltSeries(t));
  }();
  return scan;
}

double maxAbsDifference(const Volume& a, const Volume& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.voxels().size(); ++i)
    d = std::max(d, std::abs(double(a.voxels()[i]) - double(b.voxels()[i])));
  return d;
}
double maxAbs(const Volume& a) {
  double m = 0;
  for (const float v : a.voxels()) m = std::max(m, std::abs(double(v)));
  return m;
}

// Cancels the run when the progress says iteration `n` is done.
struct CancelAtIteration : ProgressSink {
  CancelAtIteration(CancelToken& token, int n) : token(token), n(n) {}
  void report(std::string_view stage, double /*fraction*/) override {
    if (stage.starts_with("iteration " + std::to_string(n) + "/")) token.request();
  }
  CancelToken& token;
  int n;
};

class SirtSlabs : public testing::Test {
 protected:
  iterative::IterativeParams coneParams(int iterations = 6) const {
    iterative::IterativeParams p;
    p.volume = VolumeGrid::centred({24, 24, 20}, Eigen::Vector3d::Constant(1.6));
    p.iterations = iterations;
    p.lowerBound = 0.0;
    return p;
  }
  // SIRT of the cone scan by `ranks` thread ranks into `name`; returns rank 0's report.
  SlabRunReport coneRun(int ranks, const std::string& name, int iterations = 6,
                        int checkpointEvery = 0, bool resume = false, int cancelAt = 0) {
    ThreadRanks threads(ranks);
    SlabRunReport first;
    std::mutex m;
    threads.run([&](Communicator& comm) {
      InMemoryRowSource source(conePhantomScan());
      SlabRunOptions o;
      o.output = dir / name;
      o.communicator = &comm;
      o.checkpointEvery = checkpointEvery;
      o.resume = resume;
      o.volumeFolder = volumeFolder;
      o.plan.slabSlices = slabSlices;
      CancelToken token;
      CancelAtIteration cancel(token, cancelAt);
      JobContext context(token, cancelAt > 0 ? &cancel : nullptr);
      const SlabRunReport r =
          reconstructIterativeInSlabs(source, coneParams(iterations), o, context);
      const std::lock_guard lock(m);
      if (comm.rank() == 0) first = r;
    });
    return first;
  }
  test::TempDir dir;
  fs::path volumeFolder;        // coneRun out of core: the block's volumes in files there
  std::int64_t slabSlices = 0;  // coneRun: the plan's slab height (0: the default)
};

TEST(BandOverlap, SharedRowsAreThoseOfTwoBandsOrMoreAndTheLowestRankCountsThem) {
  const std::vector<RowBand> bands = {{0, 10}, {8, 20}, {19, 30}, {40, 45}};
  const BandOverlap o1 = BandOverlap::of(bands, 1);
  EXPECT_EQ(o1.sharedRowCount, 5);  // 8, 9, 10 and 19, 20
  ASSERT_EQ(o1.mine.size(), 5u);
  EXPECT_EQ(o1.mine[0].bandRow, 0);   // row 8
  EXPECT_FALSE(o1.mine[0].counted);   // rank 0 counts it
  EXPECT_EQ(o1.mine[3].bandRow, 11);  // row 19
  EXPECT_TRUE(o1.mine[3].counted);
  EXPECT_EQ(o1.mine[3].slot, 3);
  EXPECT_TRUE(BandOverlap::of(bands, 3).mine.empty());
  EXPECT_EQ(BandOverlap::of({{0, 9}, {10, 19}}, 0).sharedRowCount, 0);
}

TEST_F(SirtSlabs, ConeBeamRanksExchangingSharedRowsMatchTheInMemorySirt) {
  JobContext plain;
  iterative::IterativeReport whole;
  const Volume reference =
      iterative::reconstructIterative(conePhantomScan(), coneParams(), plain, &whole);
  ASSERT_GT(maxAbs(reference), 1e-3);
  for (const int ranks : {1, 2, 4}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string name = "cone" + std::to_string(ranks) + ".raw";
    const SlabRunReport r = coneRun(ranks, name);
    EXPECT_TRUE(r.complete);
    const Volume v = io::readVolumeRaw(dir / name);
    ASSERT_EQ(v.shape(), reference.shape());
    EXPECT_LT(maxAbsDifference(v, reference), 1e-5 * maxAbs(reference));
  }
}

TEST_F(SirtSlabs, WithoutTheExchangeTheSlabsWouldDiffer) {
  // The test above can fail: SIRT of each block on its own rows, without the sums of the other
  // blocks' rays, is far from the whole volume's.
  JobContext plain;
  const Volume reference = iterative::reconstructIterative(conePhantomScan(), coneParams(), plain);
  const SlabPlan plan = planSlabs(coneScan(), coneParams().volume, {.slabSlices = 10});
  ASSERT_EQ(plan.slabs.size(), 2u);
  InMemoryRowSource source(conePhantomScan());
  double worst = 0;
  for (const Slab& s : plan.slabs) {
    iterative::IterativeParams p = coneParams();
    p.volume = plan.slabGrid(s);
    const Volume alone =
        iterative::reconstructIterative(source.readRows(s.rowFirst, s.rowLast), p, plain);
    for (std::int64_t z = 0; z < alone.nz(); ++z)
      for (std::int64_t y = 0; y < alone.ny(); ++y)
        for (std::int64_t x = 0; x < alone.nx(); ++x)
          worst =
              std::max(worst, double(std::abs(alone.at(x, y, z) - reference.at(x, y, z + s.z0))));
  }
  EXPECT_GT(worst, 1e-2 * maxAbs(reference));
}

TEST_F(SirtSlabs, AlignedTiltSeriesRunsSlabBySlabWithTheInMemoryBits) {
  iterative::IterativeParams p;
  p.volume = iterative::tomogramGrid(tiltPhantomScan().geometry(), 16);
  p.iterations = 5;
  ASSERT_TRUE(iterativeSlabsAreIndependent(tiltPhantomScan().geometry(), p));
  JobContext plain;
  const Volume reference = iterative::reconstructIterative(tiltPhantomScan(), p, plain);
  for (const int ranks : {1, 3}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const fs::path out = dir / ("tilt" + std::to_string(ranks) + ".raw");
    bool complete = false;
    for (int rank = 0; rank < ranks; ++rank) {  // ranks that do not talk, one after the other
      InMemoryRowSource source(tiltPhantomScan());
      SlabRunOptions o;
      o.output = out;
      o.plan.slabSlices = 4;  // 3 slabs of 4 rows: memory holds a third of the data
      o.rank = rank;
      o.ranks = ranks;
      const SlabRunReport r = reconstructIterativeInSlabs(source, p, o, plain);
      EXPECT_EQ(r.plan.slabs.size(), 3u);
      complete = r.complete;
    }
    ASSERT_TRUE(complete);
    const Volume v = io::readVolumeRaw(out);
    EXPECT_EQ(maxAbsDifference(v, reference), 0.0);
  }
}

TEST_F(SirtSlabs, AKilledRunResumedFromItsCheckpointGivesTheUninterruptedBits) {
  const SlabRunReport whole = coneRun(2, "whole.raw", 7);
  ASSERT_TRUE(whole.complete);
  const Volume reference = io::readVolumeRaw(dir / "whole.raw");
  // Checkpoints after iterations 2 and 4; killed after iteration 5.
  EXPECT_THROW(coneRun(2, "resumed.raw", 7, 2, false, 5), Cancelled);
  EXPECT_FALSE(fs::exists(dir / "resumed.raw"));
  EXPECT_TRUE(fs::exists(dir / "resumed.raw.checkpoint0"));
  const SlabRunReport resumed = coneRun(2, "resumed.raw", 7, 2, true);
  EXPECT_EQ(resumed.resumedFromIteration, 4);
  EXPECT_TRUE(resumed.complete);
  EXPECT_EQ(maxAbsDifference(io::readVolumeRaw(dir / "resumed.raw"), reference), 0.0);
  // The checkpoints and manifests are gone with the finished output.
  EXPECT_FALSE(fs::exists(dir / "resumed.raw.checkpoint0"));
  EXPECT_FALSE(fs::exists(dir / "resumed.raw.checkpoint1"));
  EXPECT_FALSE(fs::exists(manifestPathFor(dir / "resumed.raw", 0)));
}

TEST_F(SirtSlabs, AResumeWithAnotherRankCountIsRefusedByName) {
  EXPECT_THROW(coneRun(2, "r.raw", 7, 2, false, 3), Cancelled);
  try {
    coneRun(4, "r.raw", 7, 2, true);
    FAIL() << "a resume with 4 ranks of a 2-rank run went on";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun -np 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("manifest"), std::string::npos) << e.what();
  }
}

TEST_F(SirtSlabs, RanksThatCannotTalkAndCglsAreClearErrors) {
  InMemoryRowSource source(conePhantomScan());
  JobContext plain;
  SlabRunOptions o;
  o.output = dir / "x.raw";
  o.rank = 0;
  o.ranks = 2;
  try {
    reconstructIterativeInSlabs(source, coneParams(), o, plain);
    FAIL() << "a cone-beam SIRT over ranks without MPI went on";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir / "x.raw"));
  iterative::IterativeParams cgls = coneParams();
  cgls.method = iterative::IterativeMethod::Cgls;
  cgls.lowerBound.reset();
  o.ranks = 1;
  EXPECT_THROW(reconstructIterativeInSlabs(source, cgls, o, plain), ParameterError);
}

// A disk that holds the volume but not its two checkpoints beside it: refused before any work,
// naming the folder and both sizes; nothing is left behind.
TEST_F(SirtSlabs, ADiskWithoutRoomForTheCheckpointsIsRefusedBeforeAnyWork) {
  InMemoryRowSource source(conePhantomScan());
  JobContext plain;
  SlabRunOptions o;
  o.output = dir / "full.raw";
  o.checkpointEvery = 2;
  const std::uint64_t volume = 24 * 24 * 20 * 4;
  o.freeDiskBytes = 2 * volume;  // the output fits, the output and two checkpoints do not
  try {
    reconstructIterativeInSlabs(source, coneParams(), o, plain);
    FAIL() << "a disk without room for the checkpoints took the run";
  } catch (const IoError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(dir.path().string()), std::string::npos) << what;
    EXPECT_NE(what.find(std::to_string(3 * volume) + " bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("checkpoint"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(partialPathFor(o.output)));
  EXPECT_FALSE(fs::exists(dir / "full.raw.checkpoint0"));
  EXPECT_FALSE(fs::exists(manifestPathFor(o.output, 0)));
  o.checkpointEvery = 0;  // without checkpoints the same disk holds the run
  EXPECT_TRUE(reconstructIterativeInSlabs(source, coneParams(), o, plain).complete);
}

// A start volume and a mask on the whole grid: each block (cone beam, 2 ranks) and each slab
// (tilt series) takes its slices, and the result is that of the in-memory SIRT with the same ones.
TEST_F(SirtSlabs, AStartVolumeAndAMaskGiveTheInMemoryResult) {
  JobContext plain;
  iterative::IterativeParams p = coneParams(4);
  const auto start = std::make_shared<Volume>(p.volume.makeVolume());
  const auto mask = std::make_shared<Volume>(p.volume.makeVolume());
  std::mt19937 rng(test::randomSeed());
  std::uniform_real_distribution<float> value(0.0f, 0.01f);
  for (float& v : start->voxels()) v = value(rng);
  for (std::int64_t z = 0; z < mask->nz(); ++z)  // a cylinder
    for (std::int64_t y = 0; y < mask->ny(); ++y)
      for (std::int64_t x = 0; x < mask->nx(); ++x)
        mask->at(x, y, z) = std::hypot(x - 11.5, y - 11.5) < 10 ? 1.0f : 0.0f;
  p.initialVolume = start;
  p.mask = mask;
  const Volume reference = iterative::reconstructIterative(conePhantomScan(), p, plain);
  ThreadRanks threads(2);
  threads.run([&](Communicator& comm) {
    InMemoryRowSource source(conePhantomScan());
    SlabRunOptions o;
    o.output = dir / "masked.raw";
    o.communicator = &comm;
    JobContext context;
    reconstructIterativeInSlabs(source, p, o, context);
  });
  const Volume v = io::readVolumeRaw(dir / "masked.raw");
  EXPECT_LT(maxAbsDifference(v, reference), 1e-5 * maxAbs(reference));
  EXPECT_EQ(v.at(0, 0, 10), 0.0f) << "outside the mask";
  EXPECT_GT(maxAbsDifference(v, *start), 1e-4) << "the run left its start volume as it was";

  iterative::IterativeParams t;
  t.volume = iterative::tomogramGrid(tiltPhantomScan().geometry(), 16);
  t.iterations = 3;
  t.initialVolume = std::make_shared<Volume>(t.volume.makeVolume());
  for (float& x : std::const_pointer_cast<Volume>(t.initialVolume)->voxels()) x = value(rng);
  const Volume tiltReference = iterative::reconstructIterative(tiltPhantomScan(), t, plain);
  InMemoryRowSource source(tiltPhantomScan());
  SlabRunOptions o;
  o.output = dir / "tilt-start.raw";
  // Slabs of equal height: the bits of one process. (Slabs of 5, 5 and 2 slices differed by 5e-8
  // of the range: the 2-slice slab's projector rounds differently.)
  o.plan.slabSlices = 4;
  ASSERT_TRUE(reconstructIterativeInSlabs(source, t, o, plain).complete);
  EXPECT_EQ(maxAbsDifference(io::readVolumeRaw(o.output), tiltReference), 0.0);
}

}  // namespace
}  // namespace tomowb::scale

namespace tomowb::scale {
namespace {

// Out of core in one process (issue #22, point 2): the block's slabs stream through the
// projectors one at a time with its volumes in files, and give the in-memory SIRT within float32
// rounding; so do two ranks that each stream their block and exchange the shared rows; the
// files are gone afterwards.
TEST_F(SirtSlabs, OutOfCoreBlocksStreamTheirSlabsToTheInMemorySirt) {
  JobContext plain;
  const Volume reference = iterative::reconstructIterative(conePhantomScan(), coneParams(), plain);
  volumeFolder = dir / "scratch";
  fs::create_directories(volumeFolder);
  slabSlices = 5;  // 4 slabs, each with its own rows
  for (const int ranks : {1, 2}) {
    SCOPED_TRACE(std::to_string(ranks) + " ranks");
    const std::string name = "ooc" + std::to_string(ranks) + ".raw";
    const SlabRunReport r = coneRun(ranks, name);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.plan.slabs.size(), 4u);
    const Volume v = io::readVolumeRaw(dir / name);
    EXPECT_LT(maxAbsDifference(v, reference), 1e-5 * maxAbs(reference));
    EXPECT_TRUE(fs::is_empty(volumeFolder)) << "the volumes' files are unlinked";
  }
}

TEST_F(SirtSlabs, AnOutOfCoreRunKilledAndResumedGivesTheUninterruptedBits) {
  volumeFolder = dir.path();
  slabSlices = 5;
  ASSERT_TRUE(coneRun(1, "whole.raw", 7).complete);
  const Volume reference = io::readVolumeRaw(dir / "whole.raw");
  EXPECT_THROW(coneRun(1, "resumed.raw", 7, 2, false, 5), Cancelled);
  const SlabRunReport resumed = coneRun(1, "resumed.raw", 7, 2, true);
  EXPECT_EQ(resumed.resumedFromIteration, 4);
  EXPECT_EQ(maxAbsDifference(io::readVolumeRaw(dir / "resumed.raw"), reference), 0.0);
}

// The streaming pair's sums are the whole pair's: A x and A^T y within float32 rounding on fresh
// random inputs, and the two are adjoint (zero-mean vectors).
TEST(SlabStreamingPair, ProjectsLikeThePairOfTheWholeVolume) {
  const Geometry geometry = coneScan();
  const VolumeGrid grid = VolumeGrid::centred({24, 24, 20}, Eigen::Vector3d::Constant(1.6));
  const SlabPlan plan = planSlabs(geometry, grid, {.slabSlices = 6});
  ASSERT_EQ(plan.slabs.size(), 4u);
  std::vector<StreamedSlab> slabs;
  for (const Slab& s : plan.slabs) slabs.push_back({s.z0, s.z1, s.rowFirst, s.rowLast});
  const iterative::IterativeParams p;  // the default pair
  const op::ProjectorProblem problem{&geometry, grid, {}};
  auto whole =
      op::bindProjectorPair(VariantRegistry::builtins(), p.forwardVariant, p.backVariant, problem);
  test::TempDir files;
  SlabStreamingPair streamed(VariantRegistry::builtins(), p.forwardVariant, p.backVariant, problem,
                             slabs, files.path());
  std::mt19937 rng(static_cast<std::uint32_t>(test::randomSeed()));
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  Volume x = grid.makeVolume();
  for (float& v : x.voxels()) v = value(rng);
  ProjectionStack y(geometry);
  for (float& v : y.pixels()) v = value(rng);
  JobContext context;
  const auto ax = [&](op::ProjectorPair& pair) {
    std::unique_ptr<op::Array> out = pair.makeProjections();
    pair.forward(*pair.useVolume(x), *out, {}, context);
    std::vector<float> host(out->size());
    pair.ops().download(*out, host);
    return host;
  };
  const auto aty = [&](op::ProjectorPair& pair) {
    std::unique_ptr<op::Array> out = pair.makeVolume();
    pair.adjoint(*pair.useProjections(y), *out, {}, context);
    std::vector<float> host(out->size());
    pair.ops().download(*out, host);
    return host;
  };
  const auto worst = [](const std::vector<float>& a, const std::vector<float>& b) {
    double d = 0, m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      d = std::max(d, std::abs(double(a[i]) - double(b[i])));
      m = std::max(m, std::abs(double(a[i])));
    }
    return d / m;
  };
  const std::vector<float> axWhole = ax(*whole), axStreamed = ax(streamed);
  const std::vector<float> atyWhole = aty(*whole), atyStreamed = aty(streamed);
  EXPECT_LT(worst(axWhole, axStreamed), 1e-5);
  EXPECT_LT(worst(atyWhole, atyStreamed), 1e-5);
  double left = 0, right = 0;  // <A x, y> = <x, A^T y>
  for (std::size_t i = 0; i < axStreamed.size(); ++i) left += double(axStreamed[i]) * y.pixels()[i];
  for (std::size_t i = 0; i < atyStreamed.size(); ++i)
    right += double(x.voxels()[i]) * atyStreamed[i];
  if (streamed.matched()) EXPECT_NEAR(left, right, 1e-4 * std::abs(left));
  EXPECT_NE(streamed.device().find("4 slabs streamed"), std::string::npos) << streamed.device();
}

// Out of core when asked, or when the block and its band would not fit 80 % of the memory.
TEST(IterativeVolumeFolder, IsTheOutputsFolderWhenAskedOrWhenTheBlockWouldNotFit) {
  const iterative::IterativeParams p;
  const SlabPlan plan =
      planSlabs(coneScan(), VolumeGrid::centred({24, 24, 20}, Eigen::Vector3d::Constant(1.6)),
                {.slabSlices = 20});
  const fs::path out = fs::path("/some/folder/volume.raw");
  EXPECT_TRUE(iterativeVolumeFolder(plan, 0, 1, p, out, false, std::uint64_t{1} << 40).empty());
  EXPECT_EQ(iterativeVolumeFolder(plan, 0, 1, p, out, true, std::uint64_t{1} << 40),
            "/some/folder");
  EXPECT_EQ(iterativeVolumeFolder(plan, 0, 1, p, out, false, 1024), "/some/folder");
}

}  // namespace
}  // namespace tomowb::scale
