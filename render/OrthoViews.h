// OrthoViews: the three linked slice views (axial, coronal, sagittal) and an optional 3-D view in
// the layouts of reference/ux-and-robustness.md 1.4: Four-Up (Slicer's: axial | 3-D over
// coronal | sagittal), three slices in a row, and One-up (one view maximised; a left
// double-click on any view maximises it, a second restores the previous layout). The views share
// one crosshair point: a click or Shift+move in one view moves it in all of them and brings the
// other views to the slices through it; scrolling one view moves the crosshair plane shown in the
// others. Window/level and colour map are shared too. ROIs and rulers live in the view of their
// axis; rois() and rulers() gather them. One profile line at most: drawing one in a view removes
// the others'. The drawing tool is shared: when a view goes back to window/level after one
// shape, all do.
#pragma once

#include <Eigen/Core>
#include <QImage>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "recon/core/Volume.h"
#include "render/SliceView.h"
#include "render/WindowLevel.h"

class QGridLayout;

namespace tomowb::render {

class VolumeView3D;

class OrthoViews : public QWidget {
  Q_OBJECT

 public:
  // Live previews reach the three slice views this far apart, one render per frame.
  static constexpr int kPreviewStaggerMs = 30;

  enum class Layout { FourUp, ThreeSlices, OneUp };

  explicit OrthoViews(QWidget* parent = nullptr);

  SliceView* view(SliceView::Axis axis) const { return views_[static_cast<int>(axis)]; }
  // Axial, coronal, sagittal.
  std::array<SliceView*, 3> sliceViews() const {
    return {view(SliceView::Axis::Axial), view(SliceView::Axis::Coronal),
            view(SliceView::Axis::Sagittal)};
  }
  // The 3-D view of the Four-Up layout (reparented into this widget), or nullptr to have none.
  void setThreeDView(VolumeView3D* view);
  VolumeView3D* threeDView() const noexcept { return threeD_; }

  // keepViewState = true for live previews (see SliceView::setVolume).
  // `update3D` false leaves the 3-D view as it is (live previews: a software-rendered 3-D frame
  // costs far more than the slices, and a partial volume says little in 3-D).
  void setVolume(std::shared_ptr<const Volume> volume, bool keepViewState = false,
                 bool update3D = true);
  const std::shared_ptr<const Volume>& volume() const noexcept { return volume_; }
  // Statistics of the current volume (computed on first use after each new volume).
  const VolumeStatistics& statistics();

  WindowLevel windowLevel() const;
  void setWindowLevel(double window, double level);
  ColourMap colourMap() const noexcept { return colourMap_; }
  void setColourMap(ColourMap map);
  // Lengths, values and view names of the three slice views (SliceView::setDisplayUnits).
  void setDisplayUnits(const DisplayUnits& units);

  Eigen::Vector3d crosshair() const noexcept { return crosshair_; }
  // Moves the crosshair and brings every slice view to the slice through it.
  void setCrosshair(const Eigen::Vector3d& worldMm);

  void setViewLayout(Layout layout, QWidget* maximised = nullptr);
  Layout viewLayout() const noexcept { return layout_; }
  QWidget* maximisedView() const noexcept { return maximised_; }
  void toggleMaximised(QWidget* view);

  void setRoiTool(SliceView::RoiTool tool);
  SliceView::RoiTool roiTool() const noexcept { return roiTool_; }
  void setNewRoiRole(SliceRoi::Role role);
  std::vector<SliceRoi> rois() const;
  void setRois(const std::vector<SliceRoi>& rois);
  std::vector<SliceLine> rulers() const;
  // The profile line of whichever view has one.
  std::optional<SliceLine> profileLine() const;
  // Deletes the ROI, ruler or profile line `id` from the view that has it.
  bool deleteMeasurement(int id);
  // Deletes every ROI, ruler and profile line of the three views (ViewArea::clearRois).
  void clearMeasurements();

  // What the layout shows now, as one image (device pixels), for screenshots.
  QImage grabLayout();

 signals:
  void windowLevelChanged(double window, double level);
  void colourMapChanged(tomowb::render::ColourMap map);
  void crosshairMoved(Eigen::Vector3d worldMm);
  void cursorMoved(Eigen::Vector3d worldMm, float value);
  // After setVolume (a live preview's slice views follow over the next few event-loop turns).
  void volumeChanged();
  void roisChanged();
  void rulersChanged();
  void profileLineChanged();
  void roiToolChanged(tomowb::render::SliceView::RoiTool tool);
  void layoutChanged(tomowb::render::OrthoViews::Layout layout);

 private:
  void onViewCrosshairMoved(SliceView* source, const Eigen::Vector3d& worldMm);
  void onViewSliceChanged(SliceView* source);
  void onViewWindowLevelChanged(SliceView* source, double window, double level);
  void applyLayout();
  std::vector<QWidget*> allViews() const;

  std::array<SliceView*, 3> views_{};  // indexed by axis: sagittal (x), coronal (y), axial (z)
  VolumeView3D* threeD_ = nullptr;
  QGridLayout* grid_ = nullptr;
  std::shared_ptr<const Volume> volume_;
  std::optional<VolumeStatistics> statistics_;
  ColourMap colourMap_ = ColourMap::Grey;
  Eigen::Vector3d crosshair_ = Eigen::Vector3d::Zero();
  Layout layout_ = Layout::FourUp;
  Layout restoreLayout_ = Layout::FourUp;
  QWidget* maximised_ = nullptr;
  bool syncing_ = false;  // guards the fan-out of one view's change to the others
  SliceView::RoiTool roiTool_ = SliceView::RoiTool::None;
  bool syncingTools_ = false;  // guards the fan-out of the drawing tool and the profile line
  bool pending3D_ = false;     // a 3-D update is queued (see setVolume)
  bool pending3DKeep_ = false;
  std::uint64_t previewGeneration_ = 0;
};

}  // namespace tomowb::render
