// RunInputsBox: the algorithm dock's "Reference and weights" box, for the algorithms whose
// descriptor takes them (acceptsWeights, acceptsReference: PWLS, issue #19):
//  - statistical weights, one per projection pixel: none (every ray weighs the same), the photon
//    counts the data came with (the helical demo keeps its Poisson draw: Workspace::counts(), the
//    default when present), or a counts file read by io::readCountsAsWeights (any projection or
//    volume format; a file of the wrong shape or with a negative value is refused naming it);
//  - a reference volume whose RMSE each iteration reports: none, the demo's phantom voxelised on
//    the run's grid (the default for demo data), a volume of the Data panel on the run's grid, or
//    a volume file.
// Weights belong to the data they were loaded for: a new data set drops a loaded file.
#pragma once

#include <QGroupBox>
#include <QString>
#include <memory>
#include <vector>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/core/VolumeGrid.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace tomowb::gui {

class Workspace;

class RunInputsBox : public QGroupBox {
  Q_OBJECT

 public:
  explicit RunInputsBox(Workspace& workspace, QWidget* parent = nullptr);

  // Shows the rows the descriptor takes; the box is hidden when it takes neither.
  void setDescriptor(const catalog::AlgorithmDescriptor& descriptor);

  // The weights chosen: "none", "counts" (the data's own), "file"; choosing one (false when not
  // offered). `weightsText()`: what they are, in words ("photon counts of the data", a file name).
  QString weightsChoice() const;
  bool chooseWeights(const QString& choice);
  QString weightsText() const;
  // Reads a counts file for the current projections and chooses it. False with the reader's
  // message (naming the file) in *error and in the box when it cannot be used.
  bool loadWeights(const QString& path, QString* error = nullptr);

  // The reference chosen: "none", "phantom", "volume" (one of the Data panel's), "file".
  QString referenceChoice() const;
  bool chooseReference(const QString& choice);
  bool loadReference(const QString& path, QString* error = nullptr);

  // Why a run on `grid` cannot take the choices (weights of another shape than the projections,
  // a reference of another shape than the grid), or empty.
  QString problem(const VolumeGrid& grid) const;
  // Sets inputs.weights and inputs.reference as chosen (the phantom voxelised on `grid`).
  void fill(catalog::JobInputs& inputs, const VolumeGrid& grid) const;
  // The last load error shown in the box (empty when none).
  QString message() const;

 signals:
  void changed();

 private:
  struct ReferenceEntry {
    QString choice;  // "phantom", "volume", "file"
    QString label;
    std::shared_ptr<const Volume> volume;  // null for the phantom
  };
  void fillWeights(bool preferCounts);
  void fillReferences(bool preferPhantom);
  void showMessage(const QString& text);
  const ReferenceEntry* chosenReference() const;
  std::shared_ptr<const Volume> phantomOn(const VolumeGrid& grid) const;

  Workspace& workspace_;
  bool takesWeights_ = false, takesReference_ = false;
  QFormLayout* form_ = nullptr;
  QComboBox* weights_ = nullptr;
  QPushButton* loadWeights_ = nullptr;
  QComboBox* reference_ = nullptr;
  QPushButton* loadReference_ = nullptr;
  QLabel* message_ = nullptr;
  std::shared_ptr<const ProjectionStack> fileWeights_;
  QString fileWeightsName_;
  std::vector<ReferenceEntry> references_;  // the reference combo's items after "none"
  std::vector<ReferenceEntry> fileReferences_;
  // The phantom voxelised on the last grid asked for (a run voxelises it once per grid).
  mutable std::shared_ptr<const Volume> phantomVolume_;
  mutable const void* phantomOf_ = nullptr;
};

}  // namespace tomowb::gui
