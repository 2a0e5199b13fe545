// DemoData: see the header. The Shepp-Logan scan matches `tomowb-cli demo` (SOD 500 mm, SDD 1000
// mm, magnification 2, a 204.8 mm field); the CNR scan uses the same geometry on the CNR phantom
// with Poisson noise, so the low-contrast inserts have a measurable contrast-to-noise ratio. The ET
// demo is noise-free: its residual falls steadily, which is what a first SIRT run should show.
#include "gui/core/DemoData.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/HelicalDemo.h"
#include "recon/phantom/PoissonNoise.h"

namespace tomowb::gui {

namespace {

constexpr double kFieldMm = 204.8;         // volume edge
constexpr double kPhantomScaleMm = 100.0;  // Shepp-Logan head: 138 x 184 x 180 mm
constexpr double kCnrPhotons = 5e5;        // incident photons per pixel for the CNR scan
constexpr std::uint64_t kCnrNoiseSeed = 20261123;
// The ET demo: +-60 degrees in 2 degree steps (61 views, Table 3 of seed 004), a specimen three
// quarters as thick as the tomogram, which is a quarter of the detector width thick.
constexpr double kEtMaxTiltDeg = 60.0;
constexpr double kEtTiltStepDeg = 2.0;
constexpr double kEtSpecimenShareOfThickness = 0.75;

Geometry etGeometry(int size) {
  TiltSeriesParams p;
  p.cols = 2 * static_cast<std::int64_t>(size);
  p.rows = std::max<std::int64_t>(size / 2, 1);
  p.pixelSizeMm = kEtDemoPixelMm;
  const auto views = static_cast<int>(std::lround(2 * kEtMaxTiltDeg / kEtTiltStepDeg)) + 1;
  for (int i = 0; i < views; ++i)
    p.tiltAnglesRad.push_back((-kEtMaxTiltDeg + i * kEtTiltStepDeg) * std::numbers::pi / 180.0);
  return tiltSeries(p);
}

DemoDataset makeEtDemo(int size, JobContext& context) {
  const Geometry geometry = etGeometry(size);
  const std::int64_t cols = geometry.detector().cols, rows = geometry.detector().rows;
  const std::int64_t thickness = std::max<std::int64_t>(cols / 4, 1);
  DemoDataset demo;
  demo.phantom = std::make_shared<phantom::Phantom>(phantom::etSpecimenPhantom(
      static_cast<double>(cols) * kEtDemoPixelMm,
      kEtSpecimenShareOfThickness * static_cast<double>(thickness) * kEtDemoPixelMm,
      static_cast<double>(rows) * kEtDemoPixelMm));
  demo.suggestedGrid = iterative::tomogramGrid(geometry, thickness);
  demo.name =
      QStringLiteral("Demo: ET tilt series of a cell specimen (%1 views, %2..%3 deg, %4 x %5)")
          .arg(geometry.viewCount())
          .arg(-kEtMaxTiltDeg)
          .arg(kEtMaxTiltDeg)
          .arg(cols)
          .arg(rows);
  demo.projections = std::make_shared<ProjectionStack>(
      phantom::projectPhantom(*demo.phantom, geometry, {}, &context));
  return demo;
}

// The recipe `tomowb-cli demo --scan helical` uses; the grid is the slab every line of which the
// helix measures, size x size in-plane.
DemoDataset makeHelicalCtDemo(int size, JobContext& context) {
  phantom::HelicalDemo helical = phantom::makeHelicalDemo(size, phantom::kHelicalDemoPhotons,
                                                          phantom::kHelicalDemoSeed, &context);
  DemoDataset demo;
  demo.name =
      QStringLiteral("Demo: Shepp-Logan, %1").arg(QString::fromStdString(helical.description));
  const fdk::VolumeGrid slab =
      fdk::fieldOfViewGrid(helical.lineIntegrals.geometry(), helical.voxelMm);
  demo.suggestedGrid = fdk::VolumeGrid::centred({size, size, slab.shape.nz},
                                                Eigen::Vector3d::Constant(helical.voxelMm));
  demo.suggestedGrid.originMm.z() = slab.originMm.z();
  demo.phantom = std::make_shared<phantom::Phantom>(std::move(helical.phantom));
  demo.projections = std::make_shared<ProjectionStack>(std::move(helical.lineIntegrals));
  demo.counts = std::make_shared<ProjectionStack>(std::move(helical.counts));
  return demo;
}

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

QString demoKindName(DemoKind kind) {
  switch (kind) {
    case DemoKind::SheppLogan:
      return QStringLiteral("shepp-logan");
    case DemoKind::Cnr:
      return QStringLiteral("cnr");
    case DemoKind::ElectronTomography:
      return QStringLiteral("et");
    case DemoKind::Helical:
      return QStringLiteral("helical");
  }
  return {};
}

DemoKind demoKindFromName(const QString& name) {
  for (const DemoKind kind :
       {DemoKind::SheppLogan, DemoKind::Cnr, DemoKind::ElectronTomography, DemoKind::Helical})
    if (name.compare(demoKindName(kind), Qt::CaseInsensitive) == 0) return kind;
  throw ParameterError(
      "demo", "unknown demo '" + name.toStdString() + "'; known: shepp-logan, cnr, et, helical");
}

DemoDataset makeDemo(DemoKind kind, int size, JobContext& context) {
  if (size < 16 || size > 2048)
    throw ParameterError("demo size",
                         "must be between 16 and 2048 voxels, got " + std::to_string(size));
  if (kind == DemoKind::ElectronTomography) return makeEtDemo(size, context);
  if (kind == DemoKind::Helical) return makeHelicalCtDemo(size, context);
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
