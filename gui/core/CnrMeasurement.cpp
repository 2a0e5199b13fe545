// See the header. Plain loops: an ROI is a few thousand voxels of one slice, measured a few
// times a second at most.
#include "gui/core/CnrMeasurement.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace tomowb::gui {

VoxelListStats voxelListStatistics(const Volume& volume, const std::vector<std::int64_t>& indices) {
  VoxelListStats stats;
  const std::span<const float> voxels = volume.voxels();
  double sum = 0.0;
  for (const std::int64_t i : indices) {
    assert(i >= 0 && i < volume.voxelCount());
    const double v = voxels[static_cast<std::size_t>(i)];
    if (!std::isfinite(v)) {
      ++stats.nonFiniteCount;
      continue;
    }
    sum += v;
    ++stats.count;
  }
  if (stats.count == 0) return stats;
  stats.mean = sum / static_cast<double>(stats.count);
  if (stats.count < 2) return stats;
  double squares = 0.0;
  for (const std::int64_t i : indices) {
    const double v = voxels[static_cast<std::size_t>(i)];
    if (std::isfinite(v)) squares += (v - stats.mean) * (v - stats.mean);
  }
  stats.std = std::sqrt(squares / static_cast<double>(stats.count - 1));
  return stats;
}

CnrFigures computeCnr(const Volume& volume, const std::vector<std::int64_t>& signal,
                      const std::vector<std::int64_t>& background) {
  CnrFigures f;
  f.signal = voxelListStatistics(volume, signal);
  f.background = voxelListStatistics(volume, background);
  f.contrast = f.signal.mean - f.background.mean;
  f.noise = f.background.std;
  if (std::isnan(f.contrast) || std::isnan(f.noise)) return f;
  if (f.noise > 0.0) {
    f.cnr = f.contrast / f.noise;
  } else if (f.contrast != 0.0) {
    f.cnr = std::copysign(std::numeric_limits<double>::infinity(), f.contrast);
  }
  return f;
}

std::vector<CnrRow> measureCnr(const Volume& volume, const std::vector<CnrRegion>& regions) {
  std::vector<std::int64_t> background;
  for (const CnrRegion& r : regions)
    if (r.background) background.insert(background.end(), r.voxels.begin(), r.voxels.end());
  std::sort(background.begin(), background.end());
  background.erase(std::unique(background.begin(), background.end()), background.end());
  bool anyBackground = false;
  for (const CnrRegion& r : regions) anyBackground = anyBackground || r.background;

  std::vector<CnrRow> rows;
  for (const CnrRegion& r : regions) {
    if (r.background) continue;
    CnrRow row;
    row.id = r.id;
    row.label = r.label;
    row.figures = computeCnr(volume, r.voxels, background);
    if (r.voxels.empty()) {
      row.problem = QStringLiteral("ROI outside the volume or smaller than a voxel");
    } else if (!anyBackground) {
      row.problem = QStringLiteral("no background ROI");
    } else if (background.size() < 2) {
      row.problem = QStringLiteral("background ROIs cover fewer than 2 voxels");
    } else if (row.figures.signal.count == 0 || row.figures.background.count < 2) {
      row.problem = QStringLiteral("ROIs hold no finite voxel");
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

QString formatCnr(double cnr) {
  if (std::isnan(cnr)) return QStringLiteral("\u2014");
  if (std::isinf(cnr)) return cnr > 0 ? QStringLiteral("\u221e") : QStringLiteral("\u2212\u221e");
  return QString::number(cnr, 'g', 4);
}

}  // namespace tomowb::gui
