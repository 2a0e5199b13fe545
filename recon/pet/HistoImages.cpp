#include "recon/pet/HistoImages.h"

#include <string>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"

namespace tomowb::pet {

HistoImages::HistoImages(const VolumeGrid& grid, const ViewBinning& views)
    : grid_(grid), views_(views) {
  views.validate();
  const VolumeShape& s = grid.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1)
    throw ParameterError("histo-image grid", "every axis must be >= 1");
  const std::uint64_t bytes =
      productOrThrow("histo-image size", {s.nx, s.ny, s.nz, std::int64_t{views.count()}, 4});
  const std::string what = std::to_string(views.count()) + " histo-images of " +
                           std::to_string(s.nx) + "x" + std::to_string(s.ny) + "x" +
                           std::to_string(s.nz);
  checkHostAllocation(bytes, what);
  allocateOrExplain(bytes, what, [&] { values_.resize(static_cast<std::size_t>(bytes / 4)); });
}

std::span<float> HistoImages::view(int v) noexcept {
  const auto n = static_cast<std::size_t>(voxelsPerView());
  return std::span<float>(values_).subspan(static_cast<std::size_t>(v) * n, n);
}

std::span<const float> HistoImages::view(int v) const noexcept {
  const auto n = static_cast<std::size_t>(voxelsPerView());
  return std::span<const float>(values_).subspan(static_cast<std::size_t>(v) * n, n);
}

double HistoImages::total() const noexcept {
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(values_.size()); ++i)
    sum += values_[static_cast<std::size_t>(i)];
  return sum;
}

}  // namespace tomowb::pet
