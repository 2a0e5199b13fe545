// DicomGeometry: the map between the workbench's world axes and DICOM's patient axes (LPS:
// +x to the patient's left, +y posterior, +z superior), chosen by the Patient Position, and the
// slice geometry of an exported grid (docs/dicom.md, "Geometry").
//
// World: right-handed, mm, rotation axis +z (DESIGN.md). With the patient head first and supine
// (HFS) the world axes are the LPS axes. Prone turns the patient 180 degrees about z, feet first
// turns it 180 degrees about y, and decubitus left/right turns it 90 degrees about z so that the
// named side lies on the table (+y, the floor side of supine's posterior). Every map is a
// rotation (determinant +1), so exported images are never mirrored.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>

#include "recon/core/Volume.h"
#include "recon/io/dicom/DicomOptions.h"

namespace tomowb::io::dicom {

// Columns: the LPS direction of world +x, +y and +z.
Eigen::Matrix3d worldToPatient(PatientPosition position);

// The plane geometry DICOM wants for one grid: row direction (direction of increasing column
// index, the volume's x), column direction (the volume's y), the slice normal, the position of
// the first voxel of slice z, and the spacings (mm).
struct DicomSliceGeometry {
  Eigen::Vector3d rowDirection, columnDirection, normal;
  Eigen::Vector3d firstVoxelLps;  // slice 0
  double columnSpacingMm = 1, rowSpacingMm = 1, sliceSpacingMm = 1;
  Eigen::Vector3d positionOfSlice(std::int64_t z) const {
    return firstVoxelLps + static_cast<double>(z) * sliceSpacingMm * normal;
  }
};
DicomSliceGeometry sliceGeometry(const Volume& volume, PatientPosition position,
                                 std::int64_t firstX = 0, std::int64_t firstY = 0,
                                 std::int64_t firstZ = 0);

// The inverse for reading: given the file's row / column directions and the normal's spacing,
// the world grid (axis-aligned after flipping and permuting the file's axes) when the
// directions are a signed permutation of the world axes (within 1e-4), else nothing (oblique).
struct WorldGridFromDicom {
  // For volume axis a (0 = x, 1 = y, 2 = z): which file axis (0 = column index, 1 = row index,
  // 2 = slice index) feeds it, and whether it runs backwards.
  int fileAxis[3] = {0, 1, 2};
  bool reversed[3] = {false, false, false};
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d originMm = Eigen::Vector3d::Zero();
};
std::optional<WorldGridFromDicom> worldGridFromDicom(const Eigen::Vector3d& rowDirection,
                                                     const Eigen::Vector3d& columnDirection,
                                                     const Eigen::Vector3d& firstVoxelLps,
                                                     const Eigen::Vector3d& fileSpacingMm,
                                                     const Eigen::Vector3d& fileCounts,
                                                     PatientPosition position);

// DS (decimal string) values are at most 16 characters: the closest such text to `value`.
std::string formatDecimalString(double value);

}  // namespace tomowb::io::dicom
