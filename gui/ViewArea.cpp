// ViewArea: see the header.
#include "gui/ViewArea.h"

#include <QAction>
#include <QActionGroup>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QSaveFile>
#include <QScopedValueRollback>
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/core/TiltAngles.h"
#include "render/ColourMaps.h"
#include "render/EventTrace.h"
#include "render/HistogramView.h"
#include "render/SliceView.h"
#include "render/VolumeView3D.h"

namespace tomowb::gui {

namespace {

struct LayoutEntry {
  const char* key;
  const char* title;
  render::OrthoViews::Layout layout;
};
constexpr LayoutEntry kLayouts[] = {
    {"four-up", "Four-Up", render::OrthoViews::Layout::FourUp},
    {"three-slices", "Three slices", render::OrthoViews::Layout::ThreeSlices},
    {"one-up", "One-up", render::OrthoViews::Layout::OneUp},
};

}  // namespace

ViewArea::ViewArea(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  toolBar_ = new QToolBar(tr("View tools"), this);
  toolBar_->setObjectName(QStringLiteral("viewToolBar"));
  toolBar_->setIconSize(QSize(18, 18));
  layout->addWidget(toolBar_);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  orthoViews_ = new render::OrthoViews(splitter);
  volumeView_ = new render::VolumeView3D;
  orthoViews_->setThreeDView(volumeView_);
  histogram_ = new render::HistogramView(splitter);
  histogram_->setVisible(false);
  splitter->addWidget(orthoViews_);
  splitter->addWidget(histogram_);
  splitter->setStretchFactor(0, 5);
  splitter->setStretchFactor(1, 1);
  splitter->setCollapsible(0, false);
  splitter_ = splitter;
  layout->addWidget(splitter, 1);

  QSettings settings;
  presets_ = render::loadWindowLevelPresets(settings);
  buildToolBar();

  connect(orthoViews_, &render::OrthoViews::roisChanged, this, &ViewArea::roisChanged);
  connect(orthoViews_, &render::OrthoViews::windowLevelChanged, histogram_,
          &render::HistogramView::setWindowLevel);
  connect(orthoViews_, &render::OrthoViews::windowLevelChanged, this,
          &ViewArea::onWindowLevelChanged);
  connect(orthoViews_, &render::OrthoViews::cursorMoved, this,
          [this](const Eigen::Vector3d& p, float value) {
            const LengthUnit unit = units_.lengthUnit();
            auto length = [unit](double mm) {
              return QString::fromStdString(formatLengthValue(mm, unit));
            };
            QString text = QStringLiteral("x %1  y %2  z %3 %4")
                               .arg(length(p.x()), length(p.y()), length(p.z()),
                                    QString::fromStdString(symbol(unit)));
            text +=
                std::isfinite(value)
                    ? tr("   value %1").arg(QString::fromStdString(shownUnits().formatValue(value)))
                    : tr("   outside the volume");
            if (!label_.isEmpty()) text += QStringLiteral("   (%1)").arg(label_);
            emit cursorInfo(text);
          });
  connect(orthoViews_, &render::OrthoViews::layoutChanged, this,
          [this](render::OrthoViews::Layout l) {
            for (int i = 0; i < static_cast<int>(std::size(kLayouts)); ++i)
              if (kLayouts[i].layout == l) {
                const QSignalBlocker block(layoutCombo_);
                layoutCombo_->setCurrentIndex(i);
              }
          });
}

void ViewArea::buildToolBar() {
  layoutCombo_ = new QComboBox(toolBar_);
  layoutCombo_->setToolTip(tr("View layout (a double-click on a view maximises it)"));
  for (const LayoutEntry& e : kLayouts) layoutCombo_->addItem(tr(e.title), QString(e.key));
  toolBar_->addWidget(layoutCombo_);
  connect(layoutCombo_, &QComboBox::activated, this,
          [this](int index) { orthoViews_->setViewLayout(kLayouts[index].layout); });
  toolBar_->addSeparator();

  presetCombo_ = new QComboBox(toolBar_);
  presetCombo_->setToolTip(
      tr("Window/level preset (left-drag in a slice view adjusts W/L; "
         "Ctrl+double-click resets it)"));
  presetCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  toolBar_->addWidget(presetCombo_);
  reloadPresetCombo();
  connect(presetCombo_, &QComboBox::activated, this, [this](int index) {
    if (index < static_cast<int>(presets_.size())) {
      applyPreset(index);
      return;
    }
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Save W/L preset"), tr("Preset name:"),
                                               QLineEdit::Normal, QString(), &ok);
    if (ok && !name.trimmed().isEmpty()) saveCurrentAsPreset(name.trimmed());
    reloadPresetCombo();
  });

  huAction_ = toolBar_->addAction(tr("HU"));
  huAction_->setObjectName(QStringLiteral("huDisplayAction"));
  huAction_->setCheckable(true);
  huAction_->setEnabled(false);
  huAction_->setToolTip(
      tr("Show values in Hounsfield units (CT attenuation with a known water value only)"));
  connect(huAction_, &QAction::toggled, this, [this](bool on) {
    DisplayUnits units = units_;
    units.setShowHu(on);
    setDisplayUnits(units);
  });

  colourCombo_ = new QComboBox(toolBar_);
  colourCombo_->setToolTip(tr("Colour map"));
  for (render::ColourMap map : render::allColourMaps())
    colourCombo_->addItem(render::colourMapName(map), static_cast<int>(map));
  toolBar_->addWidget(colourCombo_);
  connect(colourCombo_, &QComboBox::activated, this, [this](int index) {
    orthoViews_->setColourMap(
        static_cast<render::ColourMap>(colourCombo_->itemData(index).toInt()));
  });
  toolBar_->addSeparator();

  auto* tools = new QActionGroup(this);
  tools->setExclusive(true);
  auto addTool = [&](const QString& icon, const QString& text, const QString& tip,
                     render::SliceView::RoiTool tool) {
    QAction* action = toolBar_->addAction(QIcon(icon), text);
    action->setToolTip(tip);
    action->setCheckable(true);
    action->setObjectName(QStringLiteral("roiTool") + text.section(' ', 0, 0));
    action->setData(static_cast<int>(tool));
    tools->addAction(action);
    connect(action, &QAction::triggered, this, [this, tool] { orthoViews_->setRoiTool(tool); });
    return action;
  };
  // Each drawing tool draws one shape and goes back to window/level; Shift held at the release
  // keeps it armed for the next one.
  addTool(QString(), tr("No ROI"), tr("Left-drag adjusts window/level"),
          render::SliceView::RoiTool::None)
      ->setChecked(true);
  addTool(QStringLiteral(":/tomowb/icons/roi-circle.svg"), tr("Circle ROI"),
          tr("Drag from the centre to draw a circular ROI (Shift at release: draw another); "
             "click to select, Delete removes it"),
          render::SliceView::RoiTool::Circle);
  addTool(QStringLiteral(":/tomowb/icons/roi-rect.svg"), tr("Rectangle ROI"),
          tr("Drag corner to corner to draw a rectangular ROI (Shift at release: draw another); "
             "click to select, Delete removes it"),
          render::SliceView::RoiTool::Rectangle);
  addTool(QString(), tr("Ruler"),
          tr("Drag to measure a distance (Shift at release: draw another); click a ruler to "
             "select it, Delete removes it"),
          render::SliceView::RoiTool::Ruler);
  addTool(QString(), tr("Profile"),
          tr("Drag a line: its profile (values along it) shows in the Measurements dock"),
          render::SliceView::RoiTool::Profile);
  connect(orthoViews_, &render::OrthoViews::roiToolChanged, this,
          [tools](render::SliceView::RoiTool tool) {
            for (QAction* action : tools->actions())
              if (action->data().toInt() == static_cast<int>(tool)) action->setChecked(true);
          });
  roleCombo_ = new QComboBox(toolBar_);
  roleCombo_->setToolTip(tr("Role of the next ROI for contrast-to-noise: signal or background"));
  roleCombo_->addItem(tr("Signal"), static_cast<int>(render::SliceRoi::Signal));
  roleCombo_->addItem(tr("Background"), static_cast<int>(render::SliceRoi::Background));
  toolBar_->addWidget(roleCombo_);
  connect(roleCombo_, &QComboBox::activated, this, [this](int index) {
    orthoViews_->setNewRoiRole(
        static_cast<render::SliceRoi::Role>(roleCombo_->itemData(index).toInt()));
  });
  toolBar_->addSeparator();

  histogramAction_ = toolBar_->addAction(tr("Histogram"));
  histogramAction_->setCheckable(true);
  histogramAction_->setToolTip(tr("Show the histogram with the W/L window"));
  connect(histogramAction_, &QAction::toggled, this, &ViewArea::setHistogramVisible);
  QAction* shot =
      toolBar_->addAction(QIcon(QStringLiteral(":/tomowb/icons/screenshot.svg")), tr("Screenshot"));
  shot->setToolTip(tr("Save the views as a PNG image"));
  connect(shot, &QAction::triggered, this, &ViewArea::chooseScreenshotFile);

  labelText_ = new QLabel(toolBar_);
  labelText_->setContentsMargins(8, 0, 4, 0);
  // A label that grows with its text would re-layout the views on every preview ("backprojected
  // 32 of 192 views") and make every VTK view re-render at once: its width never drives layout.
  labelText_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  labelText_->setMinimumWidth(120);
  auto* spacer = new QWidget(toolBar_);
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  toolBar_->addWidget(spacer);
  toolBar_->addWidget(labelText_);
}

void ViewArea::reloadPresetCombo() {
  const QSignalBlocker block(presetCombo_);
  presetCombo_->clear();
  for (const render::WindowLevelPreset& p : presets_) presetCombo_->addItem(p.name);
  presetCombo_->addItem(tr("Save current W/L as preset\u2026"));
  // A W/L set by dragging is none of the presets: the combo says so instead of a stale name.
  presetCombo_->setPlaceholderText(tr("Custom W/L"));
  // The CT presets are in HU: greyed out unless the views show HU.
  if (auto* model = qobject_cast<QStandardItemModel*>(presetCombo_->model()))
    for (int i = 0; i < static_cast<int>(presets_.size()); ++i)
      if (presets_[static_cast<std::size_t>(i)].hounsfield && !units_.showsHu()) {
        QStandardItem* item = model->item(i);
        item->setEnabled(false);
        item->setToolTip(units_.huAvailable()
                             ? tr("A CT preset in HU: switch the views to HU first")
                             : tr("A CT preset in HU: these data have no HU (CT attenuation "
                                  "with a known water value only)"));
      }
}

void ViewArea::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Once the views are on screen, before any run: compile the 3-D view's shaders.
  QTimer::singleShot(100, this, [this] { volumeView_->warmUp(); });
}

void ViewArea::setVolume(std::shared_ptr<const Volume> volume, const QString& label,
                         bool livePreview, bool keepViewState) {
  const render::EventTrace::Scope traced("ViewArea::setVolume");
  label_ = label;
  const bool hadVolume = orthoViews_->volume() != nullptr && !showingProjections_;
  // Projections shown before: a new picture (slice, zoom, W/L of its own), not a frame of them.
  bool keep = (livePreview || keepViewState) && !showingProjections_;
  if (showingProjections_) {
    showingProjections_ = false;
    orthoViews_->setDisplayUnits(units_);
    for (render::SliceView* v : orthoViews_->sliceViews()) v->setShowSliceInfo(true);
    orthoViews_->view(render::SliceView::Axis::Axial)->setRowsDown(false);
  }
  // Previews update the slices only; the 3-D view follows with the final volume (a projection
  // stack has no 3-D picture: it shows nothing there).
  {
    const QScopedValueRollback<bool> ours(settingWindowLevel_, true);
    orthoViews_->setVolume(std::move(volume), keep, !livePreview && !settingProjections_);
  }
  if (settingProjections_) volumeView_->setVolume(nullptr);
  for (render::SliceView* v : orthoViews_->sliceViews()) v->setTitle(label);
  labelText_->setText(livePreview ? tr("%1 (live)").arg(label) : label);
  if (!orthoViews_->volume()) return;
  if (keep) {
    // A run's previews and its result follow their own values until the user drags W/L: the
    // previous data's W/L made them white or black (reference/ux-review-2026-11.md).
    if (autoWindowLevel_ || !hadVolume) applyAutoWindowLevel();
  } else {
    autoWindowLevel_ = true;  // a volume of its own: its percentile window (SliceView's default)
    const QSignalBlocker block(presetCombo_);
    presetCombo_->setCurrentIndex(0);  // the default is the first preset: 0.1-99.9 %
  }
  updateHistogram();
}

DisplayUnits ViewArea::shownUnits() const {
  if (!showingProjections_) return units_;
  // Line integrals or counts: no value unit (ET has none anyway, and keeps its view names).
  DisplayUnits lengthsOnly = DisplayUnits::forModality(
      units_.modality() == DataModality::ElectronTomography ? DataModality::ElectronTomography
                                                            : DataModality::Unknown);
  lengthsOnly.setLengthUnit(units_.lengthUnit());
  return lengthsOnly;
}

void ViewArea::showProjections(std::shared_ptr<const ProjectionStack> projections,
                               const QString& name) {
  if (!projections || projections->viewCount() < 1) {
    setVolume(nullptr, QString(), false);
    return;
  }
  const ProjectionStack& p = *projections;
  const View& first = p.geometry().view(0);
  const double pitchU = first.u.norm(), pitchV = first.v.norm();
  // [view][row][col] is a volume with x = column, y = row, z = view. The views are spaced so
  // that the sinogram is as tall as a projection is wide.
  const double viewSpacing =
      pitchU * static_cast<double>(p.cols()) / static_cast<double>(p.viewCount());
  auto volume = std::make_shared<Volume>(Volume::centred(
      {p.cols(), p.rows(), p.viewCount()}, Eigen::Vector3d(pitchU, pitchV, viewSpacing)));
  std::copy_n(p.data(), p.viewCount() * p.rows() * p.cols(), volume->data());
  {
    const QScopedValueRollback<bool> projections(settingProjections_, true);
    setVolume(std::move(volume), name, false);  // its own percentile window
  }
  showingProjections_ = true;
  orthoViews_->setDisplayUnits(shownUnits());
  const bool tilts = isTiltSeries(p.geometry());
  render::SliceView* views = orthoViews_->view(render::SliceView::Axis::Axial);
  views->setRowsDown(true);
  views->setTitle(
      tr("%1: %2 (scroll for the others)\nPress Run (Ctrl+R) to reconstruct")
          .arg(name, tilts ? tr("one tilt per slice") : tr("one projection per slice")));
  orthoViews_->view(render::SliceView::Axis::Coronal)
      ->setTitle(tr("Sinogram: one detector row over all %1 views").arg(p.viewCount()));
  orthoViews_->view(render::SliceView::Axis::Sagittal)
      ->setTitle(tr("One detector column over all %1 views").arg(p.viewCount()));
  for (render::SliceView* v : orthoViews_->sliceViews()) v->setShowSliceInfo(false);
  labelText_->setText(tr("%1: the projections (no reconstruction yet)").arg(name));
}

void ViewArea::updateHistogram() {
  // The statistics pass costs tens of ms at 256^3: only while the histogram is shown.
  if (!histogram_->isVisible()) return;
  histogram_->setStatistics(orthoViews_->volume() ? orthoViews_->statistics()
                                                  : render::VolumeStatistics{});
  const render::WindowLevel wl = orthoViews_->windowLevel();
  histogram_->setWindowLevel(wl.window, wl.level);
}

void ViewArea::setHistogramVisible(bool visible) {
  histogram_->setVisible(visible);
  if (histogramAction_->isChecked() != visible) histogramAction_->setChecked(visible);
  keepHistogramShort();
  updateHistogram();
}

void ViewArea::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);  // the splitter has its new height already
  keepHistogramShort();
}

void ViewArea::keepHistogramShort() {
  if (!histogram_->isVisibleTo(this)) return;
  const int total = splitter_->height() - splitter_->handleWidth();
  const int cap = std::max(histogram_->minimumHeight(), total / 4);
  const int now = splitter_->sizes().value(1);
  if (now > cap) splitter_->setSizes({total - cap, cap});
}

void ViewArea::applyPreset(int index) {
  if (index < 0 || index >= static_cast<int>(presets_.size()) || !orthoViews_->volume()) return;
  const render::WindowLevelPreset& preset = presets_[static_cast<std::size_t>(index)];
  if (preset.hounsfield && !units_.showsHu()) return;  // its numbers mean nothing here
  render::WindowLevel wl = render::applyPreset(preset, orthoViews_->statistics());
  if (preset.hounsfield) wl = {units_.widthToNative(wl.window), units_.toNative(wl.level)};
  {
    const QScopedValueRollback<bool> ours(settingWindowLevel_, true);
    orthoViews_->setWindowLevel(wl.window, wl.level);
  }
  // The user's choice: it stays for re-runs on these data, as a drag does.
  userWindowLevelKey_ = windowLevelKey();
  userWindowLevel_ = orthoViews_->windowLevel();
  autoWindowLevel_ = false;
  const QSignalBlocker block(presetCombo_);
  presetCombo_->setCurrentIndex(index);
}

QString ViewArea::presetText() const {
  return presetCombo_->currentIndex() < 0 ? presetCombo_->placeholderText()
                                          : presetCombo_->currentText();
}

QString ViewArea::windowLevelKey() const {
  return dataKey_ + QLatin1Char('|') + QString::fromStdString(units_.valueSymbol());
}

void ViewArea::applyAutoWindowLevel() {
  const render::WindowLevel wl = render::defaultWindowLevel(orthoViews_->statistics());
  {
    const QScopedValueRollback<bool> ours(settingWindowLevel_, true);
    orthoViews_->setWindowLevel(wl.window, wl.level);
  }
  const QSignalBlocker block(presetCombo_);
  presetCombo_->setCurrentIndex(0);
}

void ViewArea::onWindowLevelChanged() {
  if (settingWindowLevel_ || !orthoViews_->volume()) return;
  // A drag (or any W/L not set here): the user's contrast from now on, for these data.
  userWindowLevelKey_ = windowLevelKey();
  userWindowLevel_ = orthoViews_->windowLevel();
  autoWindowLevel_ = false;
  const QSignalBlocker block(presetCombo_);
  presetCombo_->setCurrentIndex(-1);  // "Custom W/L", not the last preset's name
}

void ViewArea::setDisplayUnits(const DisplayUnits& units) {
  const bool changed = !(units == units_);
  units_ = units;
  {
    const QSignalBlocker block(huAction_);
    huAction_->setEnabled(units_.huAvailable());
    huAction_->setChecked(units_.showsHu());
  }
  if (!changed) return;
  orthoViews_->setDisplayUnits(shownUnits());
  const int current = presetCombo_->currentIndex();
  reloadPresetCombo();
  {
    const QSignalBlocker block(presetCombo_);
    presetCombo_->setCurrentIndex(current);
  }
  // Other units, other numbers: the user's W/L no longer applies; the data's window does.
  userWindowLevelKey_.clear();
  autoWindowLevel_ = true;
  if (orthoViews_->volume()) applyAutoWindowLevel();
}

void ViewArea::setDataKey(const QString& key) {
  if (key == dataKey_) return;
  dataKey_ = key;
  userWindowLevelKey_.clear();  // new data: nothing the user chose applies
  autoWindowLevel_ = true;
}

void ViewArea::beginRun() {
  // A re-run on the same data in the same units keeps the W/L the user set by hand.
  autoWindowLevel_ = userWindowLevelKey_ != windowLevelKey();
  if (!autoWindowLevel_ && orthoViews_->volume()) {
    const QScopedValueRollback<bool> ours(settingWindowLevel_, true);
    orthoViews_->setWindowLevel(userWindowLevel_.window, userWindowLevel_.level);
  }
}

void ViewArea::saveCurrentAsPreset(const QString& name) {
  const render::WindowLevel wl = orthoViews_->windowLevel();
  render::WindowLevelPreset preset;
  preset.name = name;
  preset.method = render::WindowLevelMethod::Fixed;
  preset.window = wl.window;
  preset.level = wl.level;
  presets_.push_back(preset);
  QSettings settings;
  render::saveWindowLevelPresets(settings, presets_);
  reloadPresetCombo();
}

bool ViewArea::setLayoutByName(const QString& name) {
  for (const LayoutEntry& e : kLayouts)
    if (name.compare(QLatin1String(e.key), Qt::CaseInsensitive) == 0) {
      orthoViews_->setViewLayout(e.layout);
      return true;
    }
  return false;
}

QString ViewArea::layoutName() const {
  for (const LayoutEntry& e : kLayouts)
    if (e.layout == orthoViews_->viewLayout()) return QString::fromLatin1(e.key);
  return {};
}

bool ViewArea::saveScreenshot(const QString& path) {
  const QImage image = orthoViews_->grabLayout();
  if (image.isNull()) return false;
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return false;
  if (!image.save(&file, "PNG")) {
    file.cancelWriting();
    return false;
  }
  return file.commit();
}

void ViewArea::chooseScreenshotFile() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save view screenshot"), QStringLiteral("views.png"), tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  if (!saveScreenshot(path))
    QMessageBox::warning(this, tr("Screenshot"), tr("Could not write %1").arg(path));
}

}  // namespace tomowb::gui
