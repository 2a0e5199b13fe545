#include "recon/data/ProjectionStack.h"

#include <string>
#include <utility>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"

namespace tomowb {

ProjectionStack::ProjectionStack(Geometry geometry) : geometry_(std::move(geometry)) {
  const auto& det = geometry_.detector();
  if (det.cols < 1 || det.rows < 1)
    throw ParameterError("detector", "needs at least one row and one column, got " +
                                         std::to_string(det.cols) + "x" + std::to_string(det.rows));
  if (geometry_.viewCount() < 1) throw ParameterError("geometry", "has no views");
  const std::uint64_t bytes =
      productOrThrow("projection stack size", {geometry_.viewCount(), det.rows, det.cols, 4});
  const std::string what = std::to_string(geometry_.viewCount()) + " projections of " +
                           std::to_string(det.cols) + "x" + std::to_string(det.rows);
  checkHostAllocation(bytes, what);
  allocateOrExplain(bytes, what, [&] {
    pixels_.resize(static_cast<std::size_t>(bytes / 4));  // zeros: HostBufferAllocator
  });
}

ProjectionStack::ProjectionStack(Geometry geometry,
                                 std::vector<float, HostBufferAllocator<float>>&& pixels)
    : geometry_(std::move(geometry)) {
  const auto& det = geometry_.detector();
  if (det.cols < 1 || det.rows < 1 || geometry_.viewCount() < 1 ||
      pixels.size() != static_cast<std::size_t>(productOrThrow(
                           "projection stack size", {geometry_.viewCount(), det.rows, det.cols})))
    throw ParameterError("projections", std::to_string(pixels.size()) + " pixels do not fill " +
                                            std::to_string(geometry_.viewCount()) + " views of " +
                                            std::to_string(det.cols) + "x" +
                                            std::to_string(det.rows));
  pixels_ = std::move(pixels);
}

}  // namespace tomowb
