// GPU FDK (issue #6, point 7): every GPU kernel variant against the float64 CPU reference on
// fresh random geometries (detector offsets, tilts) and random filtered data; the whole GPU FDK
// (GPU weighting and cuFFT filtering) against the CPU FDK for full, short and offset scans; a
// forced-streaming run against an unstreamed one; an impossible memory limit; cancellation; and
// one GPU against two when the machine has them. Without a GPU every test skips with a message.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <random>

#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/GpuFdkPlan.h"
#include "recon/fdk/cuda/GpuFdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/variant/VariantRegistry.h"
#include "support/GeometryTransforms.h"
#include "support/TestSupport.h"

namespace tomowb::cuda {
namespace {

constexpr double kPi = std::numbers::pi;

const std::vector<std::string> kGpuVariants = {
    "fdk.bp.naive",         "fdk.bp.tex",    "fdk.bp.tex-multi",    "fdk.bp.slab",
    "fdk.bp.layered16",     "fdk.bp.hybrid", "fdk.bp.mirror-half2", "fdk.bp.mirror-float2",
    "fdk.bp.mirror-hybrid", "fdk.bp.soft",   "fdk.bp.soft-mirror",  "fdk.bp.soft-mirror-half",
    "fdk.bp.fast"};

// Variants that interpolate in software (float32 arithmetic, no 8-bit texture weights).
bool softwareInterpolation(const std::string& kernel) {
  return kernel == "fdk.bp.naive" || kernel == "fdk.bp.soft" || kernel == "fdk.bp.soft-mirror";
}

double relativeL2(const Volume& a, const Volume& b) {
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    const double d = double(a.data()[i]) - double(b.data()[i]);
    num += d * d;
    den += double(b.data()[i]) * double(b.data()[i]);
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

double nrmse(const Volume& a, const Volume& reference) {
  double num = 0, lo = 1e300, hi = -1e300;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i) {
    const double r = reference.data()[i];
    const double d = double(a.data()[i]) - r;
    num += d * d;
    lo = std::min(lo, r);
    hi = std::max(hi, r);
  }
  return std::sqrt(num / double(a.voxelCount())) / std::max(hi - lo, 1e-300);
}

struct RandomCase {
  Geometry geometry;
  Volume grid;
  std::string label;
};

// A cone-beam scan with a random detector offset and tilt (or none), and a volume that the
// detector covers, slightly off the isocentre when `offCentre`.
RandomCase randomCase(std::mt19937_64& rng, bool tilted, bool offCentre) {
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  CircularConeParams p;
  p.sourceToIsocentreMm = 400 + 50 * uni(rng);
  p.sourceToDetectorMm = 800 + 80 * uni(rng);
  p.detector.cols = 72 + std::int64_t(8 * uni(rng));
  p.detector.rows = 60 + std::int64_t(8 * uni(rng));
  p.detector.pitchUMm = p.detector.pitchVMm = 2.0;
  if (offCentre) {
    p.detector.offsetUMm = 6 * uni(rng);
    p.detector.offsetVMm = 6 * uni(rng);
  }
  if (tilted) {
    p.detector.tiltRad = 0.05 * uni(rng);
    p.detector.slantRad = 0.05 * uni(rng);
    p.detector.inPlaneRotationRad = 0.04 * uni(rng);
  }
  p.anglesRad = fullScanAnglesRad(37 + std::int64_t(10 * (uni(rng) + 1)), 0.3 * uni(rng));
  const Geometry g = circularConeBeam(p);
  const VolumeShape shape{40 + std::int64_t(6 * (uni(rng) + 1)),
                          36 + std::int64_t(6 * (uni(rng) + 1)),
                          35 + std::int64_t(6 * (uni(rng) + 1))};
  Volume grid = Volume::centred(shape, Eigen::Vector3d::Constant(1.0));
  if (offCentre)
    grid.setOriginMm(grid.originMm() + Eigen::Vector3d(3 * uni(rng), 3 * uni(rng), 2 * uni(rng)));
  return {g, std::move(grid),
          std::string(tilted ? "tilted" : "untilted") + (offCentre ? ", offset" : ", centred")};
}

ProjectionStack randomViews(const Geometry& g, std::mt19937_64& rng) {
  ProjectionStack s(g);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  for (float& x : s.pixels()) x = uni(rng);
  return s;
}

Volume backproject(const std::string& variant, const ProjectionStack& views, const Volume& grid) {
  Volume v(grid.shape(), grid.voxelSizeMm(), grid.originMm());
  JobContext context;
  VariantRegistry::builtins().require(variant).backproject(views, v, context);
  return v;
}

TEST(GpuFdk, EveryVariantIsRegisteredAsAGpuVariant) {
  TOMOWB_SKIP_WITHOUT_GPU();
  for (const std::string& name : kGpuVariants) {
    const KernelVariant* v = VariantRegistry::builtins().find(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_TRUE(v->needsGpu) << name;
    EXPECT_TRUE(v->backproject && v->reconstruct) << name;
    EXPECT_FALSE(v->description.empty()) << name;
  }
}

TEST(GpuFdk, EveryVariantMatchesTheFloat64ReferenceOnRandomGeometries) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const std::uint64_t seed = test::randomSeed();
  std::mt19937_64 rng(seed);
  for (const bool tilted : {false, true})
    for (const bool offCentre : {false, true}) {
      const RandomCase c = randomCase(rng, tilted, offCentre);
      const ProjectionStack views = randomViews(c.geometry, rng);
      const Volume reference = backproject("fdk.bp.cpu-f64", views, c.grid);
      for (const std::string& name : kGpuVariants) {
        const KernelChoice choice = chooseKernel(name, views, c.grid);
        const Volume gpu = backproject(name, views, c.grid);
        const double err = relativeL2(gpu, reference);
        // Zero-mean data: the texture unit's 8-bit weights give ~4e-3, half-precision taps ~3e-4
        // and software float32 ~1e-6.
        const double limit = softwareInterpolation(choice.kernel)         ? 2e-5
                             : choice.kernel == "fdk.bp.soft-mirror-half" ? 1e-3
                                                                          : 1.5e-2;
        EXPECT_LT(err, limit) << name << " ran as " << choice.kernel << " (" << choice.why
                              << ") on a " << c.label << " geometry, seed " << seed;
      }
    }
}

TEST(GpuFdk, MirrorKernelRunsOnCentredGeometriesAndFallsBackOtherwise) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const RandomCase centred = randomCase(rng, false, false);
  const ProjectionStack views(centred.geometry);
  EXPECT_EQ(chooseKernel("fdk.bp.fast", views, centred.grid).kernel, "fdk.bp.mirror-hybrid");
  EXPECT_EQ(chooseKernel("fdk.bp.soft-mirror", views, centred.grid).kernel, "fdk.bp.soft-mirror");
  const RandomCase tilted = randomCase(rng, true, false);
  const KernelChoice c =
      chooseKernel("fdk.bp.mirror-half2", ProjectionStack(tilted.geometry), tilted.grid);
  EXPECT_EQ(c.kernel, "fdk.bp.layered16");
  EXPECT_NE(c.why.find("tilted"), std::string::npos) << c.why;
  // The hybrid steps v along a z-column, which a tilt breaks: layered16's general path runs.
  const KernelChoice fast =
      chooseKernel("fdk.bp.fast", ProjectionStack(tilted.geometry), tilted.grid);
  EXPECT_EQ(fast.kernel, "fdk.bp.layered16");
  EXPECT_NE(fast.why.find("tilted"), std::string::npos) << fast.why;
  const RandomCase offset = randomCase(rng, false, true);
  EXPECT_EQ(chooseKernel("fdk.bp.fast", ProjectionStack(offset.geometry), offset.grid).kernel,
            "fdk.bp.hybrid");
  EXPECT_EQ(
      chooseKernel("fdk.bp.soft-mirror-half", ProjectionStack(tilted.geometry), tilted.grid).kernel,
      "fdk.bp.soft");
}

CircularConeParams phantomScan(std::int64_t views, double offsetUMm = 0.0) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 1000;
  p.detector.cols = 112;
  p.detector.rows = 96;
  p.detector.pitchUMm = p.detector.pitchVMm = 3.2;
  p.detector.offsetUMm = offsetUMm;
  p.anglesRad = fullScanAnglesRad(views);
  return p;
}

// An input of fewer views than the hybrid kernels' N has no load path (fdk::loadPathEvery): the
// texture samples every view, as in the kernel without the load path, bit for bit.
TEST(GpuFdk, HybridKernelsOnFewerViewsThanTheirNRunTheirTextureKernel) {
  TOMOWB_SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(test::randomSeed());
  const Volume grid = Volume::centred({48, 44, 40}, Eigen::Vector3d::Constant(1.2));
  for (const std::int64_t count : {1, 2}) {
    const ProjectionStack views = randomViews(circularConeBeam(phantomScan(count)), rng);
    EXPECT_EQ(chooseKernel("fdk.bp.fast", views, grid).kernel, "fdk.bp.mirror-hybrid");
    const Volume hybrid = backproject("fdk.bp.hybrid", views, grid);
    const Volume layered = backproject("fdk.bp.layered16", views, grid);
    EXPECT_TRUE(
        std::equal(hybrid.voxels().begin(), hybrid.voxels().end(), layered.voxels().begin()))
        << count << " views";
    const Volume mirrorHybrid = backproject("fdk.bp.mirror-hybrid", views, grid);
    const Volume mirror = backproject("fdk.bp.mirror-half2", views, grid);
    EXPECT_TRUE(std::equal(mirrorHybrid.voxels().begin(), mirrorHybrid.voxels().end(),
                           mirror.voxels().begin()))
        << count << " views";
    EXPECT_TRUE(std::any_of(layered.voxels().begin(), layered.voxels().end(),
                            [](float v) { return v != 0.0f; }));
  }
}

struct FdkPair {
  Volume gpu, cpu;
  fdk::FdkReport report;
};

FdkPair runBoth(const ProjectionStack& projections, fdk::FdkParams params,
                const std::string& variant) {
  JobContext context;
  FdkPair out;
  params.variant = "fdk.bp.cpu-f64";
  out.cpu = fdk::reconstructFdk(projections, params, context);
  params.variant = variant;
  out.gpu = fdk::reconstructFdk(projections, params, context, &out.report);
  return out;
}

TEST(GpuFdk, GpuFilteringAndSoftKernelMatchTheCpuFdk) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  struct Scan {
    const char* label;
    Geometry geometry;
    fdk::RedundancyMode mode;
  };
  CircularConeParams shortScan = phantomScan(1);
  shortScan.anglesRad = shortScanAnglesRad(shortScan, 120);
  const std::vector<Scan> scans = {
      {"full scan", circularConeBeam(phantomScan(120)), fdk::RedundancyMode::Auto},
      {"short scan (Parker)", circularConeBeam(shortScan), fdk::RedundancyMode::Parker},
      {"offset detector", circularConeBeam(phantomScan(120, 60.0)), fdk::RedundancyMode::Auto}};
  for (const Scan& s : scans) {
    const ProjectionStack projections = phantom::projectPhantom(ph, s.geometry);
    fdk::FdkParams params;
    params.volume = fdk::VolumeGrid::centred({64, 64, 56}, Eigen::Vector3d::Constant(2.0));
    params.redundancy = s.mode;
    params.filter.window = fdk::RampWindow::Hann;
    for (const char* soft : {"fdk.bp.soft", "fdk.bp.soft-mirror"}) {
      const FdkPair r = runBoth(projections, params, soft);
      EXPECT_EQ(r.report.kernel, soft);
      // The bound for software interpolation: NRMSE <= 1e-5 of the reference's range.
      EXPECT_LT(nrmse(r.gpu, r.cpu), 1e-5) << s.label << " with " << soft;
    }
    const FdkPair half = runBoth(projections, params, "fdk.bp.soft-mirror-half");
    EXPECT_LT(nrmse(half.gpu, half.cpu), 1e-3) << s.label << " with half-precision taps";
    const FdkPair hw = runBoth(projections, params, "fdk.bp.fast");
    EXPECT_LT(nrmse(hw.gpu, hw.cpu), 1e-3) << s.label << " with " << hw.report.kernel;
  }
}

// Scans described in other tools' conventions (issue #17): a textbook short scan turning
// clockwise with u flipped and the views listed backwards, and an offset detector with u flipped.
std::vector<std::pair<std::string, ProjectionStack>> describedScans(const phantom::Phantom& ph) {
  std::vector<std::pair<std::string, ProjectionStack>> out;
  CircularConeParams shortScan = phantomScan(1);
  shortScan.anglesRad.clear();
  const double range = kPi + fullFanAngleRad(shortScan);
  for (int i = 0; i < 150; ++i) shortScan.anglesRad.push_back(0.7 - range * i / 150.0);
  const ProjectionStack shortStack = phantom::projectPhantom(ph, circularConeBeam(shortScan));
  out.emplace_back("short scan", shortStack);
  out.emplace_back("short scan, u flipped, views backwards",
                   test::reverseViews(test::flipDetectorU(shortStack)));
  const ProjectionStack offset =
      phantom::projectPhantom(ph, circularConeBeam(phantomScan(120, 60.0)));
  out.emplace_back("offset detector, u flipped", test::flipDetectorU(offset));
  out.emplace_back("full scan, v flipped", test::flipDetectorV(phantom::projectPhantom(
                                               ph, circularConeBeam(phantomScan(90)))));
  return out;
}

// The GPU's weighting and cuFFT ramp filter alone against the CPU's, every window.
TEST(GpuFdk, GpuRampFilterMatchesTheCpuFilterWithin1e5) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  for (const auto& [label, projections] : describedScans(ph)) {
    const fdk::FdkWeightPlan plan(projections.geometry(), fdk::RedundancyMode::Auto);
    for (fdk::RampWindow window : {fdk::RampWindow::RamLak, fdk::RampWindow::Hann}) {
      fdk::RampFilterParams filter;
      filter.window = window;
      filter.cutoff = window == fdk::RampWindow::Hann ? 0.8 : 1.0;
      JobContext context;
      const ProjectionStack cpu = fdk::filterProjections(projections, plan, filter, context);
      const ProjectionStack gpu = filterProjectionsOnGpu(projections, plan, filter);
      ASSERT_EQ(gpu.pixelCount(), cpu.pixelCount()) << label;
      double peak = 0, worst = 0;
      for (std::int64_t i = 0; i < cpu.pixelCount(); ++i) {
        peak = std::max(peak, double(std::abs(cpu.data()[i])));
        worst = std::max(worst, double(std::abs(gpu.data()[i] - cpu.data()[i])));
      }
      EXPECT_LT(worst / peak, 1e-5) << label << ", " << fdk::toString(window);
    }
  }
}

// Every GPU variant reconstructs a scan described in another convention as the float64 CPU
// reconstructs the scan as built: the weights come from the geometry, not its description.
TEST(GpuFdk, EveryVariantReconstructsScansInAnyConvention) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  const auto scans = describedScans(ph);
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({64, 64, 48}, Eigen::Vector3d::Constant(2.0));
  params.filter.window = fdk::RampWindow::Hann;
  params.variant = "fdk.bp.cpu-f64";
  JobContext context;
  const Volume reference = fdk::reconstructFdk(scans[0].second, params, context);
  for (const auto& [label, projections] : scans) {
    if (label.rfind("short scan", 0) != 0) continue;
    for (const std::string& variant : kGpuVariants) {
      params.variant = variant;
      fdk::FdkReport report;
      const Volume v = fdk::reconstructFdk(projections, params, context, &report);
      const double limit = softwareInterpolation(report.kernel) ? 1e-5 : 1e-3;
      EXPECT_LT(nrmse(v, reference), limit)
          << label << " with " << variant << " (ran " << report.kernel << ")";
    }
  }
}

TEST(GpuFdk, ForcedStreamingGivesTheSameVolume) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  const ProjectionStack projections =
      phantom::projectPhantom(ph, circularConeBeam(phantomScan(90)));
  fdk::FdkParams params;
  // An odd slice count too: the mirrored slab pair across the centre then holds the centre slice.
  for (const std::int64_t nz : {80, 81})
    for (const std::string variant :
         {"fdk.bp.layered16", "fdk.bp.soft", "fdk.bp.mirror-half2", "fdk.bp.mirror-float2",
          "fdk.bp.slab", "fdk.bp.soft-mirror", "fdk.bp.soft-mirror-half", "fdk.bp.hybrid",
          "fdk.bp.mirror-hybrid"}) {
      params.volume = fdk::VolumeGrid::centred({96, 96, nz}, Eigen::Vector3d::Constant(1.4));
      params.variant = variant;
      params.gpu.memoryLimitBytes = 0;
      JobContext context;
      fdk::FdkReport whole, streamed;
      const Volume a = fdk::reconstructFdk(projections, params, context, &whole);
      // Room for about a third of the volume and 8 views: several slabs (blocks), many chunks.
      params.gpu.memoryLimitBytes = (std::uint64_t{256} << 20) + 3300000;
      const Volume b = fdk::reconstructFdk(projections, params, context, &streamed);
      EXPECT_NE(whole.plan, streamed.plan) << variant;
      EXPECT_TRUE(streamed.plan.find("slabs") != std::string::npos ||
                  streamed.plan.find("slab pairs") != std::string::npos)
          << variant << ": " << streamed.plan;
      // Slabs shift the texture coordinates by whole rows, which changes their float rounding:
      // the texture unit's 8-bit weights may then round the other way (rel. ~5e-5 seen).
      const double limit = softwareInterpolation(variant)                      ? 1e-5
                           : variant == std::string("fdk.bp.soft-mirror-half") ? 1e-3
                                                                               : 5e-4;
      EXPECT_LT(relativeL2(b, a), limit)
          << variant << ", nz " << nz << ": " << whole.plan << " vs " << streamed.plan;
      // A mirrored slab pair uploads the rows of its slices and their mirrors, not the whole
      // detector as the y-blocks before it did (issue #22): less than pairs x the whole upload.
      if (fdk::gpuKernelFootprint(variant).axis == fdk::GpuSplitAxis::ZMirror) {
        const long pairs = std::stol(streamed.plan);  // "3 mirrored slab pairs of ..."
        EXPECT_LT(streamed.uploadBytes, 0.8 * double(pairs) * whole.uploadBytes)
            << variant << ": " << streamed.plan << " uploaded " << streamed.uploadBytes
            << " bytes, " << whole.plan << " " << whole.uploadBytes;
      }
    }
}

TEST(GpuFdk, AnImpossibleMemoryLimitSaysWhatWouldFit) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const ProjectionStack projections(circularConeBeam(phantomScan(30)));
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({512, 512, 8}, Eigen::Vector3d::Constant(0.2));
  params.variant = "fdk.bp.layered16";
  params.gpu.memoryLimitBytes = (std::uint64_t{256} << 20) + (1u << 20);
  JobContext context;
  try {
    (void)fdk::reconstructFdk(projections, params, context);
    FAIL() << "a 1 MiB budget cannot hold a 512 x 512 slice";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("would fit"), std::string::npos) << e.what();
  }
}

class CancelOnProgress : public ProgressSink {
 public:
  explicit CancelOnProgress(CancelToken& token) : token_(token) {}
  void report(std::string_view stage, double /*fraction*/) override {
    if (stage == "backproject") token_.request();
  }

 private:
  CancelToken& token_;
};

TEST(GpuFdk, CancellingARunThrowsCancelled) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const ProjectionStack projections(circularConeBeam(phantomScan(200)));
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({96, 96, 80}, Eigen::Vector3d::Constant(1.4));
  params.variant = "fdk.bp.layered16";
  params.gpu.tunables.clear();
  params.gpu.memoryLimitBytes = (std::uint64_t{256} << 20) + (64u << 20);  // several chunks
  CancelToken token;
  CancelOnProgress progress(token);
  JobContext context(token, &progress);
  EXPECT_THROW((void)fdk::reconstructFdk(projections, params, context), Cancelled);
}

// Live previews (issue #21, point 9): a run on one slab hands out its partial sums while it
// runs, each after more views, scaled to the final units; they change nothing in the result,
// and a sink that wants no volume now gets none (the run skips the download).
TEST(GpuFdk, LivePreviewsArePartialSumsAndLeaveTheResultAlone) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  const ProjectionStack projections =
      phantom::projectPhantom(ph, circularConeBeam(phantomScan(200)));
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({96, 96, 80}, Eigen::Vector3d::Constant(1.4));
  params.variant = "fdk.bp.layered16";
  params.gpu.tunables.clear();
  params.gpu.memoryLimitBytes = (std::uint64_t{256} << 20) + (64u << 20);  // several chunks
  params.gpu.devices = {0};  // one slab: several GPUs would each take one
  struct Previews : IntermediateVolumeSink {
    bool wanted = true;
    std::vector<std::string> labels;
    std::vector<double> scales;
    double largest = 0;
    bool finite = true;
    void publish(const Volume& v, std::string_view label, double scale) override {
      labels.emplace_back(label);
      scales.push_back(scale);
      for (float x : v.voxels()) {
        finite = finite && std::isfinite(x);
        largest = std::max(largest, std::abs(double(x)));
      }
    }
    bool wantsVolumeNow() const override { return wanted; }
  };
  JobContext plain;
  fdk::FdkReport report;
  const Volume expected = fdk::reconstructFdk(projections, params, plain, &report);
  ASSERT_EQ(report.plan.find("slabs"), std::string::npos) << report.plan;
  Previews previews;
  CancelToken token;
  JobContext context(token, nullptr, nullptr, &previews);
  const Volume got = fdk::reconstructFdk(projections, params, context);
  for (std::int64_t i = 0; i < got.voxelCount(); ++i)
    ASSERT_EQ(got.voxels()[i], expected.voxels()[i]) << "voxel " << i;
  ASSERT_GE(previews.labels.size(), 1u) << report.plan;
  EXPECT_TRUE(previews.finite);
  EXPECT_GT(previews.largest, 0.0);
  int before = 0;
  for (std::size_t i = 0; i < previews.labels.size(); ++i) {
    int done = 0, total = 0;
    ASSERT_EQ(
        std::sscanf(previews.labels[i].c_str(), "backprojected %d of %d views", &done, &total), 2)
        << previews.labels[i];
    EXPECT_EQ(total, 200);
    EXPECT_GT(done, before) << previews.labels[i];
    EXPECT_LT(done, 200) << "the last chunk is the result, not a preview";
    EXPECT_DOUBLE_EQ(previews.scales[i], 200.0 / done);
    before = done;
  }
  Previews unwanted;
  unwanted.wanted = false;
  JobContext quiet(token, nullptr, nullptr, &unwanted);
  (void)fdk::reconstructFdk(projections, params, quiet);
  EXPECT_TRUE(unwanted.labels.empty());
}

// reconstructFdkInto on the GPU: the slabs tile the grid and overwrite a used volume without
// zeroing it first, so a NaN-filled volume must come out as a fresh run's, bit for bit, for every
// kernel, streamed in several slabs or not, on every visible GPU.
TEST(GpuFdk, IntoAUsedVolumeGivesTheFreshResultBitForBit) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  const ProjectionStack projections =
      phantom::projectPhantom(ph, circularConeBeam(phantomScan(90)));
  std::vector<int> all;
  for (const GpuDevice& device : listGpuDevices()) all.push_back(device.index);
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({96, 90, 81}, Eigen::Vector3d::Constant(1.4));
  Volume used(params.volume.shape, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (const std::string& variant : kGpuVariants)
    for (const std::uint64_t limit : {std::uint64_t{0}, (std::uint64_t{256} << 20) + 3300000}) {
      params.variant = variant;
      params.gpu.memoryLimitBytes = limit;
      params.gpu.devices = all;
      JobContext context;
      fdk::FdkReport report;
      const Volume fresh = fdk::reconstructFdk(projections, params, context, &report);
      std::fill(used.voxels().begin(), used.voxels().end(), std::nanf(""));
      fdk::reconstructFdkInto(projections, params, used, context);
      std::int64_t differing = 0;
      for (std::int64_t i = 0; i < fresh.voxelCount(); ++i)
        differing += std::bit_cast<std::uint32_t>(used.data()[i]) !=
                     std::bit_cast<std::uint32_t>(fresh.data()[i]);
      EXPECT_EQ(differing, 0) << variant << ", " << report.plan << " on " << all.size() << " GPUs";
    }
}

TEST(GpuFdk, TwoGpusGiveTheOneGpuResult) {
  TOMOWB_SKIP_WITHOUT_GPU();
  if (listGpuDevices().size() < 2) GTEST_SKIP() << "needs two GPUs; " << gpuStatus();
  const phantom::Phantom ph = phantom::modifiedSheppLogan3d(60.0);
  const ProjectionStack projections =
      phantom::projectPhantom(ph, circularConeBeam(phantomScan(90)));
  fdk::FdkParams params;
  params.volume = fdk::VolumeGrid::centred({96, 96, 80}, Eigen::Vector3d::Constant(1.4));
  for (const std::string variant : {"fdk.bp.fast", "fdk.bp.soft"}) {
    params.variant = variant;
    JobContext context;
    params.gpu.devices = {0};
    fdk::FdkReport one, two;
    const Volume a = fdk::reconstructFdk(projections, params, context, &one);
    params.gpu.devices = {0, 1};
    const Volume b = fdk::reconstructFdk(projections, params, context, &two);
    const double limit = variant == "fdk.bp.soft" ? 1e-5 : 5e-4;  // as in ForcedStreaming
    EXPECT_LT(relativeL2(b, a), limit) << variant << ": " << one.plan << " vs " << two.plan;
  }
}

}  // namespace
}  // namespace tomowb::cuda
