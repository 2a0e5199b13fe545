// DemoData: see the header. The Shepp-Logan scan matches `tomowb-cli demo` (SOD 500 mm, SDD 1000
// mm, magnification 2, a 204.8 mm field); the CNR scan uses the same geometry on the CNR phantom
// with Poisson noise, so the low-contrast inserts have a measurable contrast-to-noise ratio.
#include "gui/core/DemoData.h"

#include <cmath>

#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/PoissonNoise.h"

namespace tomowb::gui {

namespace {

constexpr double kFieldMm = 204.8;         // volume edge
constexpr double kPhantomScaleMm = 100.0;  // Shepp-Logan head: 138 x 184 x 180 mm
constexpr double kCnrPhotons = 5e5;        // incident photons per pixel for the CNR scan
constexpr std::uint64_t kCnrNoiseSeed = 20261123;

Geometry demoGeometry(int size, int views) {
  const double voxelMm = kFieldMm / size;
  DetectorParams detector;
  detector.cols = size;
  detector.rows = static_cast<std::int64_t>(std::ceil(size * 300.0 / 256.0));
  detector.pitchUMm = detector.pitchVMm = 2.0 * voxelMm;  // one voxel at the isocentre
  CircularConeParams scan;
  scan.sourceToIsocentreMm = 500;
  scan.sourceToDetectorMm = 1000;
  scan.detector = detector;
  scan.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(scan);
}

}  // namespace

DemoDataset makeDemo(DemoKind kind, int size, JobContext& context) {
  if (size < 16 || size > 2048)
    throw ParameterError("demo size",
                         "must be between 16 and 2048 voxels, got " + std::to_string(size));
  const int views = size >= 256 ? 360 : std::max(90, size * 3 / 2);
  const Geometry geometry = demoGeometry(size, views);
  DemoDataset demo;
  demo.suggestedGrid =
      fdk::VolumeGrid::centred({size, size, size}, Eigen::Vector3d::Constant(kFieldMm / size));
  if (kind == DemoKind::SheppLogan) {
    demo.phantom =
        std::make_shared<phantom::Phantom>(phantom::modifiedSheppLogan3d(kPhantomScaleMm));
    demo.name = QStringLiteral("Demo: Shepp-Logan, cone beam (%1 views of %2 x %3)")
                    .arg(views)
                    .arg(geometry.detector().cols)
                    .arg(geometry.detector().rows);
  } else {
    demo.cnrPhantom = std::make_shared<phantom::CnrPhantom>();
    demo.phantom = std::make_shared<phantom::Phantom>(demo.cnrPhantom->phantom());
    demo.name = QStringLiteral("Demo: CNR phantom, cone beam, %1 photons/pixel (%2 views)")
                    .arg(kCnrPhotons, 0, 'g', 2)
                    .arg(views);
  }
  demo.projections = std::make_shared<ProjectionStack>(
      phantom::projectPhantom(*demo.phantom, geometry, {}, &context));
  if (kind == DemoKind::Cnr)
    phantom::addPoissonNoise(*demo.projections, kCnrPhotons, kCnrNoiseSeed);
  return demo;
}

}  // namespace tomowb::gui
