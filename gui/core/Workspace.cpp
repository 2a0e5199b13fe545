// Workspace: see the header.
#include "gui/core/Workspace.h"

#include <algorithm>
#include <cmath>

#include "gui/core/PetData.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

Workspace::Workspace(QObject* parent) : QObject(parent) {}

void Workspace::setProjections(std::shared_ptr<const ProjectionStack> projections,
                               const QString& name, const QString& sourcePath,
                               const QStringList& warnings) {
  projectionEntries_.clear();
  currentProjections_ = -1;
  if (projections) {
    projectionEntries_.push_back({name, sourcePath, std::move(projections), warnings, {}});
    currentProjections_ = 0;
  }
  ++dataSet_;
  // The previous data's phantom is no truth for these (issue #17: the consistency check once
  // predicted a user's scan from the demo phantom).
  const bool hadPhantom = phantom_ || cnrPhantom_;
  phantom_.reset();
  cnrPhantom_.reset();
  phantomName_.clear();
  waterValuePerMm_.reset();  // the user's water value was for the old data
  emit projectionsChanged();
  emit geometryChanged();
  if (hadPhantom) emit phantomChanged();
  // Projections are a CT or ET data set: PET data, if any, go (a null call from setPetData keeps
  // its own).
  if (!projectionEntries_.empty() && petData_) {
    petData_.reset();
    emit petDataChanged();
  }
  emit dataSetReplaced();
}

void Workspace::setPetData(std::shared_ptr<const PetDataSet> data) {
  if (!data) {
    if (!petData_) return;
    petData_.reset();
    emit petDataChanged();
    return;
  }
  setProjections(nullptr, {});  // a new data set: projections, phantom and ROIs go
  petData_ = std::move(data);
  emit petDataChanged();
}

std::shared_ptr<const ProjectionStack> Workspace::counts() const {
  const NamedProjections* entry = currentEntry();
  return entry != nullptr ? entry->counts : nullptr;
}

void Workspace::setCounts(std::shared_ptr<const ProjectionStack> counts) {
  if (currentProjections_ < 0) return;
  NamedProjections& entry = projectionEntries_[static_cast<std::size_t>(currentProjections_)];
  if (counts &&
      (counts->viewCount() != entry.projections->viewCount() ||
       counts->rows() != entry.projections->rows() || counts->cols() != entry.projections->cols()))
    throw ParameterError("counts", "their shape is not the projections' shape");
  entry.counts = std::move(counts);
  emit countsChanged();
}

bool Workspace::volumeFromCurrentData(const NamedVolume& volume) const {
  if (volume.runId < 0) return true;
  const auto it = runDataSets_.find(volume.runId);
  return it != runDataSets_.end() && it->second == dataSet_;
}

int Workspace::addProjections(NamedProjections entry) {
  projectionEntries_.push_back(std::move(entry));
  currentProjections_ = static_cast<int>(projectionEntries_.size()) - 1;
  emit projectionsChanged();
  emit geometryChanged();
  return currentProjections_;
}

void Workspace::setCurrentProjections(int index) {
  if (index < 0 || index >= static_cast<int>(projectionEntries_.size()) ||
      index == currentProjections_)
    return;
  currentProjections_ = index;
  emit projectionsChanged();
  emit geometryChanged();
}

void Workspace::removeProjections(int index) {
  if (index < 0 || index >= static_cast<int>(projectionEntries_.size())) return;
  projectionEntries_.erase(projectionEntries_.begin() + index);
  const int count = static_cast<int>(projectionEntries_.size());
  if (currentProjections_ > index || currentProjections_ >= count) --currentProjections_;
  if (count == 0) currentProjections_ = -1;
  emit projectionsChanged();
  emit geometryChanged();
}

const NamedProjections* Workspace::currentEntry() const {
  if (currentProjections_ < 0 || currentProjections_ >= static_cast<int>(projectionEntries_.size()))
    return nullptr;
  return &projectionEntries_[static_cast<std::size_t>(currentProjections_)];
}

const std::shared_ptr<const ProjectionStack>& Workspace::projections() const {
  static const std::shared_ptr<const ProjectionStack> none;
  const NamedProjections* entry = currentEntry();
  return entry ? entry->projections : none;
}

QString Workspace::projectionsName() const {
  const NamedProjections* entry = currentEntry();
  return entry ? entry->name : QString();
}

QString Workspace::projectionsPath() const {
  const NamedProjections* entry = currentEntry();
  return entry ? entry->sourcePath : QString();
}

QStringList Workspace::projectionWarnings() const {
  const NamedProjections* entry = currentEntry();
  return entry ? entry->warnings : QStringList();
}

const Geometry* Workspace::geometry() const {
  const NamedProjections* entry = currentEntry();
  if (!entry) return nullptr;
  if (entry->editedGeometry) return &*entry->editedGeometry;
  return entry->projections ? &entry->projections->geometry() : nullptr;
}

void Workspace::setGeometry(const Geometry& geometry) {
  const NamedProjections* entry = currentEntry();
  if (entry && entry->projections) {
    const Geometry& own = entry->projections->geometry();
    if (geometry.viewCount() != own.viewCount())
      throw ParameterError(
          "geometry", "the edited geometry has " + std::to_string(geometry.viewCount()) +
                          " views but the projections have " + std::to_string(own.viewCount()));
    if (geometry.detector().rows != own.detector().rows ||
        geometry.detector().cols != own.detector().cols)
      throw ParameterError(
          "geometry",
          "the edited geometry's detector is " + std::to_string(geometry.detector().cols) + " x " +
              std::to_string(geometry.detector().rows) + " pixels but the projections are " +
              std::to_string(own.detector().cols) + " x " + std::to_string(own.detector().rows));
  }
  // Without projections the edited geometry has nothing to belong to (as before: kept nowhere).
  if (!entry) return;
  projectionEntries_[static_cast<std::size_t>(currentProjections_)].editedGeometry = geometry;
  emit geometryChanged();
}

void Workspace::setPhantom(std::shared_ptr<const phantom::Phantom> phantom, const QString& name) {
  phantom_ = std::move(phantom);
  phantomName_ = name;
  emit phantomChanged();
}

int Workspace::addVolume(NamedVolume volume) {
  volumes_.push_back(std::move(volume));
  const int index = static_cast<int>(volumes_.size()) - 1;
  emit volumesChanged();
  if (current_ < 0) setCurrentVolume(index);
  return index;
}

const NamedVolume* Workspace::currentVolume() const {
  if (current_ < 0 || current_ >= static_cast<int>(volumes_.size())) return nullptr;
  return &volumes_[static_cast<std::size_t>(current_)];
}

void Workspace::setCurrentVolume(int index) {
  if (index < -1 || index >= static_cast<int>(volumes_.size())) return;
  current_ = index;
  emit currentVolumeChanged();
}

void Workspace::removeVolume(int index) {
  if (index < 0 || index >= static_cast<int>(volumes_.size())) return;
  volumes_.erase(volumes_.begin() + index);
  const int before = current_;
  if (current_ == index)
    current_ = volumes_.empty() ? -1 : std::max(0, index - 1);
  else if (current_ > index)
    --current_;
  emit volumesChanged();
  // The entry shown went (or moved): the views follow.
  if (before == index || current_ != before) emit currentVolumeChanged();
}

void Workspace::noteVolumeSaved(const Volume* volume, const QString& path) {
  if (volume == nullptr) return;
  bool changed = false;
  for (NamedVolume& v : volumes_)
    if (v.volume.get() == volume) {
      v.savedPath = path;
      changed = true;
    }
  if (changed) emit volumesChanged();
}

std::vector<int> Workspace::unsavedResultIndices() const {
  std::vector<int> unsaved;
  for (std::size_t i = 0; i < volumes_.size(); ++i) {
    const NamedVolume& v = volumes_[i];
    if (v.runId >= 0 && v.volume && v.sourcePath.isEmpty() && v.savedPath.isEmpty())
      unsaved.push_back(static_cast<int>(i));
  }
  return unsaved;
}

void Workspace::showPreview(std::shared_ptr<const Volume> volume, const QString& label) {
  preview_ = std::move(volume);
  previewLabel_ = label;
  emit previewChanged();
}

void Workspace::clearPreview() {
  if (!preview_) return;
  preview_.reset();
  previewLabel_.clear();
  emit previewChanged();
}

void Workspace::setWaterValuePerMm(std::optional<double> perMm) {
  if (perMm.has_value() && !(*perMm > 0.0 && std::isfinite(*perMm))) perMm.reset();
  if (perMm == waterValuePerMm_) return;
  waterValuePerMm_ = perMm;
  emit waterValueChanged();
}

void Workspace::clear() {
  const bool hadPet = petData_ != nullptr;
  petData_.reset();
  projectionEntries_.clear();
  currentProjections_ = -1;
  phantom_.reset();
  cnrPhantom_.reset();
  phantomName_.clear();
  waterValuePerMm_.reset();
  volumes_.clear();
  current_ = -1;
  preview_.reset();
  ++dataSet_;
  emit projectionsChanged();
  emit geometryChanged();
  emit phantomChanged();
  emit volumesChanged();
  emit currentVolumeChanged();
  emit previewChanged();
  if (hadPet) emit petDataChanged();
  emit dataSetReplaced();
}

}  // namespace tomowb::gui
