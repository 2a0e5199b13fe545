// PreprocessDialog: the settings of Preprocess projections… (Data panel, Run menu) for the
// projections open now: crop (defaulting to the whole detector), binning 1/2/4/8, log transform
// with I0 (blank = per view, the 99.5th percentile of its positive pixels) and per-view
// normalisation (preprocess::TiltSeriesPreprocessing). It shows the resulting detector size,
// and bad settings (a crop outside the detector, binning larger than the crop) in the core's
// ParameterError words, with OK disabled until they are fixed. It computes nothing itself: the
// Data panel runs the preprocessing on a worker thread (LoadTask::startPreprocess).
#pragma once

#include <QDialog>

#include "recon/geometry/Geometry.h"
#include "recon/preprocess/TiltSeriesPreprocess.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace tomowb::gui {

class PreprocessDialog : public QDialog {
  Q_OBJECT

 public:
  PreprocessDialog(const Geometry& geometry, const QString& sourceName, QWidget* parent = nullptr);

  // What the form says (valid or not).
  preprocess::TiltSeriesPreprocessing params() const;
  void setParams(const preprocess::TiltSeriesPreprocessing& params);
  // Empty when the settings are valid; else the problem, as shown in the dialog.
  QString problem() const { return problem_; }
  QPushButton* okButton() const { return okButton_; }

 private:
  void validate();

  Geometry geometry_;
  QString problem_;
  QSpinBox* firstCol_ = nullptr;
  QSpinBox* cols_ = nullptr;
  QSpinBox* firstRow_ = nullptr;
  QSpinBox* rows_ = nullptr;
  QComboBox* binning_ = nullptr;
  QCheckBox* log_ = nullptr;
  QLineEdit* i0_ = nullptr;
  QComboBox* normalisation_ = nullptr;
  QLabel* resultLabel_ = nullptr;
  QLabel* problemLabel_ = nullptr;
  QPushButton* okButton_ = nullptr;
};

}  // namespace tomowb::gui
