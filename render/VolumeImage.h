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

// True when both volumes have the same dimensions, spacing and origin.
bool sameVolumeGrid(const Volume& a, const Volume& b);

// Points the image's scalars at the new volume's voxels (same grid required: see sameGrid) and
// marks the image modified. No copy, no pipeline rebuild: the cheap path for live previews.
void swapImageVoxels(vtkImageData* image, std::shared_ptr<const Volume> volume);

// One slice of `volume` across `axis` (0: x, 1: y, 2: z) at `index`, copied into `image` as a
// one-voxel-thick image at its place in the volume's grid: extent index..index on that axis and
// the volume's spacing and origin, so world coordinates stay those of the whole volume. This is
// what a slice view draws. VTK's slice mapper colours its slice on the CPU at every window/level
// change; read from the whole volume (a YZ slice of 512^3 jumps 1 MiB from voxel to voxel) that
// held a drag to 23 frames per second. `image` keeps its array when the size is unchanged.
void copySliceInto(vtkImageData* image, const Volume& volume, int axis, std::int64_t index);

// One projection as an nz = 1 volume: nx = detector columns, ny = rows, voxel size = the view's
// column and row pitch (mm), centred on the origin (detector coordinates, not world).
std::shared_ptr<Volume> projectionImage(const ProjectionStack& projections, std::int64_t view);

// The sinogram of one detector row as an nz = 1 volume: nx = columns, ny = views. Square pixels
// of the column pitch: y / pitch counts views (y is not a length). Origin (centred column, view 0).
std::shared_ptr<Volume> sinogramImage(const ProjectionStack& projections, std::int64_t row);

}  // namespace tomowb::render
