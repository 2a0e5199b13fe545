// PetDataPanel: the PET data dock (issue #20, point 5), shown while TOF-PET list mode is open.
// What the data are: the scanner (name, layout, rings and crystals, diameter, axial length, TOF
// resolution), the counts (prompts, delayed, trues and randoms when simulated, acquisition time,
// isotope, where they came from), and a histo-image browser (reference/direct-tof-pet.md,
// section 2.2): a view slider (the DIRECT view's azimuth and tilt in degrees) and a z slider over
// the prompts of that view deposited at their most likely points (PetHistoView.h), drawn in a
// small image with a hot colour map (one slice, or the sum of all, the default); "Open in slice
// views" adds the view's histo-image to the workspace as a volume. The image of a view is made on a
// worker thread (cancelled and redone when the slider moves on), so the window never waits for it.
// Without PET data it says how to get some.
#pragma once

#include <QWidget>
#include <memory>
#include <thread>

#include "gui/core/PetData.h"
#include "recon/job/CancelToken.h"
#include "recon/pet/ViewBinning.h"

class QCheckBox;
class QGroupBox;
class QLabel;
class QPushButton;
class QSlider;

namespace tomowb::gui {

class Workspace;

class PetDataPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PetDataPanel(Workspace& workspace, QWidget* parent = nullptr);
  ~PetDataPanel() override;  // cancels and joins the browser's worker
  PetDataPanel(const PetDataPanel&) = delete;
  PetDataPanel& operator=(const PetDataPanel&) = delete;
  QSize sizeHint() const override;

  // The texts shown (tests, screenshots).
  QString scannerText() const;
  QString countsText() const;
  // The browser: its views and the one shown, and choosing one (azimuth and tilt indices).
  const pet::ViewBinning& views() const { return views_; }
  int currentView() const;
  void setView(int view);
  int currentSlice() const;
  void setSlice(int slice);
  // Shows the sum over every slice instead of the slice chosen (the default: one view's slice
  // holds few prompts).
  void setSumOfSlices(bool sum);
  // The histo-image of the current view once made (null before, or without data).
  const std::shared_ptr<const Volume>& viewImage() const { return image_; }
  int viewImageView() const { return imageView_; }
  // "view 12 of 120: azimuth 103.5°, tilt -6.7°"
  QString viewText() const;

 signals:
  // A view's histo-image was made and is shown.
  void viewImageReady(int view);

 private:
  void onDataChanged();
  void requestView();
  void startBrowse();
  void onBrowsed(int view, std::shared_ptr<const Volume> image);
  void drawSlice();
  void openInSliceViews();

  Workspace& workspace_;
  std::shared_ptr<const PetDataSet> data_;
  pet::ViewBinning views_;
  std::shared_ptr<const Volume> image_;
  int imageView_ = -1;
  bool browsing_ = false;
  bool pending_ = false;
  std::shared_ptr<CancelToken> browseToken_;
  std::thread browseThread_;

  QLabel* hint_ = nullptr;
  QWidget* content_ = nullptr;
  QLabel* title_ = nullptr;
  QLabel* scanner_ = nullptr;
  QLabel* counts_ = nullptr;
  QSlider* viewSlider_ = nullptr;
  QLabel* viewLabel_ = nullptr;
  QSlider* sliceSlider_ = nullptr;
  QCheckBox* sumSlices_ = nullptr;
  QLabel* sliceLabel_ = nullptr;
  QLabel* imageLabel_ = nullptr;
  QLabel* imageCaption_ = nullptr;
  QPushButton* openButton_ = nullptr;
};

}  // namespace tomowb::gui
