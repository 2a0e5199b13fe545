// OrthoViews: see the header.
#include "render/OrthoViews.h"

#include <QGridLayout>
#include <QPainter>
#include <QSignalBlocker>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "render/EventTrace.h"
#include "render/VolumeView3D.h"

namespace tomowb::render {

OrthoViews::OrthoViews(QWidget* parent) : QWidget(parent) {
  grid_ = new QGridLayout(this);
  grid_->setContentsMargins(0, 0, 0, 0);
  grid_->setSpacing(2);
  for (SliceView::Axis axis :
       {SliceView::Axis::Sagittal, SliceView::Axis::Coronal, SliceView::Axis::Axial}) {
    auto* v = new SliceView(axis, this);
    v->setObjectName(SliceView::axisName(axis).toLower() + "View");
    views_[static_cast<int>(axis)] = v;
    connect(v, &SliceView::crosshairMoved, this,
            [this, v](const Eigen::Vector3d& p) { onViewCrosshairMoved(v, p); });
    connect(v, &SliceView::sliceChanged, this, [this, v] { onViewSliceChanged(v); });
    connect(v, &SliceView::windowLevelChanged, this,
            [this, v](double w, double l) { onViewWindowLevelChanged(v, w, l); });
    connect(v, &SliceView::cursorMoved, this, &OrthoViews::cursorMoved);
    connect(v, &SliceView::roisChanged, this, &OrthoViews::roisChanged);
    connect(v, &SliceView::rulersChanged, this, &OrthoViews::rulersChanged);
    connect(v, &SliceView::roiToolChanged, this, [this](SliceView::RoiTool tool) {
      if (!syncingTools_) setRoiTool(tool);
    });
    connect(v, &SliceView::profileLineChanged, this, [this, v] {
      if (syncingTools_) return;
      if (v->profileLine()) {
        syncingTools_ = true;
        for (SliceView* other : views_)
          if (other != v) other->setProfileLine(std::nullopt);
        syncingTools_ = false;
      }
      emit profileLineChanged();
    });
    connect(v, &SliceView::maximiseToggleRequested, this, [this, v] { toggleMaximised(v); });
  }
  applyLayout();
}

void OrthoViews::setThreeDView(VolumeView3D* view) {
  if (threeD_ != nullptr) {
    grid_->removeWidget(threeD_);
    threeD_->disconnect(this);
  }
  threeD_ = view;
  if (threeD_ != nullptr) {
    threeD_->setParent(this);
    connect(threeD_, &VolumeView3D::maximiseToggleRequested, this,
            [this] { toggleMaximised(threeD_); });
    if (volume_) threeD_->setVolume(volume_);
    threeD_->setWindowLevel(windowLevel().window, windowLevel().level);
    threeD_->setColourMap(colourMap_);
    threeD_->setCrosshair(crosshair_);
  }
  if (maximised_ != nullptr && maximised_ != threeD_ &&
      std::find(views_.begin(), views_.end(), maximised_) == views_.end())
    maximised_ = nullptr;
  applyLayout();
}

std::vector<QWidget*> OrthoViews::allViews() const {
  std::vector<QWidget*> all(views_.begin(), views_.end());
  if (threeD_ != nullptr) all.push_back(threeD_);
  return all;
}

void OrthoViews::setVolume(std::shared_ptr<const Volume> volume, bool keepViewState,
                           bool update3D) {
  const render::EventTrace::Scope traced("OrthoViews::setVolume");
  const bool keep = keepViewState && volume_ != nullptr && volume != nullptr;
  volume_ = std::move(volume);
  statistics_.reset();
  std::optional<WindowLevel> defaultWl;
  if (volume_ && !keep) defaultWl = defaultWindowLevel(statistics());
  if (volume_ && !keep)
    crosshair_ = volume_->worldPosition(0.5 * (volume_->nx() - 1), 0.5 * (volume_->ny() - 1),
                                        0.5 * (volume_->nz() - 1));
  ++previewGeneration_;  // supersedes preview steps still on their way
  auto updateView = [this, keep, defaultWl](std::size_t i) {
    syncing_ = true;
    views_[i]->setVolume(volume_, keep, defaultWl);
    if (volume_ && !keep) views_[i]->setCrosshair(crosshair_);
    syncing_ = false;
  };
  if (keepViewState && volume_) {
    // A live preview: the three views take it one per event-loop turn, so each frame renders
    // one slice (about 20 ms under software OpenGL) instead of all three in one long frame.
    for (std::size_t i = 0; i < views_.size(); ++i)
      QTimer::singleShot(static_cast<int>(i) * kPreviewStaggerMs, this,
                         [this, i, updateView, generation = previewGeneration_] {
                           if (generation == previewGeneration_) updateView(i);
                         });
  } else {
    for (std::size_t i = 0; i < views_.size(); ++i) updateView(i);
  }
  if (threeD_ != nullptr && update3D) {
    // In its own event: the slices reach the screen first, and the event loop never sees the
    // slices' and the 3-D view's preparation (reduction, texture upload) as one long stall.
    pending3D_ = true;
    pending3DKeep_ = keep;
    QTimer::singleShot(0, this, [this] {
      if (!pending3D_ || threeD_ == nullptr) return;
      pending3D_ = false;
      const EventTrace::Scope traced("OrthoViews: 3-D view update");
      threeD_->setVolume(volume_, pending3DKeep_);
      threeD_->setWindowLevel(windowLevel().window, windowLevel().level);
      threeD_->setColourMap(colourMap_);
      threeD_->setCrosshair(crosshair_);
    });
  }
  if (volume_ && !keep) emit windowLevelChanged(windowLevel().window, windowLevel().level);
  emit volumeChanged();
}

void OrthoViews::setDisplayUnits(const DisplayUnits& units) {
  for (SliceView* v : views_) v->setDisplayUnits(units);
}

const VolumeStatistics& OrthoViews::statistics() {
  const render::EventTrace::Scope traced("OrthoViews::statistics");
  if (!statistics_.has_value())
    statistics_ = volume_ ? computeStatistics(volume_->voxels()) : VolumeStatistics{};
  return *statistics_;
}

WindowLevel OrthoViews::windowLevel() const {
  return views_[2]->windowLevel();
}

void OrthoViews::setWindowLevel(double window, double level) {
  // Through one view: the fan-out below reaches the others and emits once.
  views_[2]->setWindowLevel(window, level);
}

void OrthoViews::onViewWindowLevelChanged(SliceView* source, double window, double level) {
  if (syncing_) return;
  syncing_ = true;
  for (SliceView* v : views_)
    if (v != source) v->setWindowLevel(window, level);
  syncing_ = false;
  if (threeD_ != nullptr) threeD_->setWindowLevel(window, level);
  emit windowLevelChanged(window, level);
}

void OrthoViews::setColourMap(ColourMap map) {
  if (map == colourMap_) return;
  colourMap_ = map;
  for (SliceView* v : views_) v->setColourMap(map);
  if (threeD_ != nullptr) threeD_->setColourMap(map);
  emit colourMapChanged(map);
}

void OrthoViews::setCrosshair(const Eigen::Vector3d& worldMm) {
  crosshair_ = worldMm;
  syncing_ = true;
  for (SliceView* v : views_) {
    v->setSlicePositionMm(worldMm[v->axisIndex()]);
    v->setCrosshair(worldMm);
  }
  syncing_ = false;
  if (threeD_ != nullptr) threeD_->setCrosshair(worldMm);
}

void OrthoViews::onViewCrosshairMoved(SliceView* source, const Eigen::Vector3d& worldMm) {
  (void)source;
  setCrosshair(worldMm);
  emit crosshairMoved(worldMm);
}

void OrthoViews::onViewSliceChanged(SliceView* source) {
  if (syncing_) return;
  crosshair_[source->axisIndex()] = source->slicePositionMm();
  for (SliceView* v : views_) v->setCrosshair(crosshair_);
  if (threeD_ != nullptr) threeD_->setCrosshair(crosshair_);
  emit crosshairMoved(crosshair_);
}

void OrthoViews::setViewLayout(Layout layout, QWidget* maximised) {
  if (layout == Layout::OneUp) {
    if (maximised == nullptr) maximised = maximised_ != nullptr ? maximised_ : views_[2];
    if (layout_ != Layout::OneUp) restoreLayout_ = layout_;
    maximised_ = maximised;
  } else {
    maximised_ = nullptr;
  }
  layout_ = layout;
  applyLayout();
  emit layoutChanged(layout_);
}

void OrthoViews::toggleMaximised(QWidget* view) {
  if (layout_ == Layout::OneUp && maximised_ == view)
    setViewLayout(restoreLayout_);
  else
    setViewLayout(Layout::OneUp, view);
}

void OrthoViews::applyLayout() {
  for (QWidget* w : allViews()) {
    grid_->removeWidget(w);
    w->hide();
  }
  for (int i = 0; i < 3; ++i) {
    grid_->setRowStretch(i, 0);
    grid_->setColumnStretch(i, 0);
  }
  auto place = [this](QWidget* w, int row, int column) {
    if (w == nullptr) return;
    grid_->addWidget(w, row, column);
    grid_->setRowStretch(row, 1);
    grid_->setColumnStretch(column, 1);
    w->show();
  };
  SliceView* axial = view(SliceView::Axis::Axial);
  SliceView* coronal = view(SliceView::Axis::Coronal);
  SliceView* sagittal = view(SliceView::Axis::Sagittal);
  switch (layout_) {
    case Layout::FourUp:
      place(axial, 0, 0);
      place(threeD_, 0, 1);
      place(coronal, 1, 0);
      place(sagittal, 1, 1);
      break;
    case Layout::ThreeSlices:
      place(axial, 0, 0);
      place(coronal, 0, 1);
      place(sagittal, 0, 2);
      break;
    case Layout::OneUp:
      place(maximised_ != nullptr ? maximised_ : axial, 0, 0);
      break;
  }
}

void OrthoViews::setRoiTool(SliceView::RoiTool tool) {
  syncingTools_ = true;
  for (SliceView* v : views_) v->setRoiTool(tool);
  syncingTools_ = false;
  if (tool == roiTool_) return;
  roiTool_ = tool;
  emit roiToolChanged(tool);
}

std::vector<SliceLine> OrthoViews::rulers() const {
  std::vector<SliceLine> all;
  for (SliceView* v : sliceViews())
    for (const SliceLine& line : v->rulers())
      if (line.axis == v->axisIndex()) all.push_back(line);
  return all;
}

std::optional<SliceLine> OrthoViews::profileLine() const {
  for (SliceView* v : sliceViews())
    if (v->profileLine()) return v->profileLine();
  return std::nullopt;
}

bool OrthoViews::deleteMeasurement(int id) {
  for (SliceView* v : views_)
    if (v->deleteMeasurement(id)) return true;
  return false;
}

void OrthoViews::clearMeasurements() {
  for (SliceView* v : views_) v->clearMeasurements();
}

void OrthoViews::setNewRoiRole(SliceRoi::Role role) {
  for (SliceView* v : views_) v->setNewRoiRole(role);
}

std::vector<SliceRoi> OrthoViews::rois() const {
  std::vector<SliceRoi> all;
  for (SliceView* v : sliceViews()) {
    for (const SliceRoi& roi : v->rois())
      if (roi.axis == v->axisIndex()) all.push_back(roi);
  }
  return all;
}

void OrthoViews::setRois(const std::vector<SliceRoi>& rois) {
  {
    const QSignalBlocker block(this);  // one roisChanged for the whole replacement
    for (SliceView* v : views_) {
      std::vector<SliceRoi> mine;
      for (const SliceRoi& roi : rois)
        if (roi.axis == v->axisIndex()) mine.push_back(roi);
      v->setRois(std::move(mine));
    }
  }
  emit roisChanged();
}

QImage OrthoViews::grabLayout() {
  const double dpr = devicePixelRatioF();
  QImage image(QSize(static_cast<int>(std::lround(width() * dpr)),
                     static_cast<int>(std::lround(height() * dpr))),
               QImage::Format_RGB32);
  image.setDevicePixelRatio(dpr);
  image.fill(palette().color(QPalette::Window));
  QPainter painter(&image);
  for (QWidget* w : allViews()) {
    auto* gl = qobject_cast<VtkOpenGLWidget*>(w);
    if (gl == nullptr || !gl->isVisible()) continue;
    QImage part = gl->grabImage();
    part.setDevicePixelRatio(dpr);
    painter.drawImage(QPointF(gl->geometry().topLeft()), part);
  }
  painter.end();
  return image;
}

}  // namespace tomowb::render
