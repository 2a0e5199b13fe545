// PetAlgorithmPanel: the algorithm dock's page for TOF-PET list mode (issue #20, point 5), in
// place of the catalogue's CT and ET algorithms while PET data are open. DIRECT with its
// parameters (recon/pet/DirectReconstruction.h, PetPipeline.h): the update (ML-EM, OSEM, RAMLA
// with its relaxation), iterations and subsets; the LOR kernel (invariant, variant 1-3) and its
// widths; the TOF width (the scanner's by default); the deposition (nearest, trilinear, TOF
// kernel); attenuation and randoms corrections (each enabled when the data allow it); the image
// grid and the views; the units (Bq/mL or emissions per voxel) with decay correction; which
// phantom's spheres contrast recovery is measured on; the device (the GPU by default when there is
// one) and the DIRECT projector pair of the registry's PET roles for it. It shows the memory the
// histo-images take, and Run stays disabled with the reason until the settings are valid
// (gui/core/PetRun.h: validatePetRun). Run asks the main window to start the run; Cancel is the
// window's (Run > Cancel run), as for every run.
#pragma once

#include <QWidget>
#include <memory>

#include "gui/core/PetRun.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace tomowb::gui {

class Workspace;

class PetAlgorithmPanel : public QWidget {
  Q_OBJECT

 public:
  explicit PetAlgorithmPanel(Workspace& workspace, QWidget* parent = nullptr);
  QSize sizeHint() const override;

  // What the form says, and the reverse (fields the data do not allow stay off).
  PetRunSettings settings() const;
  void setSettings(const PetRunSettings& settings);
  // False with the reason (one sentence) when a run cannot start.
  bool validate(QString* why) const;
  // The projector names offered for the device chosen, in registry order.
  QStringList forwardProjectorNames() const;
  QStringList backprojectorNames() const;
  QPushButton* runButton() const { return run_; }
  // Why a run cannot start, and Run (AlgorithmPanel::runBar).
  QWidget& runBar() { return *runBar_; }

 signals:
  void runRequested();
  void settingsChanged();

 private:
  void onDataChanged();
  void fillProjectors();
  void refresh();

  Workspace& workspace_;
  bool updating_ = false;

  QLabel* hint_ = nullptr;
  QWidget* form_ = nullptr;
  QComboBox* algorithm_ = nullptr;
  QSpinBox* iterations_ = nullptr;
  QSpinBox* subsets_ = nullptr;
  QDoubleSpinBox* lambda0_ = nullptr;
  QDoubleSpinBox* beta_ = nullptr;
  QLabel* lambdaLabel_ = nullptr;
  QLabel* betaLabel_ = nullptr;
  QComboBox* lorKernel_ = nullptr;
  QDoubleSpinBox* radialFwhm_ = nullptr;
  QDoubleSpinBox* axialFwhm_ = nullptr;
  QDoubleSpinBox* tofFwhm_ = nullptr;
  QComboBox* deposition_ = nullptr;
  QCheckBox* attenuation_ = nullptr;
  QCheckBox* randoms_ = nullptr;
  QComboBox* reference_ = nullptr;
  QSpinBox* nx_ = nullptr;
  QSpinBox* nz_ = nullptr;
  QDoubleSpinBox* voxel_ = nullptr;
  QSpinBox* azimuths_ = nullptr;
  QSpinBox* tilts_ = nullptr;
  QComboBox* units_ = nullptr;
  QCheckBox* decay_ = nullptr;
  QComboBox* device_ = nullptr;
  QComboBox* forward_ = nullptr;
  QComboBox* back_ = nullptr;
  QLabel* memory_ = nullptr;
  QWidget* runBar_ = nullptr;  // reason_ and run_
  QLabel* reason_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace tomowb::gui
