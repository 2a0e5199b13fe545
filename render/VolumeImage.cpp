// VolumeImage: see the header. The zero-copy wrap ties the Volume's lifetime to the VTK array
// through an information key holding a small vtkObject that owns the shared_ptr.
#include "render/VolumeImage.h"

#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkInformation.h>
#include <vtkInformationObjectBaseKey.h>
#include <vtkObject.h>
#include <vtkObjectFactory.h>
#include <vtkPointData.h>

#include <algorithm>
#include <cassert>
#include <cmath>

#include "recon/core/Error.h"

namespace tomowb::render {

namespace {

// Owns a reference to the volume whose voxels a vtkFloatArray points at.
class VolumeKeeper : public vtkObject {
 public:
  static VolumeKeeper* New();
  vtkTypeMacro(VolumeKeeper, vtkObject);
  std::shared_ptr<const Volume> volume;

 protected:
  VolumeKeeper() = default;
  ~VolumeKeeper() override = default;
};
vtkStandardNewMacro(VolumeKeeper);

vtkInformationObjectBaseKey* keeperKey() {
  // Keys are owned by VTK's key lookup once made; one per process.
  static vtkInformationObjectBaseKey* key =
      vtkInformationObjectBaseKey::MakeKey("TomowbVolumeKeeper", "tomowb::render");
  return key;
}

vtkSmartPointer<vtkFloatArray> wrapVoxels(std::shared_ptr<const Volume> volume) {
  auto array = vtkSmartPointer<vtkFloatArray>::New();
  array->SetName("voxels");
  array->SetNumberOfComponents(1);
  // save = 1: VTK never frees the memory; the keeper below keeps it alive. The const_cast is
  // safe because the images built here feed mappers and readers only.
  array->SetArray(const_cast<float*>(volume->data()), static_cast<vtkIdType>(volume->voxelCount()),
                  1);
  vtkNew<VolumeKeeper> keeper;
  keeper->volume = std::move(volume);
  array->GetInformation()->Set(keeperKey(), keeper);
  return array;
}

double pitchOrOne(const Eigen::Vector3d& step) {
  const double n = step.norm();
  return n > 0.0 && std::isfinite(n) ? n : 1.0;
}

}  // namespace

vtkSmartPointer<vtkImageData> makeImageData(std::shared_ptr<const Volume> volume) {
  assert(volume && !volume->empty());
  auto image = vtkSmartPointer<vtkImageData>::New();
  image->SetDimensions(static_cast<int>(volume->nx()), static_cast<int>(volume->ny()),
                       static_cast<int>(volume->nz()));
  image->SetSpacing(volume->voxelSizeMm().data());
  image->SetOrigin(volume->originMm().data());
  image->GetPointData()->SetScalars(wrapVoxels(std::move(volume)));
  return image;
}

bool sameGrid(vtkImageData* image, const Volume& volume) {
  if (image == nullptr) return false;
  int dims[3];
  image->GetDimensions(dims);
  const double* spacing = image->GetSpacing();
  const double* origin = image->GetOrigin();
  return dims[0] == volume.nx() && dims[1] == volume.ny() && dims[2] == volume.nz() &&
         spacing[0] == volume.voxelSizeMm().x() && spacing[1] == volume.voxelSizeMm().y() &&
         spacing[2] == volume.voxelSizeMm().z() && origin[0] == volume.originMm().x() &&
         origin[1] == volume.originMm().y() && origin[2] == volume.originMm().z();
}

bool sameVolumeGrid(const Volume& a, const Volume& b) {
  return a.shape() == b.shape() && a.voxelSizeMm() == b.voxelSizeMm() &&
         a.originMm() == b.originMm();
}

void swapImageVoxels(vtkImageData* image, std::shared_ptr<const Volume> volume) {
  assert(sameGrid(image, *volume));
  image->GetPointData()->SetScalars(wrapVoxels(std::move(volume)));
  image->Modified();
}

void copySliceInto(vtkImageData* image, const Volume& volume, int axis, std::int64_t index) {
  assert(image != nullptr && axis >= 0 && axis < 3 && !volume.empty());
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  assert(index >= 0 && index < n[axis]);
  int extent[6] = {0, static_cast<int>(n[0] - 1), 0, static_cast<int>(n[1] - 1),
                   0, static_cast<int>(n[2] - 1)};
  const auto lo = static_cast<std::size_t>(2 * axis);
  extent[lo] = extent[lo + 1] = static_cast<int>(index);
  image->SetExtent(extent);
  image->SetSpacing(volume.voxelSizeMm().data());
  image->SetOrigin(volume.originMm().data());
  const std::int64_t count = volume.voxelCount() / n[axis];
  auto* scalars = vtkFloatArray::SafeDownCast(image->GetPointData()->GetScalars());
  if (scalars == nullptr || scalars->GetNumberOfTuples() != count ||
      scalars->GetNumberOfComponents() != 1 || scalars->GetInformation()->Has(keeperKey())) {
    auto fresh = vtkSmartPointer<vtkFloatArray>::New();
    fresh->SetName("slice");
    fresh->SetNumberOfComponents(1);
    fresh->SetNumberOfTuples(count);
    image->GetPointData()->SetScalars(fresh);
    scalars = fresh;
  }
  float* out = scalars->GetPointer(0);
  const std::int64_t nx = n[0], ny = n[1], nz = n[2];
  if (axis == 2) {
    std::copy_n(volume.data() + volume.index(0, 0, index), nx * ny, out);
  } else if (axis == 1) {
    for (std::int64_t z = 0; z < nz; ++z)
      std::copy_n(volume.data() + volume.index(0, index, z), nx, out + z * nx);
  } else {
    // x = index: one voxel per x row, the slow case (rows apart in y, planes apart in z).
#pragma omp parallel for schedule(static) if (ny * nz > 65536)
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = 0; y < ny; ++y) out[z * ny + y] = volume.at(index, y, z);
  }
  scalars->Modified();
  image->Modified();
}

std::shared_ptr<Volume> projectionImage(const ProjectionStack& projections, std::int64_t view) {
  if (view < 0 || view >= projections.viewCount())
    throw ParameterError("projection view", "must be in 0.." +
                                                std::to_string(projections.viewCount() - 1) +
                                                ", got " + std::to_string(view));
  const std::int64_t cols = projections.cols(), rows = projections.rows();
  const auto& v = projections.geometry().view(view);
  const Eigen::Vector3d size(pitchOrOne(v.u), pitchOrOne(v.v), 1.0);
  auto image = std::make_shared<Volume>(Volume::centred({cols, rows, 1}, size));
  const auto pixels = projections.viewPixels(view);
  std::copy(pixels.begin(), pixels.end(), image->data());
  return image;
}

std::shared_ptr<Volume> sinogramImage(const ProjectionStack& projections, std::int64_t row) {
  if (row < 0 || row >= projections.rows())
    throw ParameterError("sinogram row", "must be in 0.." + std::to_string(projections.rows() - 1) +
                                             ", got " + std::to_string(row));
  const std::int64_t cols = projections.cols(), views = projections.viewCount();
  const double pitch = views > 0 ? pitchOrOne(projections.geometry().view(0).u) : 1.0;
  // Square pixels (one view per column pitch): with a y step of 1 per view, a tilt series of
  // 4 nm pixels would be drawn 10^5 times taller than wide.
  auto image = std::make_shared<Volume>(Volume({cols, views, 1}, Eigen::Vector3d(pitch, pitch, 1.0),
                                               Eigen::Vector3d(-0.5 * pitch * (cols - 1), 0, 0)));
  for (std::int64_t view = 0; view < views; ++view) {
    const float* source = projections.data() + projections.index(view, row, 0);
    std::copy(source, source + cols, image->data() + view * cols);
  }
  return image;
}

}  // namespace tomowb::render
