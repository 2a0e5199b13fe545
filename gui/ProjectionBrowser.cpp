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
#include <algorithm>
#include <cmath>
#include <numbers>

#include "gui/core/TiltAngles.h"
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
  tilt_ = new QLabel(this);
  tilt_->setObjectName(QStringLiteral("tiltAngleLabel"));
  tilt_->setToolTip(tr("Tilt angle of this view about the tilt axis (from the geometry)"));
  // Room for "tilt -60.0°" so the controls do not jump while scrubbing.
  tilt_->setMinimumWidth(
      tilt_->fontMetrics().horizontalAdvance(QStringLiteral("tilt -888.8\u00b0")));
  controls->addWidget(tilt_);
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
              // The sinogram's rows are one column pitch apart (render::sinogramImage).
              const double pitch = projections_ && projections_->viewCount() > 0
                                       ? projections_->geometry().view(0).u.norm()
                                       : 1.0;
              const double y = sinogram && pitch > 0 ? std::round(p.y() / pitch) : p.y();
              emit cursorInfo(std::isfinite(value)
                                  ? (sinogram ? tr("sinogram: u %1 mm, view %2   value %3")
                                              : tr("projection: u %1 mm, v %2 mm   value %3"))
                                        .arg(QString::number(p.x(), 'g', 4))
                                        .arg(QString::number(y, 'g', sinogram ? 6 : 4))
                                        .arg(QString::number(value, 'g', 5))
                                  : QString());
            });
  }
  updateControls();
}

void ProjectionBrowser::setProjections(std::shared_ptr<const ProjectionStack> projections) {
  projections_ = projections && !projections->empty() ? std::move(projections) : nullptr;
  tiltsDeg_.clear();
  if (projections_ && isTiltSeries(projections_->geometry()))
    for (const double t : fitTiltAxis(projections_->geometry()).tiltsRad)
      tiltsDeg_.push_back(t * 180.0 / std::numbers::pi);
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
  if (!tiltsDeg_.empty() && tiltsDeg_.size() == static_cast<std::size_t>(views)) {
    const auto [lo, hi] = std::minmax_element(tiltsDeg_.begin(), tiltsDeg_.end());
    info_->setText(info_->text() +
                   tr(", tilts %1\u00b0..%2\u00b0").arg(*lo, 0, 'f', 1).arg(*hi, 0, 'f', 1));
  }
  tilt_->setText(tiltText());
  tilt_->setVisible(!tiltsDeg_.empty());
}

std::optional<double> ProjectionBrowser::tiltAngleDeg(int view) const {
  if (view < 0 || static_cast<std::size_t>(view) >= tiltsDeg_.size()) return std::nullopt;
  return tiltsDeg_[static_cast<std::size_t>(view)];
}

QString ProjectionBrowser::tiltText() const {
  const std::optional<double> tilt = tiltAngleDeg(view());
  if (!tilt) return {};
  // Rounded first, and -0 made 0: a tilt of -1e-16 degrees reads "0.0", not "-0.0".
  const double shown = std::round(*tilt * 10.0) / 10.0 + 0.0;
  return tr("tilt %1%2\u00b0")
      .arg(shown > 0 ? QStringLiteral("+") : QString())
      .arg(shown, 0, 'f', 1);
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
