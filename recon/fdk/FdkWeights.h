// The weights FDK applies to projections before the ramp filter (Kak & Slaney ch. 3.6; see
// docs/fdk.md): the cosine weight D / |pixel - source|, the angular integration step of each
// view, and the redundancy weight that makes every line count once: 1/2 for a full turn,
// Parker's weights for a short scan, generalised to any span between pi + fan angle and a full
// turn (Silver's overscan form), Wang's weights for an offset (half-fan) detector over a full
// turn. Built once per geometry as an FdkWeightPlan.
//
// Everything comes from the geometry itself, never from how it is described: the source angle of
// each view is measured about +z from the start of the arc the views cover (found as the largest
// gap between source azimuths, so the order of the views, the rotation sense and the angle origin
// do not matter), and each column's fan angle from the actual ray through it (so the direction of
// u and v does not matter). Each view stands for one angular step: N views spread evenly over
// [0, pi + fan) cover pi + fan.
//
// A helical orbit (sources not in one plane) is weighted in Helical mode: the cosine weight and
// the angular step here, and the redundancy weight per voxel in the backprojection, normalised
// over each voxel's conjugate rays (HelicalBackprojector.h); the orbit comes from the views
// (HelicalOrbit.h), and a pitch the detector cannot cover is refused.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recon/fdk/HelicalOrbit.h"
#include "recon/geometry/Geometry.h"

namespace tomowb::fdk {

enum class RedundancyMode {
  Auto,            // choose from the geometry (below)
  FullScan,        // 1/2: every line measured twice over a full turn
  Parker,          // short scan: smooth weights over pi + 2 delta
  OffsetDetector,  // full turn with an off-centre detector: Wang's weights
  None,            // weight 1: limited-angle data or a pi parallel scan
  Helical          // helical orbit: per-voxel weights in the backprojection (HelicalBackprojector)
};
std::string_view toString(RedundancyMode mode);
RedundancyMode redundancyModeFromString(std::string_view name);

// What the detector and orbit look like from one view, for the cone-beam weights.
struct ViewFrame {
  double sourceToDetectorMm = 0;   // D: source to detector plane along the normal
  double sourceToIsocentreMm = 0;  // R: source to the isocentre's plane along the normal
  double principalCol = 0;         // pixel coordinates of the foot of the source's normal
  double principalRow = 0;
  double isocentrePitchMm = 0;  // column pitch scaled to the isocentre, |u| R / D
  // Signed distance along u from the principal point to the outer edges of the first and last
  // columns, on the detector (mm): an offset detector has them unequal in size.
  double firstEdgeMm = 0;
  double lastEdgeMm = 0;
};

class FdkWeightPlan {
 public:
  // Throws ParameterError if FDK cannot reconstruct the geometry (multi-turn circular orbit,
  // views that are not one helix, isocentre behind a source) or a short scan covers less than
  // pi + fan angle (less one angular step) or a helix leaves lines of the field of view
  // unmeasured (its pitch too large for the detector) and `allowIncomplete` is false; with it,
  // such a scan gets a warning. A helical orbit takes Auto or Helical only.
  FdkWeightPlan(const Geometry& geometry, RedundancyMode requested, bool allowIncomplete = false);

  RedundancyMode mode() const noexcept { return mode_; }
  double coverageRad() const noexcept { return coverageRad_; }
  double halfFanAngleRad() const noexcept { return halfFanRad_; }
  double parkerDeltaRad() const noexcept { return parkerDeltaRad_; }
  // Radius (mm, about z) of the cylinder every view sees whole (used for the FOV mask).
  double fieldOfViewRadiusMm() const noexcept { return fovRadiusMm_; }
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }
  // The helical orbit in Helical mode, else null.
  const HelicalOrbit* helicalOrbit() const noexcept { return helical_.get(); }
  const ViewFrame& frame(std::int64_t view) const {
    return frames_[static_cast<std::size_t>(view)];
  }
  double angularStepRad(std::int64_t view) const { return steps_[static_cast<std::size_t>(view)]; }

  // Multiplies one view's pixels ([row][col]) by cosine x redundancy x angular step / pitch, so
  // that after the ramp filter a plain sum over views (with 1/w^2 for cone beams) is FDK.
  void weightView(std::int64_t view, std::span<float> pixels) const;
  // The redundancy weight of column `col` in view `view` (rows share it).
  double redundancyWeight(std::int64_t view, double col) const;
  // Source angle of a view, measured about +z (counter-clockwise) from the start of the arc the
  // views cover, each view standing for one angular step (the first view sits half a step in).
  double arcAngleRad(std::int64_t view) const {
    return arcAngleRad_[static_cast<std::size_t>(view)];
  }
  // Fan angle of the ray through column `col` (principal row) of a view: the angle from the
  // central ray (source towards the rotation axis) to it about +z, counter-clockwise positive.
  // Zero for parallel beams.
  double fanAngleRad(std::int64_t view, double col) const;

  // Parker's weight generalised to a scan of pi + 2 delta (delta from the half fan angle up to
  // pi/2): beta is the source angle from the start of the scan and gamma the fan angle, both in
  // the same sense. The two rays (beta, gamma) and (beta + pi + 2 gamma, -gamma) are one line,
  // and their weights add up to one.
  static double parkerWeight(double betaRad, double gammaRad, double deltaRad);

  // Columns to add before the first and after the last detector column before filtering. An
  // offset detector's short side is extended to mirror its long side: the ramp filter spreads
  // the weighted data there, and voxels beyond the short edge need those values (without them
  // everything outside the doubly measured band comes out about 1.5x too bright).
  struct ColumnExtension {
    std::int64_t before = 0, after = 0;
  };
  ColumnExtension filterExtension() const noexcept { return extension_; }

  std::string summary() const;

 private:
  struct Coverage {
    double covered = 0;  // the arc the views stand for: one angular step per view
    double meanStep = 0;
    bool fullTurn = false, halfTurnParallel = false;
  };
  struct DetectorSides {
    double shortMm = 0, longMm = 0;  // nearest and farthest column edge from the principal point
    bool straddles = true;           // the principal point lies on the detector in every view
    bool offset = false;             // one side longer than the other by more than 4 pixels
  };
  bool computeFrames();
  Coverage computeAngularSteps();
  Coverage computeHelicalSteps();
  void checkHelicalCoverage(bool allowIncomplete);
  DetectorSides measureDetector();
  void chooseMode(RedundancyMode requested, const Coverage& coverage, const DetectorSides& sides,
                  bool allowIncomplete);
  void rejectMultipleTurns(double meanStep) const;

  const Geometry& geometry_;
  RedundancyMode mode_ = RedundancyMode::FullScan;
  std::vector<ViewFrame> frames_;
  std::vector<double> arcAngleRad_;  // counter-clockwise from the start of the covered arc
  std::vector<double> steps_;
  double coverageRad_ = 0;
  double halfFanRad_ = 0;
  double parkerDeltaRad_ = 0;
  double fovRadiusMm_ = 0;
  ColumnExtension extension_;
  std::vector<std::string> warnings_;
  std::shared_ptr<const HelicalOrbit> helical_;
};

}  // namespace tomowb::fdk
