// ProjectionView: see the header.
#include "render/ProjectionView.h"

#include <QKeyEvent>
#include <QWheelEvent>
#include <algorithm>

#include "render/VolumeImage.h"

namespace tomowb::render {

ProjectionView::ProjectionView(Content content, QWidget* parent)
    : SliceView(Axis::Axial, parent), content_(content) {
  setRowsDown(true);
  setShowSliceInfo(false);
  setCrosshairVisible(false);
}

std::int64_t ProjectionView::indexCount() const noexcept {
  if (!projections_) return 0;
  return content_ == Content::Projection ? projections_->viewCount() : projections_->rows();
}

void ProjectionView::setProjections(std::shared_ptr<const ProjectionStack> projections) {
  const bool hadData = projections_ != nullptr;
  projections_ = std::move(projections);
  if (!projections_ || projections_->empty()) {
    projections_.reset();
    setVolume(nullptr);
    return;
  }
  if (index_ >= indexCount()) index_ = 0;
  if (!hadData && content_ == Content::Sinogram) index_ = projections_->rows() / 2;
  showCurrent(false);
}

void ProjectionView::setIndex(std::int64_t index) {
  if (!projections_) return;
  index = std::clamp<std::int64_t>(index, 0, indexCount() - 1);
  if (index == index_) return;
  index_ = index;
  showCurrent(true);
  emit indexChanged(index_);
}

void ProjectionView::setAutoWindowLevel(bool automatic) {
  autoWindowLevel_ = automatic;
  if (automatic && volume()) resetWindowLevel();
}

void ProjectionView::showCurrent(bool keepViewState) {
  std::shared_ptr<Volume> image = content_ == Content::Projection
                                      ? projectionImage(*projections_, index_)
                                      : sinogramImage(*projections_, index_);
  setVolume(image, keepViewState);
  if (autoWindowLevel_ && keepViewState) resetWindowLevel();
  setTitle(content_ == Content::Projection
               ? QStringLiteral("Projection %1/%2").arg(index_).arg(indexCount() - 1)
               : QStringLiteral("Sinogram, detector row %1/%2").arg(index_).arg(indexCount() - 1));
}

void ProjectionView::wheelEvent(QWheelEvent* event) {
  const int delta = event->angleDelta().y();
  if ((event->modifiers() & Qt::ControlModifier) || delta == 0) return SliceView::wheelEvent(event);
  setIndex(index_ + (delta > 0 ? 1 : -1));
  event->accept();
}

void ProjectionView::keyPressEvent(QKeyEvent* event) {
  switch (event->key()) {
    case Qt::Key_Left:
    case Qt::Key_Down:
    case Qt::Key_B:
      setIndex(index_ - 1);
      break;
    case Qt::Key_Right:
    case Qt::Key_Up:
    case Qt::Key_F:
      setIndex(index_ + 1);
      break;
    case Qt::Key_PageDown:
      setIndex(index_ - 10);
      break;
    case Qt::Key_PageUp:
      setIndex(index_ + 10);
      break;
    default:
      return SliceView::keyPressEvent(event);
  }
  event->accept();
}

}  // namespace tomowb::render
