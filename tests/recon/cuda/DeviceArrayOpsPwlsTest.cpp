// The device's operations for PWLS (recon/operator/cuda/DeviceArrayOps) against the host's
// (HostArrayOps): the element-wise product, the hyperbola penalty (value, gradient, curvature) and
// the SQS step, on arrays of a resident GPU pair (the device ops reach a test only through a pair).
// And PWLS through the solver on the resident GPU pairs (Joseph on a tilt series; separable
// footprint on a cone beam, with momentum) against the same run on the CPU pair. Without a GPU
// every test skips with a message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <vector>

#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"
#include "support/TestSupport.h"

namespace tomowb::op {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

Geometry tilts(std::int64_t cols, std::int64_t rows, std::int64_t views) {
  TiltSeriesParams p;
  p.cols = cols;
  p.rows = rows;
  p.tiltAnglesRad = arcAnglesRad(views, 120 * kDeg, -60 * kDeg);
  return tiltSeries(p);
}

std::vector<float> randomValues(std::size_t n, std::uint64_t seed, float low, float high) {
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> value(low, high);
  std::vector<float> out(n);
  for (float& v : out) v = value(generator);
  return out;
}

// The largest |device - host| relative to max |host|.
double relativeMaxDifference(const std::vector<float>& device, const std::vector<float>& host) {
  double largest = 0, scale = 0;
  for (std::size_t i = 0; i < host.size(); ++i) {
    largest = std::max(largest, std::abs(double(device[i]) - host[i]));
    scale = std::max(scale, std::abs(double(host[i])));
  }
  return scale > 0 ? largest / scale : largest;
}

struct Arrays {
  std::unique_ptr<Array> x, a, b, c, d, mask;
};

TEST(DeviceArrayOpsPwls, PenaltyProductAndSqsStepMatchTheHost) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const VariantRegistry& registry = VariantRegistry::builtins();
  const Geometry geometry = tilts(40, 9, 15);
  const VolumeShape shape{37, 11, 9};  // odd sizes: the stencil's edges in every direction
  const ProjectorProblem problem{&geometry, VolumeGrid::centred(shape, {1, 1, 1})};
  std::unique_ptr<ProjectorPair> pair =
      bindProjectorPair(registry, "et.fp.matched", "et.bp.matched", problem);
  const ArrayOps& device = pair->ops();
  ASSERT_EQ(device.space(), MemorySpace::Device) << pair->device();
  const HostArrayOps host;
  const std::size_t n = std::size_t(shape.voxelCount());
  const std::uint64_t seed = test::randomSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const std::vector<float> x = randomValues(n, seed, -0.02f, 0.05f);
  const std::vector<float> u = randomValues(n, seed + 1, -1.0f, 1.0f);
  const std::vector<float> d = randomValues(n, seed + 2, 0.0f, 4.0f);
  std::vector<float> mask = randomValues(n, seed + 3, 0.0f, 1.0f);
  for (float& m : mask) m = m < 0.2f ? 0.0f : 1.0f;

  const auto onDevice = [&](const std::vector<float>& values) {
    std::unique_ptr<Array> a = pair->makeVolume();
    device.upload(values, *a);
    return a;
  };
  const auto onHost = [&](const std::vector<float>& values) {
    auto a = std::make_unique<HostVolumeArray>(problem.grid.makeVolume());
    host.upload(values, *a);
    return a;
  };
  const auto download = [&](const Array& a) {
    std::vector<float> out(a.size());
    device.download(a, out);
    return out;
  };
  const auto hostValues = [](const Array& a) {
    return std::vector<float>(a.data(), a.data() + a.size());
  };

  for (const double delta : {0.001, 0.05}) {
    SCOPED_TRACE("delta " + std::to_string(delta));
    std::unique_ptr<Array> dx = onDevice(x), dg = pair->makeVolume(), dc = pair->makeVolume();
    std::unique_ptr<Array> hx = onHost(x), hg = onHost(u), hc = onHost(u);
    const double deviceValue = device.hyperbolaPenalty(*dx, shape, delta, 7.0, *dg, dc.get());
    const double hostValue = host.hyperbolaPenalty(*hx, shape, delta, 7.0, *hg, hc.get());
    EXPECT_NEAR(deviceValue, hostValue, 1e-12 * std::abs(hostValue));
    EXPECT_LE(relativeMaxDifference(download(*dg), hostValues(*hg)), 1e-6);
    EXPECT_LE(relativeMaxDifference(download(*dc), hostValues(*hc)), 1e-6);
    // The same run twice: the same bits.
    EXPECT_EQ(device.hyperbolaPenalty(*dx, shape, delta, 7.0, *dg, nullptr), deviceValue);
  }

  std::unique_ptr<Array> dx = onDevice(x), du = onDevice(u), dd = onDevice(d), dm = onDevice(mask);
  std::unique_ptr<Array> hx = onHost(x), hu = onHost(u), hd = onHost(d), hm = onHost(mask);
  device.multiply(*du, *dx);
  host.multiply(*hu, *hx);
  EXPECT_EQ(download(*dx), hostValues(*hx));

  dx = onDevice(x);
  hx = onHost(x);
  std::unique_ptr<Array> dg = pair->makeVolume(), dc = pair->makeVolume();
  std::unique_ptr<Array> hg = onHost(u), hc = onHost(u);
  device.hyperbolaPenalty(*dx, shape, 0.01, 3.0, *dg, dc.get());
  host.hyperbolaPenalty(*hx, shape, 0.01, 3.0, *hg, hc.get());
  device.sqsStep(*dx, *du, 4.0, dg.get(), *dd, dc.get(), dm.get(), 0.0f, 0.04f);
  host.sqsStep(*hx, *hu, 4.0, hg.get(), *hd, hc.get(), hm.get(), 0.0f, 0.04f);
  EXPECT_LE(relativeMaxDifference(download(*dx), hostValues(*hx)), 1e-6);
  device.sqsStep(*dx, *du, 1.0, nullptr, *dd, nullptr, nullptr, -INFINITY, INFINITY);
  host.sqsStep(*hx, *hu, 1.0, nullptr, *hd, nullptr, nullptr, -INFINITY, INFINITY);
  EXPECT_LE(relativeMaxDifference(download(*dx), hostValues(*hx)), 1e-6);
}

TEST(DeviceArrayOpsPwls, PwlsOnTheResidentGpuPairFollowsTheCpuPair) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const Geometry geometry = tilts(48, 6, 31);
  ProjectionStack data(geometry);
  const std::vector<float> values = randomValues(data.pixels().size(), 5, 0.0f, 1.0f);
  std::copy(values.begin(), values.end(), data.pixels().begin());
  iterative::IterativeParams params;
  params.method = iterative::IterativeMethod::Pwls;
  params.volume = VolumeGrid::centred({48, 16, 6}, {1, 1, 1});
  params.iterations = 4;
  params.subsets = 3;
  params.lowerBound = 0.0;
  params.pwls.beta = 0.5;
  params.pwls.delta = 0.01;
  JobContext context;
  params.forwardVariant = "et.fp.cpu";
  params.backVariant = "et.bp.cpu-matched";
  iterative::IterativeReport cpuReport, gpuReport;
  const Volume cpu = iterative::reconstructIterative(data, params, context, &cpuReport);
  params.forwardVariant = "et.fp.matched";
  params.backVariant = "et.bp.matched";
  const Volume gpu = iterative::reconstructIterative(data, params, context, &gpuReport);
  EXPECT_NE(gpuReport.device.find("resident"), std::string::npos) << gpuReport.device;
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < cpu.voxelCount(); ++i) {
    num += std::pow(double(gpu.data()[i]) - cpu.data()[i], 2);
    den += std::pow(double(cpu.data()[i]), 2);
  }
  EXPECT_LT(std::sqrt(num / den), 1e-4);
  for (std::size_t k = 0; k < cpuReport.iterations.size(); ++k)
    EXPECT_NEAR(gpuReport.iterations[k].objective, cpuReport.iterations[k].objective,
                1e-4 * cpuReport.iterations[k].objective);
}

TEST(DeviceArrayOpsPwls, PwlsOnTheGpuSeparableFootprintPairFollowsTheCpuPair) {
  TOMOWB_SKIP_WITHOUT_GPU();
  const VariantRegistry& registry = VariantRegistry::builtins();
  if (!registry.find("sf.fp.gather") || !registry.find("sf.bp.gather"))
    GTEST_SKIP() << "no GPU separable-footprint pair in this build";
  CircularConeParams c;
  c.sourceToIsocentreMm = 150;
  c.sourceToDetectorMm = 300;
  c.detector.cols = 40;
  c.detector.rows = 24;
  c.detector.pitchUMm = c.detector.pitchVMm = 2.0;
  c.anglesRad = fullScanAnglesRad(30);
  const Geometry geometry = circularConeBeam(c);
  ProjectionStack data(geometry);
  const std::vector<float> values = randomValues(data.pixels().size(), 9, 0.0f, 1.0f);
  std::copy(values.begin(), values.end(), data.pixels().begin());
  iterative::IterativeParams params;
  params.method = iterative::IterativeMethod::Pwls;
  params.volume = VolumeGrid::centred({20, 20, 12}, {1, 1, 1});
  params.iterations = 3;
  params.subsets = 5;
  params.lowerBound = 0.0;
  params.pwls.beta = 2.0;
  params.pwls.delta = 0.01;
  params.pwls.momentum = true;
  JobContext context;
  params.forwardVariant = "sf.fp.cpu-tr";
  params.backVariant = "sf.bp.cpu-tr";
  iterative::IterativeReport cpuReport, gpuReport;
  const Volume cpu = iterative::reconstructIterative(data, params, context, &cpuReport);
  params.forwardVariant = "sf.fp.gather";
  params.backVariant = "sf.bp.gather";
  const Volume gpu = iterative::reconstructIterative(data, params, context, &gpuReport);
  std::printf("device: %s\n", gpuReport.device.c_str());
  double num = 0, den = 0;
  for (std::int64_t i = 0; i < cpu.voxelCount(); ++i) {
    num += std::pow(double(gpu.data()[i]) - cpu.data()[i], 2);
    den += std::pow(double(cpu.data()[i]), 2);
  }
  EXPECT_LT(std::sqrt(num / den), 1e-4);
  for (std::size_t k = 0; k < cpuReport.iterations.size(); ++k)
    EXPECT_NEAR(gpuReport.iterations[k].objective, cpuReport.iterations[k].objective,
                1e-4 * cpuReport.iterations[k].objective);
}

}  // namespace
}  // namespace tomowb::op
