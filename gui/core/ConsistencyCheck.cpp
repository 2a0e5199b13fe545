#include "gui/core/ConsistencyCheck.h"

#include <cmath>

#include "recon/core/Error.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/projector/ForwardProjectorCpu.h"

namespace tomowb::gui {

ConsistencyResult computeConsistency(const ProjectionStack& measured, const Geometry& edited,
                                     std::int64_t view, const phantom::Phantom* phantom,
                                     const Volume* volume, const JobContext* context) {
  if (!(edited.detector() == measured.geometry().detector()) ||
      edited.viewCount() != measured.viewCount())
    throw ParameterError("geometry", "must keep the measured data's " +
                                         std::to_string(measured.viewCount()) + " views of " +
                                         std::to_string(measured.cols()) + " x " +
                                         std::to_string(measured.rows()) + " pixels");
  if (view < 0 || view >= measured.viewCount())
    throw ParameterError("view", "must be in 0.." + std::to_string(measured.viewCount() - 1) +
                                     ", got " + std::to_string(view));
  if (!phantom && (!volume || volume->empty()))
    throw ParameterError("consistency", "needs the phantom or a volume to predict the view from");

  // Only the selected view: a one-view geometry keeps the work and memory to one projection.
  const Geometry oneView(edited.beam(), edited.detector(), {edited.view(view)});
  ConsistencyResult r;
  r.view = view;
  r.cols = measured.cols();
  r.rows = measured.rows();
  const auto m = measured.viewPixels(view);
  r.measured.assign(m.begin(), m.end());
  r.predicted.resize(r.measured.size());
  if (phantom) {
    const ProjectionStack p = phantom::projectPhantom(*phantom, oneView, {}, context);
    const auto pixels = p.viewPixels(0);
    r.predicted.assign(pixels.begin(), pixels.end());
    r.predictedFrom = "analytic phantom '" + phantom->name() + "'";
  } else {
    projector::forwardProjectView(*volume, oneView, 0, r.predicted, context);
    r.predictedFrom = "forward projection of the current volume";
  }
  r.difference.resize(r.measured.size());
  double num = 0, den = 0;
  for (std::size_t k = 0; k < r.measured.size(); ++k) {
    r.difference[k] = r.predicted[k] - r.measured[k];
    num += double(r.difference[k]) * double(r.difference[k]);
    den += double(r.measured[k]) * double(r.measured[k]);
  }
  r.relativeRms = den > 0 ? std::sqrt(num / den) : (num > 0 ? INFINITY : 0.0);
  return r;
}

}  // namespace tomowb::gui
