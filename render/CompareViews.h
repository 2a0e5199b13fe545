// CompareViews: the linked slice views of the compare view (issue #9; the "Compare" layout of
// reference/ux-and-robustness.md 1.4): A | B | A - B side by side, or one view that flickers
// between A and B or splits them at a draggable divider (swipe), with A - B beside it. Every view
// shows the same orientation and slice; the crosshair, zoom and pan follow from any view to the
// others. A and B (and the flicker / swipe view) share one window/level; A - B has its own window,
// always centred on 0, in a blue-white-red map (white = no difference). A line over the slices
// (the profile) is drawn in every view.
#pragma once

#include <Eigen/Core>
#include <QImage>
#include <QTimer>
#include <QWidget>
#include <array>
#include <memory>
#include <optional>

#include "recon/core/Volume.h"
#include "render/CompareSliceView.h"

class QHBoxLayout;

namespace tomowb::render {

class CompareViews : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { SideBySide, Flicker, Swipe };
  enum class Which { A, B, Difference, Single };
  static constexpr int kDefaultFlickerIntervalMs = 500;  // 1 Hz: A and B half a second each

  explicit CompareViews(QWidget* parent = nullptr);

  // A, B and A - B (difference may be null: shapes differ, or not computed yet). keepViewState:
  // slice, zoom and window stay (a new difference for the same pair).
  void setVolumes(std::shared_ptr<const Volume> a, std::shared_ptr<const Volume> b,
                  std::shared_ptr<const Volume> difference, const QString& aTitle,
                  const QString& bTitle);
  void setDifference(std::shared_ptr<const Volume> difference, double halfWindow);
  const std::shared_ptr<const Volume>& volumeA() const { return a_; }
  const std::shared_ptr<const Volume>& volumeB() const { return b_; }

  // Rebuilds the views in another orientation (slice through the crosshair).
  void setAxis(SliceView::Axis axis);
  SliceView::Axis axis() const noexcept { return axis_; }

  void setMode(Mode mode);
  Mode mode() const noexcept { return mode_; }
  void setFlickerIntervalMs(int ms);
  int flickerIntervalMs() const { return flicker_.interval(); }
  bool flickerShowsB() const noexcept { return flickerShowsB_; }
  // Shows the other of A and B in the flicker view now (what the timer does).
  void flipFlicker();

  // The difference view's window is +-halfWindow around 0.
  void setDifferenceHalfWindow(double halfWindow);
  double differenceHalfWindow() const noexcept { return halfWindow_; }

  // The line drawn in every view (world mm; its coordinate along the axis follows the slice).
  void setProfileLine(const std::optional<CompareSliceView::Line>& line);
  void setLineTool(bool on);

  CompareSliceView* view(Which which) const;
  int slice() const;
  void setSlice(int index);
  Eigen::Vector3d crosshair() const noexcept { return crosshair_; }
  void setCrosshair(const Eigen::Vector3d& worldMm);
  WindowLevel windowLevel() const;
  void setWindowLevel(const WindowLevel& wl);
  // Own contrast per pane (issue #21, point 1; tomviz #538): A and B each keep their own window
  // (B's 0.1-99.9 % window, and a drag in one pane leaves the other), and the flicker view uses
  // the window of the volume it shows. Off: one window, A's. A new pair turns it on when the two
  // volumes' windows differ strongly (contrastsDiffer), off otherwise.
  void setOwnContrast(bool on);
  bool ownContrast() const noexcept { return ownContrast_; }
  WindowLevel windowLevelB() const;
  // Widths more than 3 times apart, or centres more than half the wider width apart.
  static bool contrastsDiffer(const WindowLevel& a, const WindowLevel& b);

  // One view as an image (device pixels), rendered now; it must be visible.
  QImage grab(Which which);

 signals:
  void crosshairMoved(Eigen::Vector3d worldMm);
  void sliceChanged(int index);
  // The mouse is over `worldMm` in one of the views.
  void cursorMoved(Eigen::Vector3d worldMm);
  void differenceHalfWindowChanged(double halfWindow);
  void lineDrawn(Eigen::Vector3d from, Eigen::Vector3d to);
  void flickered(bool showingB);
  void ownContrastChanged(bool on);

 private:
  void buildViews();
  void connectView(CompareSliceView* view);
  void showVolumes(bool keepViewState);
  void applyMode();
  void followCamera(CompareSliceView* source);
  void followSlice(CompareSliceView* source);
  void followWindow(CompareSliceView* source);
  void updateTitles();

  std::array<CompareSliceView*, 4> views_{};  // by Which
  QHBoxLayout* row_ = nullptr;
  SliceView::Axis axis_ = SliceView::Axis::Axial;
  Mode mode_ = Mode::SideBySide;
  std::shared_ptr<const Volume> a_, b_, difference_;
  QString aTitle_, bTitle_;
  double halfWindow_ = 1e-6;
  Eigen::Vector3d crosshair_ = Eigen::Vector3d::Zero();
  std::optional<CompareSliceView::Line> line_;
  bool lineTool_ = false;
  QTimer flicker_;
  bool flickerShowsB_ = false;
  bool syncing_ = false;
  bool ownContrast_ = false;
  WindowLevel windowB_;  // B's window while each pane has its own
};

}  // namespace tomowb::render
