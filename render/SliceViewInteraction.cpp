// SliceViewInteraction.cpp: SliceView's mouse, wheel and keyboard handling: window/level, pan and
// zoom drags, drawing and picking ROIs, rulers and the profile line, moving the crosshair,
// stepping slices, the cursor readout. A drawing tool goes back to window/level after one shape
// (the review's "ROI 16 by accident", reference/ux-review-2026-11.md 2a) unless Shift is held at
// the release.
#include <vtkCamera.h>
#include <vtkRenderer.h>
#include <vtkTextActor.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "render/SliceView.h"

namespace tomowb::render {

namespace {

constexpr double kClickTolerancePx = 3.0;  // a press and release closer than this is a click
constexpr double kWheelZoomStep = 1.1;     // Ctrl+wheel: per notch
constexpr double kDragZoomPerPx = 1.01;    // right-drag: per pixel upwards

}  // namespace

// --- interaction --------------------------------------------------------------------------

void SliceView::emitCursor(const QPointF& position) {
  if (!volume_) return;
  const Eigen::Vector3d world = worldAt(position);
  const float value = valueAt(world);
  updateCursorText(world, value);
  requestRender();
  emit cursorMoved(world, value);
}

void SliceView::mousePressEvent(QMouseEvent* event) {
  setFocus(Qt::MouseFocusReason);
  if (drag_ != Drag::None || !volume_) return;
  const bool shift = event->modifiers() & Qt::ShiftModifier;
  switch (event->button()) {
    case Qt::LeftButton:
      drag_ = shift ? Drag::Pan : roiTool_ != RoiTool::None ? Drag::DrawRoi : Drag::WindowLevel;
      break;
    case Qt::MiddleButton:
      drag_ = Drag::Pan;
      break;
    case Qt::RightButton:
      drag_ = Drag::Zoom;
      break;
    default:
      return;
  }
  dragButton_ = event->button();
  if (drag_ == Drag::WindowLevel) setInteractiveWidget(this);  // the linked views follow at 10 Hz
  pressPosition_ = event->position();
  dragMoved_ = false;
  pressWindowLevel_ = windowLevel_;
  pressParallelScale_ = renderer()->GetActiveCamera()->GetParallelScale();
  pressFocal_ = viewCentreMm();
  pressWorld_ = worldAt(pressPosition_);
  dragWorld_ = pressWorld_;
  event->accept();
}

void SliceView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF position = event->position();
  if (drag_ == Drag::None) {
    emitCursor(position);
    if ((event->modifiers() & Qt::ShiftModifier) && volume_) {
      crosshair_ = worldAt(position);
      updateCrosshair();
      requestRender();
      emit crosshairMoved(crosshair_);
    }
    return;
  }
  const QPointF delta = position - pressPosition_;
  if (std::abs(delta.x()) + std::abs(delta.y()) > kClickTolerancePx) dragMoved_ = true;
  if (!dragMoved_) return;
  switch (drag_) {
    case Drag::WindowLevel: {
      // As vtkInteractorStyleImage: a drag across the whole widget changes the window by 4x its
      // value; up raises the level.
      const double scale = std::max(std::abs(pressWindowLevel_.window), 1e-9);
      const double window =
          pressWindowLevel_.window + 4.0 * delta.x() / std::max(1, width()) * scale;
      const double level =
          pressWindowLevel_.level - 4.0 * delta.y() / std::max(1, height()) * scale;
      setWindowLevel(std::max(window, 1e-3 * scale), level);
      break;
    }
    case Drag::Pan: {
      const double wpp = 2.0 * pressParallelScale_ / std::max(1, height());
      cameraTouched_ = true;
      setupCamera(pressFocal_ - delta.x() * wpp * right_ + delta.y() * wpp * up_,
                  pressParallelScale_);
      updateRois();
      break;
    }
    case Drag::Zoom: {
      cameraTouched_ = true;
      setupCamera(pressFocal_, pressParallelScale_ * std::pow(kDragZoomPerPx, delta.y()));
      updateRois();
      break;
    }
    case Drag::DrawRoi:
      dragWorld_ = worldAt(position);
      updateRois();
      requestRender();
      break;
    case Drag::None:
      break;
  }
  emitCursor(position);
}

void SliceView::mouseReleaseEvent(QMouseEvent* event) {
  if (drag_ == Drag::None || event->button() != dragButton_) return;
  const Drag drag = drag_;
  drag_ = Drag::None;
  dragButton_ = Qt::NoButton;
  if (drag == Drag::WindowLevel) setInteractiveWidget(nullptr);
  const Eigen::Vector3d world = worldAt(event->position());
  if (!dragMoved_ && (drag == Drag::WindowLevel || drag == Drag::DrawRoi)) {
    // A click: select the ROI under it, else move the crosshair there.
    const int roi = roiAt(world);
    if (roi >= 0) {
      selectRoi(roi);
    } else {
      if (selectedRoi_ >= 0) selectRoi(-1);
      crosshair_ = world;
      updateCrosshair();
      requestRender();
      emit crosshairMoved(crosshair_);
    }
  } else if (drag == Drag::DrawRoi) {
    const bool drawn = finishRoi(world);
    if (drawn && !(event->modifiers() & Qt::ShiftModifier)) setRoiTool(RoiTool::None);
  }
  updateRois();
  requestRender();
  event->accept();
}

void SliceView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (event->modifiers() & Qt::ControlModifier)
    resetWindowLevel();
  else
    emit maximiseToggleRequested();
  event->accept();
}

void SliceView::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  event->accept();
  if (delta == 0 || !volume_) return;
  const int steps = std::max(1, std::abs(delta) / 120) * (delta > 0 ? 1 : -1);
  if (event->modifiers() & Qt::ControlModifier) {
    cameraTouched_ = true;
    setupCamera(viewCentreMm(), renderer()->GetActiveCamera()->GetParallelScale() *
                                    std::pow(kWheelZoomStep, -steps));
    updateRois();
  } else {
    stepSlice(steps);
    emitCursor(event->position());
  }
}

void SliceView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Down:
    case Qt::Key_B:
      stepSlice(-1);
      break;
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_F:
      stepSlice(+1);
      break;
    case Qt::Key_PageDown:
      stepSlice(-10);
      break;
    case Qt::Key_PageUp:
      stepSlice(+10);
      break;
    case Qt::Key_R:
      if (event->modifiers() & Qt::ControlModifier) return QOpenGLWidget::keyPressEvent(event);
      resetView();
      updateRois();
      break;
    case Qt::Key_Delete:
    case Qt::Key_Backspace:
      deleteSelectedRoi();
      break;
    case Qt::Key_Escape:
      if (drag_ == Drag::DrawRoi) {
        drag_ = Drag::None;
        updateRois();
        requestRender();
      } else if (roiTool_ != RoiTool::None) {
        setRoiTool(RoiTool::None);  // back to window/level
      } else {
        return QOpenGLWidget::keyPressEvent(event);
      }
      break;
    default:
      return QOpenGLWidget::keyPressEvent(event);  // shortcuts and parents
  }
  event->accept();
}

void SliceView::keyReleaseEvent(QKeyEvent* event) {
  QOpenGLWidget::keyReleaseEvent(event);
}

void SliceView::leaveEvent(QEvent* event) {
  cursorText_->SetInput("");
  requestRender();
  QOpenGLWidget::leaveEvent(event);
}

}  // namespace tomowb::render
