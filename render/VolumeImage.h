// VolumeImage: the bridge from the core's containers to VTK images. A Volume becomes a
// vtkImageData without copying its voxels (the image's scalar array points at the volume's
// memory and keeps the shared_ptr alive for as long as VTK holds the array); spacing is the
// voxel size and origin the centre of voxel (0,0,0), so VTK's world coordinates are the core's
// world mm (DESIGN.md, "Core concepts"). Live previews swap the array of an existing image
// instead of rebuilding pipelines. Projections and sinograms are turned into nz = 1 volumes
// (STYLE.md: 2-D is 3-D with nz = 1), which every slice view can show.
#pragma once

#include <vtkSmartPointer.h>

#include <cstdint>
#include <memory>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"

class vtkImageData;

namespace tomowb::render {

// A vtkImageData sharing the volume's voxels (read-only use: VTK must never write to it).
vtkSmartPointer<vtkImageData> makeImageData(std::shared_ptr<const Volume> volume);

// True when `image` has the volume's dimensions, spacing and origin, so that
// swapImageVoxels() can be used instead of a new image.
bool sameGrid(vtkImageData* image, const Volume& volume);

// Points the image's scalars at the new volume's voxels (same grid required: see sameGrid) and
// marks the image modified. No copy, no pipeline rebuild: the cheap path for live previews.
void swapImageVoxels(vtkImageData* image, std::shared_ptr<const Volume> volume);

// One projection as an nz = 1 volume: nx = detector columns, ny = rows, voxel size = the view's
// column and row pitch (mm), centred on the origin (detector coordinates, not world).
std::shared_ptr<Volume> projectionImage(const ProjectionStack& projections, std::int64_t view);

// The sinogram of one detector row as an nz = 1 volume: nx = columns, ny = views. Square pixels
// of the column pitch: y / pitch counts views (y is not a length). Origin (centred column, view 0).
std::shared_ptr<Volume> sinogramImage(const ProjectionStack& projections, std::int64_t row);

}  // namespace tomowb::render
