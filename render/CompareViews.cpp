// CompareViews: see the header. Linking works on the views' public API: a change the user makes in
// one view (slice, crosshair, window, camera) is copied to the others under a guard, so the copies
// do not echo back.
#include "render/CompareViews.h"

#include <QHBoxLayout>
#include <algorithm>
#include <cmath>

namespace tomowb::render {

namespace {

constexpr int kWhichCount = 4;

}  // namespace

CompareViews::CompareViews(QWidget* parent) : QWidget(parent) {
  row_ = new QHBoxLayout(this);
  row_->setContentsMargins(0, 0, 0, 0);
  row_->setSpacing(2);
  flicker_.setInterval(kDefaultFlickerIntervalMs);
  connect(&flicker_, &QTimer::timeout, this, &CompareViews::flipFlicker);
  buildViews();
  applyMode();
}

CompareSliceView* CompareViews::view(Which which) const {
  return views_[static_cast<std::size_t>(which)];
}

void CompareViews::buildViews() {
  for (CompareSliceView*& v : views_) {
    if (v != nullptr) {
      row_->removeWidget(v);
      delete v;
    }
    v = nullptr;
  }
  for (int i = 0; i < kWhichCount; ++i) {
    auto* v = new CompareSliceView(axis_, this);
    v->setObjectName(QStringList{QStringLiteral("compareViewA"), QStringLiteral("compareViewB"),
                                 QStringLiteral("compareViewDifference"),
                                 QStringLiteral("compareViewSingle")}[i]);
    views_[static_cast<std::size_t>(i)] = v;
    connectView(v);
  }
  view(Which::Difference)->useDifferenceColours();
  // Left to right: A, B (or the flicker / swipe view), then A - B.
  row_->addWidget(view(Which::A), 1);
  row_->addWidget(view(Which::Single), 1);
  row_->addWidget(view(Which::B), 1);
  row_->addWidget(view(Which::Difference), 1);
}

void CompareViews::connectView(CompareSliceView* v) {
  connect(v, &SliceView::sliceChanged, this, [this, v] { followSlice(v); });
  connect(v, &SliceView::crosshairMoved, this, [this](const Eigen::Vector3d& p) {
    setCrosshair(p);
    emit crosshairMoved(p);
  });
  connect(v, &SliceView::windowLevelChanged, this, [this, v] { followWindow(v); });
  connect(v, &SliceView::cursorMoved, this,
          [this](const Eigen::Vector3d& p, float) { emit cursorMoved(p); });
  connect(v, &CompareSliceView::cameraChangedByUser, this, [this, v] { followCamera(v); });
  connect(v, &CompareSliceView::viewResetByUser, this, [this] {
    for (CompareSliceView* other : views_) other->resetView();
  });
  connect(v, &CompareSliceView::lineDrawn, this,
          [this](const Eigen::Vector3d& from, const Eigen::Vector3d& to) {
            setProfileLine(CompareSliceView::Line{from, to});
            emit lineDrawn(from, to);
          });
}

void CompareViews::setVolumes(std::shared_ptr<const Volume> a, std::shared_ptr<const Volume> b,
                              std::shared_ptr<const Volume> difference, const QString& aTitle,
                              const QString& bTitle) {
  a_ = std::move(a);
  b_ = std::move(b);
  difference_ = std::move(difference);
  aTitle_ = aTitle;
  bTitle_ = bTitle;
  flickerShowsB_ = false;
  if (a_)
    crosshair_ =
        a_->worldPosition(0.5 * (a_->nx() - 1), 0.5 * (a_->ny() - 1), 0.5 * (a_->nz() - 1));
  showVolumes(false);
}

void CompareViews::setDifference(std::shared_ptr<const Volume> difference, double halfWindow) {
  difference_ = std::move(difference);
  const bool keep = static_cast<bool>(view(Which::Difference)->volume());
  CompareSliceView* d = view(Which::Difference);
  d->setVolume(difference_, keep);
  if (difference_) {
    if (!keep) {
      d->setSlice(view(Which::A)->slice());
      d->setCrosshair(crosshair_);
    }
    setDifferenceHalfWindow(halfWindow);
  }
  updateTitles();
  applyMode();
}

void CompareViews::showVolumes(bool keepViewState) {
  const int slice = keepViewState ? view(Which::A)->slice() : -1;
  const WindowLevel wl = windowLevel();
  const bool sameShape = a_ && b_ && a_->shape() == b_->shape();
  syncing_ = true;
  view(Which::A)->setVolume(a_, keepViewState);
  view(Which::B)->setVolume(b_, keepViewState);
  view(Which::Single)->setVolume(flickerShowsB_ ? b_ : a_, keepViewState);
  view(Which::Difference)->setVolume(sameShape ? difference_ : nullptr, keepViewState);
  syncing_ = false;
  // A new pair: each pane its own window when the two volumes' windows differ strongly (one
  // shared window left the review's B pane blown out).
  if (a_ && !keepViewState) {
    const WindowLevel bDefault =
        b_ ? render::defaultWindowLevel(computeStatistics(b_->voxels())) : WindowLevel{};
    windowB_ = bDefault;
    const bool own = b_ && contrastsDiffer(view(Which::A)->defaultWindowLevel(), bDefault);
    if (own != ownContrast_) {
      ownContrast_ = own;
      emit ownContrastChanged(own);
    }
  }
  if (a_ && ownContrast_) {
    const WindowLevel aWindow = keepViewState ? wl : view(Which::A)->windowLevel();
    syncing_ = true;
    view(Which::A)->setWindowLevel(aWindow);
    if (b_) {
      view(Which::B)->setDefaultWindowLevel(
          render::defaultWindowLevel(computeStatistics(b_->voxels())));
      view(Which::B)->setWindowLevel(windowB_);
    }
    view(Which::Single)->setWindowLevel(flickerShowsB_ && b_ ? windowB_ : aWindow);
    syncing_ = false;
  } else if (a_) {
    // One window/level for A and B: A's default (0.1-99.9 %), also what Ctrl+double-click
    // restores.
    const WindowLevel shared = keepViewState ? wl : view(Which::A)->windowLevel();
    for (Which w : {Which::A, Which::B, Which::Single}) {
      view(w)->setDefaultWindowLevel(view(Which::A)->defaultWindowLevel());
      view(w)->setWindowLevel(shared);
    }
  }
  // The slice through the crosshair (the middle slice for a new pair).
  for (CompareSliceView* v : views_) {
    if (!v->volume()) continue;
    v->setCrosshair(crosshair_);
    if (slice >= 0)
      v->setSlice(slice);
    else
      v->setSlicePositionMm(crosshair_[v->axisIndex()]);
  }
  if (difference_ && sameShape) setDifferenceHalfWindow(halfWindow_);
  view(Which::Single)->setSwipeVolume(mode_ == Mode::Swipe && sameShape ? b_ : nullptr);
  for (CompareSliceView* v : views_) v->setLine(line_);
  updateTitles();
  applyMode();
}

void CompareViews::setAxis(SliceView::Axis axis) {
  if (axis == axis_) return;
  axis_ = axis;
  const double halfWindow = halfWindow_;
  const WindowLevel wl = windowLevel();
  buildViews();
  line_.reset();  // a line drawn on another orientation means nothing here
  showVolumes(false);
  if (a_) setWindowLevel(wl);
  setDifferenceHalfWindow(halfWindow);
  setLineTool(lineTool_);
}

void CompareViews::setMode(Mode mode) {
  mode_ = mode;
  flickerShowsB_ = false;
  CompareSliceView* single = view(Which::Single);
  const bool sameShape = a_ && b_ && a_->shape() == b_->shape();
  single->setVolume(a_, true);
  if (ownContrast_ && a_) {  // the single view shows A now: A's window
    syncing_ = true;
    single->setWindowLevel(view(Which::A)->windowLevel());
    syncing_ = false;
  }
  single->setSwipeVolume(mode == Mode::Swipe && sameShape ? b_ : nullptr);
  applyMode();
}

void CompareViews::applyMode() {
  const bool side = mode_ == Mode::SideBySide;
  view(Which::A)->setVisible(side);
  view(Which::B)->setVisible(side);
  view(Which::Single)->setVisible(!side);
  view(Which::Difference)->setVisible(true);
  if (mode_ == Mode::Flicker && a_ && b_)
    flicker_.start();
  else
    flicker_.stop();
  updateTitles();
}

void CompareViews::setFlickerIntervalMs(int ms) {
  flicker_.setInterval(std::max(ms, 20));
}

void CompareViews::flipFlicker() {
  if (!a_ || !b_ || a_->shape() != b_->shape()) return;
  flickerShowsB_ = !flickerShowsB_;
  // Same grid: SliceView swaps the voxel array; slice, zoom and window stay.
  view(Which::Single)->setVolume(flickerShowsB_ ? b_ : a_, true);
  if (ownContrast_) {  // each volume in its own window
    syncing_ = true;
    view(Which::Single)->setWindowLevel(flickerShowsB_ ? windowB_ : view(Which::A)->windowLevel());
    syncing_ = false;
  }
  updateTitles();
  emit flickered(flickerShowsB_);
}

void CompareViews::updateTitles() {
  view(Which::A)->setTitle(QStringLiteral("A: ") + aTitle_);
  view(Which::B)->setTitle(QStringLiteral("B: ") + bTitle_);
  view(Which::Difference)->setTitle(difference_ ? QStringLiteral("A - B") : QString());
  CompareSliceView* single = view(Which::Single);
  if (mode_ == Mode::Swipe) {
    single->setTitle(QStringLiteral("swipe: A left, B right\nA: %1\nB: %2").arg(aTitle_, bTitle_));
  } else {
    single->setTitle(flickerShowsB_ ? QStringLiteral("B: ") + bTitle_
                                    : QStringLiteral("A: ") + aTitle_);
  }
}

void CompareViews::setDifferenceHalfWindow(double halfWindow) {
  if (!(halfWindow > 0) || !std::isfinite(halfWindow)) return;
  halfWindow_ = halfWindow;
  CompareSliceView* d = view(Which::Difference);
  const bool wasSyncing = syncing_;
  syncing_ = true;
  d->setDefaultWindowLevel({2.0 * halfWindow, 0.0});
  d->setWindowLevel(2.0 * halfWindow, 0.0);
  syncing_ = wasSyncing;
}

void CompareViews::setProfileLine(const std::optional<CompareSliceView::Line>& line) {
  line_ = line;
  for (CompareSliceView* v : views_) v->setLine(line);
}

void CompareViews::setLineTool(bool on) {
  lineTool_ = on;
  for (CompareSliceView* v : views_) v->setLineTool(on);
}

int CompareViews::slice() const {
  return view(Which::A)->volume() ? view(Which::A)->slice() : view(Which::Single)->slice();
}

void CompareViews::setSlice(int index) {
  view(Which::A)->setSlice(index);
  followSlice(view(Which::A));
}

void CompareViews::setCrosshair(const Eigen::Vector3d& worldMm) {
  crosshair_ = worldMm;
  for (CompareSliceView* v : views_) v->setCrosshair(worldMm);
}

WindowLevel CompareViews::windowLevel() const {
  return view(Which::A)->windowLevel();
}

WindowLevel CompareViews::windowLevelB() const {
  return view(Which::B)->windowLevel();
}

bool CompareViews::contrastsDiffer(const WindowLevel& a, const WindowLevel& b) {
  const double wide = std::max(a.window, b.window), narrow = std::min(a.window, b.window);
  return !(narrow > 0.0) || wide > 3.0 * narrow || std::abs(a.level - b.level) > 0.5 * wide;
}

void CompareViews::setOwnContrast(bool on) {
  if (on == ownContrast_) return;
  ownContrast_ = on;
  if (a_) {
    syncing_ = true;
    if (on && b_) {
      windowB_ = render::defaultWindowLevel(computeStatistics(b_->voxels()));
      view(Which::B)->setDefaultWindowLevel(windowB_);
      view(Which::B)->setWindowLevel(windowB_);
    } else {
      const WindowLevel shared = view(Which::A)->windowLevel();
      for (Which w : {Which::B, Which::Single}) {
        view(w)->setDefaultWindowLevel(view(Which::A)->defaultWindowLevel());
        view(w)->setWindowLevel(shared);
      }
    }
    syncing_ = false;
  }
  emit ownContrastChanged(on);
}

void CompareViews::setWindowLevel(const WindowLevel& wl) {
  view(Which::A)->setWindowLevel(wl);
  followWindow(view(Which::A));
}

void CompareViews::followSlice(CompareSliceView* source) {
  if (syncing_) return;
  syncing_ = true;
  for (CompareSliceView* v : views_)
    if (v != source) v->setSlice(source->slice());
  syncing_ = false;
  emit sliceChanged(source->slice());
}

void CompareViews::followWindow(CompareSliceView* source) {
  if (syncing_) return;
  syncing_ = true;
  if (source == view(Which::Difference)) {
    // The difference's own window, kept centred on 0 (the map's white).
    const WindowLevel wl = source->windowLevel();
    source->setWindowLevel(wl.window, 0.0);
    halfWindow_ = 0.5 * wl.window;
    syncing_ = false;
    emit differenceHalfWindowChanged(halfWindow_);
    return;
  }
  if (ownContrast_) {
    // A's window reaches the flicker view while it shows A; B's while it shows B.
    const bool isB = source == view(Which::B) ||
                     (source == view(Which::Single) && flickerShowsB_ && mode_ == Mode::Flicker);
    if (isB) windowB_ = source->windowLevel();
    const Which pane = isB ? Which::B : Which::A;
    if (view(pane) != source) view(pane)->setWindowLevel(source->windowLevel());
    const bool singleShowsB = flickerShowsB_ && mode_ == Mode::Flicker;
    if (singleShowsB == isB && view(Which::Single) != source)
      view(Which::Single)->setWindowLevel(source->windowLevel());
    syncing_ = false;
    return;
  }
  for (Which w : {Which::A, Which::B, Which::Single})
    if (view(w) != source) view(w)->setWindowLevel(source->windowLevel());
  syncing_ = false;
}

void CompareViews::followCamera(CompareSliceView* source) {
  if (syncing_) return;
  syncing_ = true;
  for (CompareSliceView* v : views_) {
    if (v == source || !v->volume()) continue;
    v->setZoomFactor(source->zoomFactor());
    Eigen::Vector3d delta = source->viewCentreMm() - v->viewCentreMm();
    delta[v->axisIndex()] = 0.0;
    if (delta.norm() > 0) v->panByMm(delta);
  }
  syncing_ = false;
}

QImage CompareViews::grab(Which which) {
  return view(which)->grabImage();
}

}  // namespace tomowb::render
