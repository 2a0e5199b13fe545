// DemoData: the built-in demo data sets, generated on the fly from analytic phantoms (no file is
// needed): a cone-beam scan of the modified 3-D Shepp-Logan phantom, one of the CNR phantom with
// Poisson noise, and an electron-tomography tilt series of a cell specimen
// (phantom::etSpecimenPhantom: slab, cells, gold beads, an L marker) over -60..+60 degrees in
// 2 degree steps (reference/sirt-et.md section 6), each with the volume grid that suits it.
#pragma once

#include <QString>
#include <memory>

#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::gui {

enum class DemoKind { SheppLogan, Cnr, ElectronTomography, Helical };

// "shepp-logan", "cnr", "et", "helical" (the command line's names), and back (ParameterError
// listing them).
QString demoKindName(DemoKind kind);
DemoKind demoKindFromName(const QString& name);

struct DemoDataset {
  QString name;  // "Demo: Shepp-Logan cone beam (360 views of 256 x 300)"
  std::shared_ptr<ProjectionStack> projections;
  std::shared_ptr<phantom::Phantom> phantom;
  std::shared_ptr<phantom::CnrPhantom> cnrPhantom;  // for DemoKind::Cnr
  // DemoKind::Helical: the photon counts behind the noisy projections, PWLS's statistical
  // weights (recon/phantom/HelicalDemo.h); null for the other demos.
  std::shared_ptr<ProjectionStack> counts;
  fdk::VolumeGrid suggestedGrid;
};

// The ET demo's pixel: 4 nm, so the default 256-pixel detector spans about 1 um.
inline constexpr double kEtDemoPixelMm = 4e-6;

// `size`: volume edge in voxels (the detector is sized to match). For the ET demo the detector is
// 2 size columns by size / 2 rows (256 x 64 for the default 128), 61 views, and the grid is the
// tomogram (iterative::tomogramGrid) a quarter of the detector width thick. Runs the analytic
// projector, so call it off the GUI thread for sizes above ~64; honours the cancel token.
DemoDataset makeDemo(DemoKind kind, int size, JobContext& context);

}  // namespace tomowb::gui
