// DemoData: the built-in demo data sets, generated on the fly from analytic phantoms (no file is
// needed): a cone-beam scan of the modified 3-D Shepp-Logan phantom, and one of the CNR phantom
// with Poisson noise, each with the volume grid that suits it.
#pragma once

#include <QString>
#include <memory>

#include "recon/core/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::gui {

enum class DemoKind { SheppLogan, Cnr };

struct DemoDataset {
  QString name;  // "Demo: Shepp-Logan cone beam (360 views of 256 x 300)"
  std::shared_ptr<ProjectionStack> projections;
  std::shared_ptr<phantom::Phantom> phantom;
  std::shared_ptr<phantom::CnrPhantom> cnrPhantom;  // for DemoKind::Cnr
  fdk::VolumeGrid suggestedGrid;
};

// `size`: volume edge in voxels (the detector is sized to match). Runs the analytic projector,
// so call it off the GUI thread for sizes above ~64; honours the context's cancel token.
DemoDataset makeDemo(DemoKind kind, int size, JobContext& context);

}  // namespace tomowb::gui
