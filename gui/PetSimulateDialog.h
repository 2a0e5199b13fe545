// PetSimulateDialog: File > Simulate PET scan… (issue #20, point 5). The settings of a synthetic
// TOF-PET scan of the PET phantom (reference/direct-tof-pet.md, section 5.2-5.3): the scanner (a
// built-in preset, penn-labr3 or ring-930, or a scanner file), the phantom (hot spheres and their
// ratio to the background, cold spheres, a point source, the background activity), the counts
// (prompts, 2e6 by default, up to the seed's 4.3e8), the random seed, the randoms fraction,
// attenuation in the water cylinder, and the image grid the activity map is drawn on (which the
// reconstruction takes by default). It shows what the scanner is, the grid's extent and the
// memory the events take, and bad settings in the core's words with Simulate disabled. It
// computes nothing itself: the Data panel runs the simulator on its loader's worker thread
// (LoadTask::startPetSimulation: progress and Cancel).
#pragma once

#include <QDialog>

#include "gui/core/PetData.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tomowb::gui {

class ScientificSpinBox;

class PetSimulateDialog : public QDialog {
  Q_OBJECT

 public:
  explicit PetSimulateDialog(QWidget* parent = nullptr);

  // What the form says (valid or not), and the reverse.
  PetSimulationRequest request() const;
  void setRequest(const PetSimulationRequest& request);
  // Empty when the settings are valid; else the problem, as shown.
  QString problem() const { return problem_; }
  QPushButton* simulateButton() const { return simulateButton_; }

 private:
  void validate();
  void browseScanner();

  QString problem_;
  QComboBox* scanner_ = nullptr;  // presets, then "file": the path in scannerFile_
  QLineEdit* scannerFile_ = nullptr;
  QPushButton* browse_ = nullptr;
  QLabel* scannerInfo_ = nullptr;
  QCheckBox* hotSpheres_ = nullptr;
  QDoubleSpinBox* hotRatio_ = nullptr;
  QCheckBox* coldSpheres_ = nullptr;
  QCheckBox* pointSource_ = nullptr;
  QDoubleSpinBox* pointX_ = nullptr;
  QDoubleSpinBox* pointY_ = nullptr;
  QDoubleSpinBox* pointZ_ = nullptr;
  QDoubleSpinBox* background_ = nullptr;
  ScientificSpinBox* prompts_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QDoubleSpinBox* randoms_ = nullptr;
  QCheckBox* attenuation_ = nullptr;
  QDoubleSpinBox* voxel_ = nullptr;
  QSpinBox* size_ = nullptr;
  QSpinBox* slices_ = nullptr;
  QLabel* gridInfo_ = nullptr;
  QLabel* problemLabel_ = nullptr;
  QPushButton* simulateButton_ = nullptr;
};

}  // namespace tomowb::gui
