// Workspace: see the header.
#include "gui/core/Workspace.h"

#include "recon/core/Error.h"

namespace tomowb::gui {

Workspace::Workspace(QObject* parent) : QObject(parent) {}

void Workspace::setProjections(std::shared_ptr<const ProjectionStack> projections,
                               const QString& name, const QString& sourcePath) {
  projections_ = std::move(projections);
  projectionsName_ = name;
  projectionsPath_ = sourcePath;
  editedGeometry_.reset();
  emit projectionsChanged();
  emit geometryChanged();
}

const Geometry* Workspace::geometry() const {
  if (editedGeometry_) return &*editedGeometry_;
  return projections_ ? &projections_->geometry() : nullptr;
}

void Workspace::setGeometry(const Geometry& geometry) {
  if (projections_) {
    const Geometry& own = projections_->geometry();
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
  editedGeometry_ = geometry;
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

void Workspace::clear() {
  projections_.reset();
  projectionsName_.clear();
  projectionsPath_.clear();
  editedGeometry_.reset();
  phantom_.reset();
  cnrPhantom_.reset();
  phantomName_.clear();
  volumes_.clear();
  current_ = -1;
  preview_.reset();
  emit projectionsChanged();
  emit geometryChanged();
  emit phantomChanged();
  emit volumesChanged();
  emit currentVolumeChanged();
  emit previewChanged();
}

}  // namespace tomowb::gui
