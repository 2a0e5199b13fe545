#include "recon/phantom/Voxelise.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/phantom/PreparedShape.h"

namespace tomowb::phantom {

namespace {

constexpr std::int64_t kRowsPerBlock = 512;

struct LineSampler {
  const std::vector<PreparedShape>* shapes;
  std::vector<Eigen::Vector3d> stepLocal;  // one sample step along x, in each canonical frame
  std::int64_t samplesPerLine = 0;         // nx * supersample
  double firstSampleX = 0.0;               // world x of sample 0
  double sampleStepX = 0.0;

  // Adds each shape's density over the samples of the line (y, z) to `difference`, a running
  // difference array of samplesPerLine + 1 entries.
  void addLine(double y, double z, std::vector<double>& difference) const {
    const Eigen::Vector3d start(firstSampleX, y, z);
    const auto last = static_cast<double>(samplesPerLine - 1);
    for (std::size_t k = 0; k < shapes->size(); ++k) {
      const PreparedShape& shape = (*shapes)[k];
      if (y < shape.boxMinMm().y() || y > shape.boxMaxMm().y() || z < shape.boxMinMm().z() ||
          z > shape.boxMaxMm().z())
        continue;
      RayInterval interval;
      if (!shape.intersectLocal(shape.localPoint(start), stepLocal[k], interval)) continue;
      // Samples m with enter <= m <= exit are inside (t counts samples along the line).
      const double lo = std::clamp(std::ceil(interval.enter), 0.0, last + 1.0);
      const double hi = std::clamp(std::floor(interval.exit), -1.0, last);
      if (lo > hi) continue;
      difference[static_cast<std::size_t>(lo)] += shape.density();
      difference[static_cast<std::size_t>(hi) + 1] -= shape.density();
    }
  }
};

}  // namespace

Volume voxelisePhantom(const Phantom& phantom, VolumeShape shape,
                       const Eigen::Vector3d& voxelSizeMm, const Eigen::Vector3d& originMm,
                       int supersample, const JobContext* context) {
  const int n = supersample;
  if (n < 1 || n > kMaxVoxeliseSupersample)
    throw ParameterError("supersample", "must be 1.." + std::to_string(kMaxVoxeliseSupersample) +
                                            ", got " + std::to_string(n));
  Volume volume(shape, voxelSizeMm, originMm);
  const std::int64_t nx = volume.nx(), ny = volume.ny(), nz = volume.nz();

  std::vector<double> offsets(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) offsets[static_cast<std::size_t>(k)] = (k + 0.5) / n - 0.5;

  LineSampler sampler;
  sampler.shapes = &phantom.preparedShapes();
  sampler.samplesPerLine = nx * n;
  sampler.sampleStepX = voxelSizeMm.x() / n;
  sampler.firstSampleX = originMm.x() + voxelSizeMm.x() * offsets.front();
  for (const PreparedShape& s : phantom.preparedShapes())
    sampler.stepLocal.push_back(s.localVector(Eigen::Vector3d(sampler.sampleStepX, 0.0, 0.0)));

  const double samplesPerVoxel = static_cast<double>(n) * n * n;
  const std::int64_t slicesPerBlock = std::max<std::int64_t>(1, kRowsPerBlock / ny);
  for (std::int64_t firstZ = 0; firstZ < nz; firstZ += slicesPerBlock) {
    if (context) context->throwIfCancelled();
    const std::int64_t lastZ = std::min(nz, firstZ + slicesPerBlock);
    const std::int64_t blockRows = (lastZ - firstZ) * ny;
#pragma omp parallel
    {
      std::vector<double> difference(static_cast<std::size_t>(sampler.samplesPerLine + 1));
      std::vector<double> sums(static_cast<std::size_t>(nx));
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t i = 0; i < blockRows; ++i) {
        const std::int64_t iz = firstZ + i / ny;
        const std::int64_t iy = i % ny;
        std::fill(sums.begin(), sums.end(), 0.0);
        for (double oz : offsets) {
          const double z = originMm.z() + voxelSizeMm.z() * (static_cast<double>(iz) + oz);
          for (double oy : offsets) {
            const double y = originMm.y() + voxelSizeMm.y() * (static_cast<double>(iy) + oy);
            std::fill(difference.begin(), difference.end(), 0.0);
            sampler.addLine(y, z, difference);
            double running = 0.0;
            std::int64_t m = 0;
            for (std::int64_t ix = 0; ix < nx; ++ix)
              for (int k = 0; k < n; ++k, ++m) {
                running += difference[static_cast<std::size_t>(m)];
                sums[static_cast<std::size_t>(ix)] += running;
              }
          }
        }
        float* out = volume.data() + volume.index(0, iy, iz);
        for (std::int64_t ix = 0; ix < nx; ++ix)
          out[ix] = static_cast<float>(sums[static_cast<std::size_t>(ix)] / samplesPerVoxel);
      }
    }
    if (context)
      context->reportProgress("voxelise phantom",
                              static_cast<double>(lastZ) / static_cast<double>(nz));
  }
  return volume;
}

}  // namespace tomowb::phantom
