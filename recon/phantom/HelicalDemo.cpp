#include "recon/phantom/HelicalDemo.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/PoissonNoise.h"

namespace tomowb::phantom {

namespace {
constexpr double kFieldMm = 204.8;         // the other demos' volume edge
constexpr double kPhantomScaleMm = 100.0;  // head 138 x 184 x 180 mm
constexpr double kTurns = 3.0;
constexpr double kPitch = 1.0;
}  // namespace

HelicalDemo makeHelicalDemo(int size, double photons, std::uint64_t seed,
                            const JobContext* context) {
  if (size < 16 || size > 2048)
    throw ParameterError("demo size",
                         "must be between 16 and 2048 voxels, got " + std::to_string(size));
  if (!std::isfinite(photons) || photons < 0)
    throw ParameterError("photons", "must be finite and >= 0, got " + std::to_string(photons));
  HelicalDemo demo;
  demo.voxelMm = kFieldMm / size;
  HelicalConeParams h;
  CircularConeParams& c = h.circular;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = size;
  c.detector.rows = std::max(size / 8, 4);
  c.detector.pitchUMm = c.detector.pitchVMm = 2.0 * demo.voxelMm;  // one voxel at the isocentre
  const int viewsPerTurn = std::max(90, size * 3 / 2);
  const auto views = static_cast<int>(kTurns * viewsPerTurn);
  for (int i = 0; i < views; ++i) c.anglesRad.push_back(2 * std::numbers::pi * i / viewsPerTurn);
  h.pitch = kPitch;
  h.startZMm = -0.5 * helicalFeedPerTurnMm(h) * double(views - 1) / viewsPerTurn;
  const Geometry geometry = helicalConeBeam(h);

  demo.phantom = modifiedSheppLogan3d(kPhantomScaleMm);
  const ProjectionStack clean = projectPhantom(demo.phantom, geometry, {}, context);
  demo.incidentPhotons = photons > 0 ? photons : kHelicalDemoPhotons;
  if (photons > 0) {
    // One draw: the counts, and the same draw's post-log values (bit for bit what
    // preprocess::postLogFromCounts gives of these counts).
    demo.counts = drawPoissonCounts(clean, photons, seed);
    demo.lineIntegrals = clean;
    addPoissonNoise(demo.lineIntegrals, photons, seed);
  } else {
    demo.lineIntegrals = clean;
    demo.counts = ProjectionStack(geometry);
    for (std::int64_t i = 0; i < clean.pixelCount(); ++i)
      demo.counts.data()[i] =
          static_cast<float>(demo.incidentPhotons * std::exp(-double(clean.data()[i])));
  }
  std::ostringstream text;
  text << "helical cone beam, " << kTurns << " turns at pitch " << kPitch << ", " << views
       << " views of " << c.detector.cols << " x " << c.detector.rows;
  if (photons > 0) text << ", Poisson noise at " << photons << " photons/pixel";
  demo.description = text.str();
  return demo;
}

}  // namespace tomowb::phantom
