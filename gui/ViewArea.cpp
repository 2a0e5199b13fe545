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
#include <QSettings>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "render/ColourMaps.h"
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

QString number(double v) {
  return std::isfinite(v) ? QString::number(v, 'g', 5) : QString("-");
}

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
  connect(orthoViews_, &render::OrthoViews::cursorMoved, this,
          [this](const Eigen::Vector3d& p, float value) {
            QString text = QStringLiteral("x %1  y %2  z %3 mm")
                               .arg(p.x(), 0, 'f', 2)
                               .arg(p.y(), 0, 'f', 2)
                               .arg(p.z(), 0, 'f', 2);
            text += std::isfinite(value) ? tr("   value %1").arg(number(value))
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
    tools->addAction(action);
    connect(action, &QAction::triggered, this, [this, tool] { orthoViews_->setRoiTool(tool); });
    return action;
  };
  addTool(QString(), tr("No ROI"), tr("Left-drag adjusts window/level"),
          render::SliceView::RoiTool::None)
      ->setChecked(true);
  addTool(QStringLiteral(":/tomowb/icons/roi-circle.svg"), tr("Circle ROI"),
          tr("Drag from the centre to draw a circular ROI; click to select, Delete removes it"),
          render::SliceView::RoiTool::Circle);
  addTool(QStringLiteral(":/tomowb/icons/roi-rect.svg"), tr("Rectangle ROI"),
          tr("Drag corner to corner to draw a rectangular ROI; click to select, Delete removes "
             "it"),
          render::SliceView::RoiTool::Rectangle);
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
}

void ViewArea::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  // Once the views are on screen, before any run: compile the 3-D view's shaders.
  QTimer::singleShot(100, this, [this] { volumeView_->warmUp(); });
}

void ViewArea::setVolume(std::shared_ptr<const Volume> volume, const QString& label,
                         bool livePreview, bool keepViewState) {
  label_ = label;
  // Previews update the slices only; the 3-D view follows with the final volume.
  orthoViews_->setVolume(std::move(volume), livePreview || keepViewState, !livePreview);
  for (render::SliceView* v : orthoViews_->sliceViews()) v->setTitle(label);
  labelText_->setText(livePreview ? tr("%1 (live)").arg(label) : label);
  if (!livePreview && !keepViewState) {
    const QSignalBlocker block(presetCombo_);
    presetCombo_->setCurrentIndex(0);  // the default is the first preset: 0.1-99.9 %
  }
  updateHistogram();
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
  const render::WindowLevel wl =
      render::applyPreset(presets_[static_cast<std::size_t>(index)], orthoViews_->statistics());
  orthoViews_->setWindowLevel(wl.window, wl.level);
  const QSignalBlocker block(presetCombo_);
  presetCombo_->setCurrentIndex(index);
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
