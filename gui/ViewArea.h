// ViewArea: the central widget of the main window. The linked slice views and the 3-D view
// (render::OrthoViews) in the layouts of reference/ux-and-robustness.md 1.4 that exist today
// (Four-Up, the default; three slices in a row; One-up), an optional histogram with the W/L
// window, and a small toolbar: layout, W/L preset (user-editable, kept in QSettings group
// "windowLevel"), colour map, drawing tools (none / circle / rectangle ROI and the role of new
// ROIs, ruler, profile line; each draws one shape, then W/L again), histogram toggle and a
// screenshot of the views. Live previews of a running reconstruction
// come in through setVolume(..., livePreview = true), which keeps slice, zoom and W/L.
#pragma once

#include <QString>
#include <QWidget>
#include <array>
#include <memory>
#include <vector>

#include "recon/core/DisplayUnits.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "render/OrthoViews.h"
#include "render/SliceRoi.h"
#include "render/WindowLevel.h"

class QAction;
class QComboBox;
class QLabel;
class QSplitter;
class QToolBar;

namespace tomowb::render {
class HistogramView;
class SliceView;
class VolumeView3D;
}  // namespace tomowb::render

namespace tomowb::gui {

class ViewArea : public QWidget {
  Q_OBJECT

 public:
  explicit ViewArea(QWidget* parent = nullptr);

  // Shows `volume` (nullptr clears) under `label` ("recon #3 (fdk.bp.cpu)"). livePreview = true
  // for a running reconstruction's intermediate volumes: cheap, and slice, zoom and W/L stay.
  // keepViewState = true for a run's result after its previews: slice, zoom and W/L stay as the
  // user watched them (an iterate's W/L, not the result's percentile, which gold beads can own),
  // and the 3-D view follows.
  void setVolume(std::shared_ptr<const Volume> volume, const QString& label, bool livePreview,
                 bool keepViewState = false);
  const std::shared_ptr<const Volume>& volume() const { return orthoViews_->volume(); }
  // Data before a reconstruction (issue #21, point 4): the projections as a stack, one view per
  // slice of the first view (rows down) and the sinogram of each detector row in the second,
  // titled so, with the hint to press Run; the next setVolume replaces them. nullptr clears.
  void showProjections(std::shared_ptr<const ProjectionStack> projections, const QString& name);
  bool showsProjections() const { return showingProjections_; }
  QString label() const { return label_; }

  // Axial, coronal, sagittal.
  std::array<render::SliceView*, 3> sliceViews() const { return orthoViews_->sliceViews(); }
  render::OrthoViews& orthoViews() { return *orthoViews_; }
  render::VolumeView3D& volumeView() { return *volumeView_; }
  render::HistogramView& histogramView() { return *histogram_; }

  // The ROIs drawn on the slice views (all axes), and replacing them (e.g. from a saved run).
  std::vector<render::SliceRoi> rois() const { return orthoViews_->rois(); }
  void setRois(const std::vector<render::SliceRoi>& rois) { orthoViews_->setRois(rois); }
  // Deletes every ROI, ruler and the profile line (new data: nothing measured on the old data
  // may drive the new data's figures). Emits roisChanged.
  void clearRois() { orthoViews_->clearMeasurements(); }

  // Writes what the views show now as PNG (atomically: a temporary file renamed on success).
  bool saveScreenshot(const QString& path);
  QImage grabViews() { return orthoViews_->grabLayout(); }

  // "four-up", "three-slices" or "one-up" (case-insensitive); false for an unknown name.
  bool setLayoutByName(const QString& name);
  QString layoutName() const;

  // The W/L presets in the combo (built-in until the user saves a list).
  const std::vector<render::WindowLevelPreset>& presets() const { return presets_; }
  // Applies presets()[index] to the current volume.
  void applyPreset(int index);
  // Adds the current W/L as a fixed preset named `name` and saves the list.
  void saveCurrentAsPreset(const QString& name);
  void setHistogramVisible(bool visible);

  // --- contrast that follows the data (issue #21, point 1) ---
  // The units of what is shown (MainWindow sets them from the data: nm for tomograms, HU where
  // the data allow it). A change of units gives the volume its 0.1-99.9 % window (the user's
  // W/L meant other numbers), greys the presets of other units and names the views.
  void setDisplayUnits(const DisplayUnits& units);
  const DisplayUnits& displayUnits() const { return units_; }
  // Which data the views belong to (the workspace's data set). The user's W/L stays only for
  // re-runs on the same data in the same units.
  void setDataKey(const QString& key);
  // A run starts: its live previews get the 0.1-99.9 % window of each preview unless the user
  // set W/L by hand on these data in these units (then that W/L), and until the user drags W/L.
  void beginRun();
  // The user set W/L by hand (drag, preset) on the volume shown; false after each new data set.
  bool windowLevelFromUser() const { return !userWindowLevelKey_.isEmpty(); }
  // The preset combo's text: a preset's name, or "Custom" after a drag.
  QString presetText() const;

 signals:
  void roisChanged();
  // "x 12.30  y -4.00  z 5.00 mm   value 0.1234   (recon #3)": for the status bar.
  void cursorInfo(const QString& text);

 protected:
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void buildToolBar();
  void reloadPresetCombo();
  void updateHistogram();
  // The slice views win space over the histogram strip: it takes at most a quarter of the height.
  void keepHistogramShort();
  void chooseScreenshotFile();

  render::OrthoViews* orthoViews_ = nullptr;
  render::VolumeView3D* volumeView_ = nullptr;
  render::HistogramView* histogram_ = nullptr;
  QSplitter* splitter_ = nullptr;  // the slice views above the histogram strip
  QToolBar* toolBar_ = nullptr;
  QComboBox* layoutCombo_ = nullptr;
  QComboBox* presetCombo_ = nullptr;
  QComboBox* colourCombo_ = nullptr;
  QComboBox* roleCombo_ = nullptr;
  QAction* histogramAction_ = nullptr;
  QLabel* labelText_ = nullptr;
  std::vector<render::WindowLevelPreset> presets_;
  QString label_;
  QAction* huAction_ = nullptr;
  DisplayUnits units_;
  QString dataKey_;
  // dataKey_ and unit of the data on which the user last set W/L by hand (empty: none), and it.
  QString userWindowLevelKey_;
  render::WindowLevel userWindowLevel_;
  bool autoWindowLevel_ = true;      // previews take their own percentile window
  bool settingWindowLevel_ = false;  // our own W/L changes, not the user's
  bool showingProjections_ = false;  // showProjections: line integrals, no value unit
  bool settingProjections_ = false;  // inside showProjections

  DisplayUnits shownUnits() const;

  QString windowLevelKey() const;
  void applyAutoWindowLevel();
  void onWindowLevelChanged();
};

}  // namespace tomowb::gui
