#include "recon/io/dicom/DicomGeometry.h"

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>

namespace tomowb::io::dicom {

namespace {

// Columns are the LPS directions of world x, y and z.
Eigen::Matrix3d columns(const Eigen::Vector3d& x, const Eigen::Vector3d& y,
                        const Eigen::Vector3d& z) {
  Eigen::Matrix3d m;
  m.col(0) = x;
  m.col(1) = y;
  m.col(2) = z;
  return m;
}

constexpr double kAxisTolerance = 1e-4;

}  // namespace

Eigen::Matrix3d worldToPatient(PatientPosition position) {
  const Eigen::Vector3d left(1, 0, 0), posterior(0, 1, 0), superior(0, 0, 1);
  switch (position) {
    case PatientPosition::HFS:
      return columns(left, posterior, superior);
    case PatientPosition::HFP:
      return columns(-left, -posterior, superior);
    case PatientPosition::FFS:
      return columns(-left, posterior, -superior);
    case PatientPosition::FFP:
      return columns(left, -posterior, -superior);
    // Decubitus: the named side lies on the table, which is world +y.
    case PatientPosition::HFDL:
      return columns(-posterior, left, superior);
    case PatientPosition::HFDR:
      return columns(posterior, -left, superior);
    case PatientPosition::FFDL:
      return columns(posterior, left, -superior);
    case PatientPosition::FFDR:
      return columns(-posterior, -left, -superior);
  }
  return Eigen::Matrix3d::Identity();
}

DicomSliceGeometry sliceGeometry(const Volume& volume, PatientPosition position,
                                 std::int64_t firstX, std::int64_t firstY, std::int64_t firstZ) {
  const Eigen::Matrix3d m = worldToPatient(position);
  DicomSliceGeometry g;
  g.rowDirection = m.col(0);
  g.columnDirection = m.col(1);
  g.normal = g.rowDirection.cross(g.columnDirection);
  g.firstVoxelLps =
      m * volume.worldPosition(static_cast<double>(firstX), static_cast<double>(firstY),
                               static_cast<double>(firstZ));
  g.columnSpacingMm = volume.voxelSizeMm().x();
  g.rowSpacingMm = volume.voxelSizeMm().y();
  g.sliceSpacingMm = volume.voxelSizeMm().z();
  return g;
}

std::optional<WorldGridFromDicom> worldGridFromDicom(const Eigen::Vector3d& rowDirection,
                                                     const Eigen::Vector3d& columnDirection,
                                                     const Eigen::Vector3d& firstVoxelLps,
                                                     const Eigen::Vector3d& fileSpacingMm,
                                                     const Eigen::Vector3d& fileCounts,
                                                     PatientPosition position) {
  const Eigen::Matrix3d m = worldToPatient(position);
  const Eigen::Vector3d normal = rowDirection.cross(columnDirection);
  const Eigen::Vector3d fileAxesLps[3] = {rowDirection, columnDirection, normal};
  WorldGridFromDicom grid;
  bool used[3] = {false, false, false};
  for (int fileAxis = 0; fileAxis < 3; ++fileAxis) {
    const Eigen::Vector3d world = m.transpose() * fileAxesLps[fileAxis];
    int axis = -1;
    for (int k = 0; k < 3; ++k)
      if (std::abs(std::abs(world[k]) - 1.0) < kAxisTolerance) axis = k;
    if (axis < 0 || used[axis]) return std::nullopt;
    for (int k = 0; k < 3; ++k)
      if (k != axis && std::abs(world[k]) > kAxisTolerance) return std::nullopt;
    used[axis] = true;
    grid.fileAxis[axis] = fileAxis;
    grid.reversed[axis] = world[axis] < 0;
    grid.voxelSizeMm[axis] = fileSpacingMm[fileAxis];
  }
  // The world position of volume voxel (0,0,0): the file's last index along reversed axes.
  Eigen::Vector3d lps = firstVoxelLps;
  for (int axis = 0; axis < 3; ++axis) {
    if (!grid.reversed[axis]) continue;
    const int fileAxis = grid.fileAxis[axis];
    lps += (fileCounts[fileAxis] - 1.0) * fileSpacingMm[fileAxis] * fileAxesLps[fileAxis];
  }
  grid.originMm = m.transpose() * lps;
  return grid;
}

std::string formatDecimalString(double value) {
  if (value == 0.0 || !std::isfinite(value)) return "0";
  char buffer[64];
  for (int digits = 17; digits >= 1; --digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (std::char_traits<char>::length(buffer) <= 16) return buffer;
  }
  return "0";
}

}  // namespace tomowb::io::dicom
