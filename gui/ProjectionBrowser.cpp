// ProjectionBrowser: see the header.
#include "gui/ProjectionBrowser.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>

#include "render/ProjectionView.h"

namespace tomowb::gui {

ProjectionBrowser::ProjectionBrowser(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  projection_ = new render::ProjectionView(render::ProjectionView::Content::Projection, splitter);
  sinogram_ = new render::ProjectionView(render::ProjectionView::Content::Sinogram, splitter);
  projection_->setObjectName(QStringLiteral("projectionView"));
  sinogram_->setObjectName(QStringLiteral("sinogramView"));
  splitter->addWidget(projection_);
  splitter->addWidget(sinogram_);
  layout->addWidget(splitter, 1);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("&View"), this));
  viewSlider_ = new QSlider(Qt::Horizontal, this);
  viewSlider_->setToolTip(tr("Scrub through the projections"));
  viewSpin_ = new QSpinBox(this);
  static_cast<QLabel*>(controls->itemAt(0)->widget())->setBuddy(viewSpin_);
  controls->addWidget(viewSlider_, 1);
  controls->addWidget(viewSpin_);
  auto* rowLabel = new QLabel(tr("Sinogram &row"), this);
  rowSpin_ = new QSpinBox(this);
  rowSpin_->setToolTip(tr("Detector row shown as a sinogram (views x columns)"));
  rowLabel->setBuddy(rowSpin_);
  controls->addWidget(rowLabel);
  controls->addWidget(rowSpin_);
  autoWindowLevel_ = new QCheckBox(tr("&Auto W/L"), this);
  autoWindowLevel_->setToolTip(tr("Give each projection its own 0.1-99.9 % window"));
  autoWindowLevel_->setChecked(true);
  controls->addWidget(autoWindowLevel_);
  info_ = new QLabel(this);
  controls->addWidget(info_);
  layout->addLayout(controls);

  connect(viewSlider_, &QSlider::valueChanged, this, &ProjectionBrowser::setView);
  connect(viewSpin_, &QSpinBox::valueChanged, this, &ProjectionBrowser::setView);
  connect(rowSpin_, &QSpinBox::valueChanged, this, &ProjectionBrowser::setSinogramRow);
  connect(autoWindowLevel_, &QCheckBox::toggled, this, &ProjectionBrowser::setAutoWindowLevel);
  // The wheel and arrow keys in the projection view scrub the views: keep the controls in step.
  connect(projection_, &render::ProjectionView::indexChanged, this, [this](std::int64_t view) {
    updateControls();
    emit viewChanged(static_cast<int>(view));
  });
  connect(sinogram_, &render::ProjectionView::indexChanged, this, [this] { updateControls(); });
  for (render::ProjectionView* v : {projection_, sinogram_}) {
    connect(v, &render::SliceView::cursorMoved, this,
            [this, v](const Eigen::Vector3d& p, float value) {
              const bool sinogram = v == sinogram_;
              emit cursorInfo(std::isfinite(value)
                                  ? (sinogram ? tr("sinogram: u %1 mm, view %2   value %3")
                                              : tr("projection: u %1 mm, v %2 mm   value %3"))
                                        .arg(p.x(), 0, 'f', 2)
                                        .arg(p.y(), 0, 'f', sinogram ? 0 : 2)
                                        .arg(QString::number(value, 'g', 5))
                                  : QString());
            });
  }
  updateControls();
}

void ProjectionBrowser::setProjections(std::shared_ptr<const ProjectionStack> projections) {
  projections_ = projections && !projections->empty() ? std::move(projections) : nullptr;
  projection_->setProjections(projections_);
  sinogram_->setProjections(projections_);
  updateControls();
}

void ProjectionBrowser::updateControls() {
  const bool has = projections_ != nullptr;
  for (QWidget* w : std::initializer_list<QWidget*>{viewSlider_, viewSpin_, rowSpin_})
    w->setEnabled(has);
  const QSignalBlocker b1(viewSlider_), b2(viewSpin_), b3(rowSpin_);
  const int views = has ? static_cast<int>(projections_->viewCount()) : 1;
  const int rows = has ? static_cast<int>(projections_->rows()) : 1;
  viewSlider_->setRange(0, views - 1);
  viewSpin_->setRange(0, views - 1);
  rowSpin_->setRange(0, rows - 1);
  viewSlider_->setValue(static_cast<int>(projection_->index()));
  viewSpin_->setValue(static_cast<int>(projection_->index()));
  rowSpin_->setValue(static_cast<int>(sinogram_->index()));
  info_->setText(has ? tr("%1 views, %2 x %3").arg(views).arg(projections_->cols()).arg(rows)
                     : tr("no projections"));
}

void ProjectionBrowser::setView(int view) {
  if (!projections_) return;
  projection_->setIndex(view);  // indexChanged updates the controls and emits viewChanged
  updateControls();
}

int ProjectionBrowser::view() const {
  return static_cast<int>(projection_->index());
}

void ProjectionBrowser::setSinogramRow(int row) {
  if (!projections_) return;
  sinogram_->setIndex(row);
  updateControls();
}

int ProjectionBrowser::sinogramRow() const {
  return static_cast<int>(sinogram_->index());
}

void ProjectionBrowser::setAutoWindowLevel(bool automatic) {
  if (autoWindowLevel_->isChecked() != automatic) autoWindowLevel_->setChecked(automatic);
  projection_->setAutoWindowLevel(automatic);
  sinogram_->setAutoWindowLevel(automatic);
}

}  // namespace tomowb::gui
