#include "gui/ConsistencyView.h"

#include <QMetaObject>
#include <QPainter>
#include <algorithm>
#include <cmath>
#include <vector>

#include "gui/core/Workspace.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

namespace {

// The value at `fraction` of the sorted sample (a robust maximum for the colour ranges).
float percentile(std::vector<float> values, double fraction) {
  if (values.empty()) return 0.0f;
  const auto k = static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// Grey image, window [lo, hi]; row 0 at the bottom (rows grow upwards, docs/geometry.md).
QImage greyImage(const std::vector<float>& v, std::int64_t cols, std::int64_t rows, float lo,
                 float hi) {
  QImage image(int(cols), int(rows), QImage::Format_RGB32);
  const float scale = hi > lo ? 255.0f / (hi - lo) : 0.0f;
  for (std::int64_t r = 0; r < rows; ++r) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(int(rows - 1 - r)));
    for (std::int64_t c = 0; c < cols; ++c) {
      const int g = std::clamp(int((v[std::size_t(r * cols + c)] - lo) * scale), 0, 255);
      line[c] = qRgb(g, g, g);
    }
  }
  return image;
}

// Diverging blue - white - red over [-range, range].
QImage divergingImage(const std::vector<float>& v, std::int64_t cols, std::int64_t rows,
                      float range) {
  QImage image(int(cols), int(rows), QImage::Format_RGB32);
  for (std::int64_t r = 0; r < rows; ++r) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(int(rows - 1 - r)));
    for (std::int64_t c = 0; c < cols; ++c) {
      const float t =
          range > 0 ? std::clamp(v[std::size_t(r * cols + c)] / range, -1.0f, 1.0f) : 0.0f;
      const int fade = int(255 * (1.0f - std::abs(t)));
      line[c] = t >= 0 ? qRgb(255, fade, fade) : qRgb(fade, fade, 255);
    }
  }
  return image;
}

}  // namespace

struct ConsistencyView::Request {
  std::uint64_t generation = 0;
  std::shared_ptr<const ProjectionStack> measured;
  Geometry geometry;
  std::int64_t view = 0;
  std::shared_ptr<const phantom::Phantom> phantom;
  std::shared_ptr<const Volume> volume;
  std::shared_ptr<CancelToken> cancel;
};

ConsistencyView::ConsistencyView(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace) {
  setMinimumSize(240, 120);
  summary_ = tr("No projections loaded.");
  worker_ = std::thread([this] { workerLoop(); });
  connect(&workspace_, &Workspace::projectionsChanged, this, [this] {
    edited_.reset();
    refresh();
  });
  connect(&workspace_, &Workspace::geometryChanged, this, &ConsistencyView::refresh);
  connect(&workspace_, &Workspace::phantomChanged, this, &ConsistencyView::refresh);
  connect(&workspace_, &Workspace::currentVolumeChanged, this, [this] {
    if (!workspace_.phantom()) refresh();
  });
}

ConsistencyView::~ConsistencyView() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    pending_.reset();
    if (running_) running_->request();
  }
  wake_.notify_all();
  worker_.join();
}

void ConsistencyView::setEditedGeometry(const Geometry& geometry) {
  edited_ = geometry;
  refresh();
}

void ConsistencyView::clearEditedGeometry() {
  edited_.reset();
  refresh();
}

void ConsistencyView::setSelectedView(int view) {
  if (view == view_) return;
  view_ = view;
  refresh();
}

void ConsistencyView::refresh() {
  {
    // Whatever is in flight was asked of the previous state: its result must not arrive now.
    std::lock_guard lock(mutex_);
    ++generation_;
    pending_.reset();
    if (running_) running_->request();
  }
  auto request = std::make_unique<Request>();
  request->measured = workspace_.projections();
  const Geometry* geometry = edited_ ? &*edited_ : workspace_.geometry();
  if (!request->measured || !geometry) {
    result_.reset();
    summary_ = tr("No projections loaded.");
    update();
    return;
  }
  // Only what belongs to these projections predicts them: the phantom they were made from, or a
  // volume reconstructed from them (or loaded by the user). Another data set's phantom or result
  // would report a mismatch that says nothing about this geometry.
  const NamedVolume* current = workspace_.currentVolume();
  const bool volumeUsable = current != nullptr && workspace_.volumeFromCurrentData(*current);
  if (!workspace_.phantom() && !volumeUsable) {
    result_.reset();
    summary_ =
        tr("Nothing to predict the view from: reconstruct these projections first (or "
           "open the demo, whose analytic phantom predicts its own views).");
    if (current != nullptr)
      summary_ +=
          tr(" The volume shown, %1, was reconstructed from other data.").arg(current->name);
    update();
    return;
  }
  request->geometry = *geometry;
  request->view = view_;
  request->phantom = workspace_.phantom();
  if (volumeUsable) request->volume = current->volume;
  request->cancel = std::make_shared<CancelToken>();
  {
    std::lock_guard lock(mutex_);
    request->generation = ++generation_;
    if (running_) running_->request();  // stale: the user kept typing
    pending_ = std::move(request);
  }
  wake_.notify_one();
  summary_ = tr("Comparing view %1…").arg(view_);
  update();
}

void ConsistencyView::workerLoop() {
  for (;;) {
    std::unique_ptr<Request> request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || pending_; });
      if (stopping_) return;
      request = std::move(pending_);
      running_ = request->cancel;
    }
    std::optional<ConsistencyResult> result;
    QString error;
    try {
      const JobContext context(*request->cancel);
      result = computeConsistency(*request->measured, request->geometry, request->view,
                                  request->phantom.get(), request->volume.get(), &context);
    } catch (const Cancelled&) {
      continue;  // a newer request is pending
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
    }
    {
      std::lock_guard lock(mutex_);
      running_.reset();
    }
    const std::uint64_t generation = request->generation;
    // Queued to the GUI thread; dropped by Qt if the view is gone (it is the context object).
    QMetaObject::invokeMethod(
        this,
        [this, generation, result = std::move(result), error]() mutable {
          deliver(generation, std::move(result), error);
        },
        Qt::QueuedConnection);
  }
}

void ConsistencyView::deliver(std::uint64_t generation, std::optional<ConsistencyResult> result,
                              const QString& error) {
  {
    std::lock_guard lock(mutex_);
    if (generation != generation_) return;  // a newer request is on its way
  }
  if (!result) {
    result_.reset();
    summary_ = tr("Cannot compare: %1").arg(error);
    update();
    emit failed(error);
    return;
  }
  result_ = std::move(result);
  const ConsistencyResult& r = *result_;
  const auto [lo, hi] = std::minmax_element(r.measured.begin(), r.measured.end());
  measuredImage_ = greyImage(r.measured, r.cols, r.rows, *lo, *hi);
  predictedImage_ = greyImage(r.predicted, r.cols, r.rows, *lo, *hi);
  std::vector<float> magnitude(r.difference.size());
  std::transform(r.difference.begin(), r.difference.end(), magnitude.begin(),
                 [](float d) { return std::abs(d); });
  float range = percentile(magnitude, 0.995);
  if (!(range > 0)) range = std::max(1e-6f, 0.01f * (*hi - *lo));
  differenceImage_ = divergingImage(r.difference, r.cols, r.rows, range);
  summary_ = tr("View %1: relative RMS difference %2 %  (predicted from the %3; difference "
                "range ±%4)")
                 .arg(r.view)
                 .arg(100.0 * r.relativeRms, 0, 'f', 2)
                 .arg(QString::fromStdString(r.predictedFrom))
                 .arg(double(range), 0, 'g', 3);
  update();
  emit resultReady(r.relativeRms);
}

void ConsistencyView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().window());
  const QFontMetrics fm = p.fontMetrics();
  const int titleHeight = fm.height() + 4;
  const QRect summaryRect(4, height() - fm.height() - 4, width() - 8, fm.height() + 2);
  p.setPen(palette().text().color());
  setToolTip(summary_);
  if (!result_) {
    // Only the message: word-wrapped over the whole widget, never cut.
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
               summary_);
    return;
  }
  p.drawText(summaryRect, Qt::AlignLeft | Qt::AlignVCenter,
             fm.elidedText(summary_, Qt::ElideRight, summaryRect.width()));
  const int gap = 6;
  const int panelWidth = (width() - 4 * gap) / 3;
  const int panelHeight = height() - titleHeight - summaryRect.height() - 3 * gap;
  const QString titles[3] = {tr("measured"), tr("predicted (edited geometry)"),
                             tr("predicted − measured")};
  const QImage* images[3] = {&measuredImage_, &predictedImage_, &differenceImage_};
  for (int k = 0; k < 3; ++k) {
    const QRect cell(gap + k * (panelWidth + gap), gap, panelWidth, titleHeight + panelHeight);
    p.drawText(QRect(cell.left(), cell.top(), cell.width(), titleHeight), Qt::AlignCenter,
               fm.elidedText(titles[k], Qt::ElideRight, cell.width()));
    const QRect area(cell.left(), cell.top() + titleHeight, cell.width(), panelHeight);
    const QSize fitted = images[k]->size().scaled(area.size(), Qt::KeepAspectRatio);
    const QRect target(area.left() + (area.width() - fitted.width()) / 2,
                       area.top() + (area.height() - fitted.height()) / 2, fitted.width(),
                       fitted.height());
    p.drawImage(target, *images[k]);
    p.setPen(palette().mid().color());
    p.drawRect(target.adjusted(0, 0, -1, -1));
    p.setPen(palette().text().color());
  }
}

}  // namespace tomowb::gui
