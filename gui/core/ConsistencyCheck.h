// ConsistencyCheck: does the edited geometry explain the measured projections? For one view it
// predicts the projection with the edited geometry -- exactly from the analytic phantom when the
// data came from one (the demo), else by forward projecting a volume (a reconstruction) with
// recon/projector/ForwardProjectorCpu -- and compares it with the measured view: difference image
// and relative RMS difference. A wrong detector offset, pitch or rotation sense shows as a
// structured difference. The geometry editor's consistency overlay (gui/ConsistencyView) runs
// this on a worker thread; no widgets here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::gui {

struct ConsistencyResult {
  std::int64_t view = 0;
  std::int64_t cols = 0, rows = 0;
  std::vector<float> measured;    // [row][col]
  std::vector<float> predicted;   // with the edited geometry
  std::vector<float> difference;  // predicted - measured
  // sqrt(sum (predicted - measured)^2 / sum measured^2) over the view.
  double relativeRms = 0;
  std::string predictedFrom;  // "analytic phantom 'Shepp-Logan'" or "forward projection"
};

// `phantom` wins over `volume` when both are given; one of them must be. Throws ParameterError
// if the edited geometry's detector or view count differs from the measured stack's, for a bad
// view index or when there is nothing to predict from; Cancelled from the context.
ConsistencyResult computeConsistency(const ProjectionStack& measured, const Geometry& edited,
                                     std::int64_t view, const phantom::Phantom* phantom,
                                     const Volume* volume, const JobContext* context = nullptr);

}  // namespace tomowb::gui
