#include "recon/io/WeightsFile.h"

#include <cmath>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::io {

namespace {

std::string shapeText(std::int64_t views, std::int64_t rows, std::int64_t cols) {
  return std::to_string(views) + " views x " + std::to_string(rows) + " rows x " +
         std::to_string(cols) + " cols";
}

}  // namespace

ProjectionStack readCountsAsWeights(const std::filesystem::path& path,
                                    const ProjectionStack& data) {
  std::int64_t views = 0, rows = 0, cols = 0;
  std::vector<float, HostBufferAllocator<float>> values;
  if (carriesGeometry(path)) {
    ProjectionStack read = readProjections(path);
    views = read.viewCount();
    rows = read.rows();
    cols = read.cols();
    values.assign(read.pixels().begin(), read.pixels().end());
  } else {
    Volume read = readVolume(path);
    views = read.nz();
    rows = read.ny();
    cols = read.nx();
    values = std::move(read).takeVoxels();
  }
  if (views != data.viewCount() || rows != data.rows() || cols != data.cols())
    throw FormatError(path, "holds " + shapeText(views, rows, cols) +
                                " but the projections it weights have " +
                                shapeText(data.viewCount(), data.rows(), data.cols()));
  const std::int64_t perView = rows * cols;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float value = values[i];
    if (std::isfinite(value) && value >= 0.0f) continue;
    const auto index = static_cast<std::int64_t>(i);
    throw FormatError(
        path,
        std::string(std::isfinite(value) ? "a negative count (" : "a count that is not finite (") +
            std::to_string(value) + ") at view " + std::to_string(index / perView) + ", row " +
            std::to_string(index % perView / cols) + ", col " + std::to_string(index % cols) +
            ": weights must be finite and >= 0");
  }
  return ProjectionStack(data.geometry(), std::move(values));
}

}  // namespace tomowb::io
