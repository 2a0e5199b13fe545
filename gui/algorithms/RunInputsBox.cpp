// RunInputsBox: see the header. Files are read on the GUI thread: a counts file has the size of
// the projections, which the window holds anyway, and is read once.
#include "gui/algorithms/RunInputsBox.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

#include "gui/core/Workspace.h"
#include "recon/core/Error.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/WeightsFile.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::gui {

namespace {

// The phantom's reference: 2^3 samples per voxel (partial volumes at the edges), 1 above this
// many voxels so that a large grid does not stall the window when the run starts.
constexpr std::int64_t kSupersampledVoxels = std::int64_t{1} << 24;

bool sameShape(const ProjectionStack& a, const ProjectionStack& b) {
  return a.viewCount() == b.viewCount() && a.rows() == b.rows() && a.cols() == b.cols();
}

QString shapeText(const VolumeShape& s) {
  return QStringLiteral("%1 \u00d7 %2 \u00d7 %3").arg(s.nx).arg(s.ny).arg(s.nz);
}

QString stackText(const ProjectionStack& p) {
  return QObject::tr("%1 views of %2 \u00d7 %3").arg(p.viewCount()).arg(p.cols()).arg(p.rows());
}

QPushButton* loadButton(QWidget* parent, const QString& tip) {
  auto* button = new QPushButton(QObject::tr("Load\u2026"), parent);
  button->setToolTip(tip);
  return button;
}

}  // namespace

RunInputsBox::RunInputsBox(Workspace& workspace, QWidget* parent)
    : QGroupBox(tr("Reference and weights"), parent), workspace_(workspace) {
  setObjectName(QStringLiteral("runInputsBox"));
  form_ = new QFormLayout(this);
  weights_ = new QComboBox(this);
  weights_->setObjectName(QStringLiteral("weightsCombo"));
  weights_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  weights_->setMinimumContentsLength(16);
  weights_->setToolTip(
      tr("Statistical weights, one per projection pixel: the photon counts N behind the "
         "post-log data (w = N: a ray that saw more photons is trusted more)"));
  loadWeights_ = loadButton(this, tr("Read photon counts (or weights) for these projections from "
                                     "a file of any projection or volume format"));
  loadWeights_->setObjectName(QStringLiteral("loadWeightsButton"));
  auto* weightsRow = new QHBoxLayout;
  weightsRow->addWidget(weights_, 1);
  weightsRow->addWidget(loadWeights_);
  // A label with its buddy: a row of a layout gets none from QFormLayout (its '&' would show).
  auto* weightsLabel = new QLabel(tr("&Weights:"), this);
  weightsLabel->setBuddy(weights_);
  form_->addRow(weightsLabel, weightsRow);
  reference_ = new QComboBox(this);
  reference_->setObjectName(QStringLiteral("referenceCombo"));
  reference_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  reference_->setMinimumContentsLength(16);
  reference_->setToolTip(
      tr("A volume on the run's grid: each iteration reports its RMSE against it (the "
         "convergence plot's RMSE curve)"));
  loadReference_ = loadButton(this, tr("Read a reference volume from a file"));
  loadReference_->setObjectName(QStringLiteral("loadReferenceButton"));
  auto* referenceRow = new QHBoxLayout;
  referenceRow->addWidget(reference_, 1);
  referenceRow->addWidget(loadReference_);
  auto* referenceLabel = new QLabel(tr("R&eference:"), this);
  referenceLabel->setBuddy(reference_);
  form_->addRow(referenceLabel, referenceRow);
  message_ = new QLabel(this);
  message_->setObjectName(QStringLiteral("runInputsMessage"));
  message_->setWordWrap(true);
  message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_->setStyleSheet(QStringLiteral("color: #c0392b;"));
  message_->hide();
  form_->addRow(message_);

  connect(weights_, &QComboBox::currentIndexChanged, this, [this] { emit changed(); });
  connect(reference_, &QComboBox::currentIndexChanged, this, [this] { emit changed(); });
  connect(loadWeights_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Statistical weights"));
    if (!path.isEmpty()) loadWeights(path);
  });
  connect(loadReference_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Reference volume"));
    if (!path.isEmpty()) loadReference(path);
  });
  // Weights belong to the data set they were read for; the counts arrive after the projections.
  connect(&workspace_, &Workspace::dataSetReplaced, this, [this] {
    fileWeights_.reset();
    fileWeightsName_.clear();
    showMessage({});
    fillWeights(false);
  });
  connect(&workspace_, &Workspace::projectionsChanged, this, [this] { fillWeights(false); });
  connect(&workspace_, &Workspace::countsChanged, this, [this] { fillWeights(true); });
  connect(&workspace_, &Workspace::phantomChanged, this, [this] { fillReferences(true); });
  connect(&workspace_, &Workspace::volumesChanged, this, [this] { fillReferences(false); });
  fillWeights(true);
  fillReferences(true);
  hide();
}

void RunInputsBox::setDescriptor(const catalog::AlgorithmDescriptor& descriptor) {
  takesWeights_ = descriptor.acceptsWeights;
  takesReference_ = descriptor.acceptsReference;
  form_->setRowVisible(0, takesWeights_);
  form_->setRowVisible(1, takesReference_);
  setVisible(takesWeights_ || takesReference_);
}

void RunInputsBox::fillWeights(bool preferCounts) {
  const QString previous = weightsChoice();
  const QSignalBlocker block(weights_);
  weights_->clear();
  weights_->addItem(tr("None: every ray weighs the same"), QStringLiteral("none"));
  const auto& projections = workspace_.projections();
  const auto counts = workspace_.counts();
  if (counts) {
    weights_->addItem(tr("Photon counts of the data"), QStringLiteral("counts"));
    weights_->setItemData(weights_->count() - 1,
                          tr("The counts the data came with (%1)").arg(stackText(*counts)),
                          Qt::ToolTipRole);
  }
  if (fileWeights_) {
    weights_->addItem(fileWeightsName_, QStringLiteral("file"));
    weights_->setItemData(weights_->count() - 1, tr("Read from %1").arg(fileWeightsName_),
                          Qt::ToolTipRole);
  }
  // Keep the choice; new counts (new data) are chosen: weighting by them is what PWLS is for.
  int index = preferCounts ? weights_->findData(QStringLiteral("counts")) : -1;
  if (index < 0) index = weights_->findData(previous);
  weights_->setCurrentIndex(std::max(index, 0));
  loadWeights_->setEnabled(projections != nullptr);
  if (weightsChoice() != previous) emit changed();
}

void RunInputsBox::fillReferences(bool preferPhantom) {
  const QString previousChoice = referenceChoice();
  const ReferenceEntry* previous = chosenReference();
  const std::shared_ptr<const Volume> previousVolume = previous ? previous->volume : nullptr;
  references_.clear();
  if (workspace_.phantom())
    references_.push_back({QStringLiteral("phantom"),
                           tr("Phantom of the demo (%1)")
                               .arg(workspace_.phantomName().isEmpty() ? tr("voxelised on the grid")
                                                                       : workspace_.phantomName()),
                           nullptr});
  for (const NamedVolume& v : workspace_.volumes())
    if (v.volume)
      references_.push_back({QStringLiteral("volume"),
                             tr("%1 (%2)").arg(v.name, shapeText(v.volume->shape())), v.volume});
  for (const ReferenceEntry& e : fileReferences_) references_.push_back(e);

  const QSignalBlocker block(reference_);
  reference_->clear();
  reference_->addItem(tr("None"), QStringLiteral("none"));
  for (const ReferenceEntry& e : references_) reference_->addItem(e.label, e.choice);
  // Keep the volume chosen; a new phantom (new demo data) is chosen: the truth RMSE is against.
  int index = preferPhantom && workspace_.phantom() ? 1 : -1;
  for (std::size_t i = 0; index < 0 && i < references_.size(); ++i)
    if ((previousVolume && references_[i].volume == previousVolume) ||
        (!previousVolume && previousChoice == references_[i].choice))
      index = static_cast<int>(i) + 1;
  reference_->setCurrentIndex(std::max(index, 0));
  if (referenceChoice() != previousChoice) emit changed();
}

QString RunInputsBox::weightsChoice() const {
  return weights_->currentData().toString();
}

bool RunInputsBox::chooseWeights(const QString& choice) {
  const int index = weights_->findData(choice);
  if (index < 0) return false;
  weights_->setCurrentIndex(index);
  return true;
}

QString RunInputsBox::weightsText() const {
  const QString choice = weightsChoice();
  if (choice == QStringLiteral("counts")) return tr("photon counts of the data");
  if (choice == QStringLiteral("file")) return fileWeightsName_;
  return tr("none");
}

bool RunInputsBox::loadWeights(const QString& path, QString* error) {
  const auto& projections = workspace_.projections();
  QString why;
  if (!projections) {
    why = tr("%1: open the projections it weights first").arg(QFileInfo(path).fileName());
  } else {
    try {
      fileWeights_ = std::make_shared<const ProjectionStack>(
          io::readCountsAsWeights(path.toStdString(), *projections));
      fileWeightsName_ = QFileInfo(path).fileName();
    } catch (const std::exception& e) {
      // The readers name the file; say which file was asked for if one does not.
      why = QString::fromStdString(e.what());
      if (!why.contains(QFileInfo(path).fileName()))
        why = tr("%1: %2").arg(QDir::toNativeSeparators(path), why);
    }
  }
  if (!why.isEmpty()) {
    showMessage(tr("Weights not loaded: %1").arg(why));
    if (error != nullptr) *error = why;
    return false;
  }
  showMessage({});
  fillWeights(false);
  chooseWeights(QStringLiteral("file"));
  emit changed();
  return true;
}

QString RunInputsBox::referenceChoice() const {
  return reference_->currentData().toString();
}

bool RunInputsBox::chooseReference(const QString& choice) {
  const int index = reference_->findData(choice);
  if (index < 0) return false;
  reference_->setCurrentIndex(index);
  return true;
}

bool RunInputsBox::loadReference(const QString& path, QString* error) {
  try {
    auto volume = std::make_shared<const Volume>(io::readVolume(path.toStdString()));
    const QString name = QFileInfo(path).fileName();
    fileReferences_.push_back(
        {QStringLiteral("file"), tr("%1 (%2)").arg(name, shapeText(volume->shape())), volume});
  } catch (const std::exception& e) {
    QString why = QString::fromStdString(e.what());
    if (!why.contains(QFileInfo(path).fileName()))
      why = tr("%1: %2").arg(QDir::toNativeSeparators(path), why);
    showMessage(tr("Reference not loaded: %1").arg(why));
    if (error != nullptr) *error = why;
    return false;
  }
  showMessage({});
  fillReferences(false);
  reference_->setCurrentIndex(reference_->count() - 1);  // the file just read
  emit changed();
  return true;
}

const RunInputsBox::ReferenceEntry* RunInputsBox::chosenReference() const {
  const int i = reference_->currentIndex() - 1;
  return i >= 0 && i < static_cast<int>(references_.size()) ? &references_[std::size_t(i)]
                                                            : nullptr;
}

QString RunInputsBox::problem(const VolumeGrid& grid) const {
  if (takesWeights_ && weightsChoice() != QStringLiteral("none")) {
    const auto& projections = workspace_.projections();
    const auto weights =
        weightsChoice() == QStringLiteral("file") ? fileWeights_ : workspace_.counts();
    if (projections && weights && !sameShape(*weights, *projections))
      return tr("The weights (%1) are %2, the projections %3: load weights for these "
                "projections or choose none.")
          .arg(weightsText(), stackText(*weights), stackText(*projections));
  }
  if (takesReference_)
    if (const ReferenceEntry* r = chosenReference(); r != nullptr && r->volume)
      if (r->volume->shape() != grid.shape)
        return tr("The reference volume is %1 voxels, the grid %2: choose a reference on the "
                  "run's grid or none.")
            .arg(shapeText(r->volume->shape()), shapeText(grid.shape));
  return {};
}

std::shared_ptr<const Volume> RunInputsBox::phantomOn(const VolumeGrid& grid) const {
  const auto& phantom = workspace_.phantom();
  if (!phantom) return nullptr;
  const bool same = phantomVolume_ && phantomOf_ == phantom.get() &&
                    phantomVolume_->shape() == grid.shape &&
                    phantomVolume_->voxelSizeMm() == grid.voxelSizeMm &&
                    phantomVolume_->originMm() == grid.originMm;
  if (!same) {
    const int supersample = grid.shape.voxelCount() <= kSupersampledVoxels ? 2 : 1;
    phantomVolume_ = std::make_shared<const Volume>(phantom::voxelisePhantom(
        *phantom, grid.shape, grid.voxelSizeMm, grid.originMm, supersample));
    phantomOf_ = phantom.get();
  }
  return phantomVolume_;
}

void RunInputsBox::fill(catalog::JobInputs& inputs, const VolumeGrid& grid) const {
  if (takesWeights_) {
    const QString choice = weightsChoice();
    inputs.weights = choice == QStringLiteral("counts") ? workspace_.counts()
                     : choice == QStringLiteral("file") ? fileWeights_
                                                        : nullptr;
  }
  if (takesReference_)
    if (const ReferenceEntry* r = chosenReference())
      inputs.reference = r->volume ? r->volume : phantomOn(grid);
}

QString RunInputsBox::message() const {
  return message_->text();
}

void RunInputsBox::showMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(!text.isEmpty());
}

}  // namespace tomowb::gui
