// PetHistoView: see the header.
#include "gui/core/PetHistoView.h"

#include <omp.h>

#include <algorithm>
#include <string>
#include <vector>

#include "recon/core/Error.h"
#include "recon/pet/Deposition.h"
#include "recon/pet/EventGeometry.h"

namespace tomowb::gui {

namespace {
// Events per chunk between two cancel checks: a few ms on one core.
constexpr std::int64_t kChunkEvents = std::int64_t{1} << 18;
}  // namespace

Volume depositPetView(const pet::ScannerModel& scanner, std::span<const pet::ListModeEvent> events,
                      const VolumeGrid& grid, const pet::ViewBinning& views, int view,
                      const JobContext* context) {
  if (view < 0 || view >= views.count())
    throw ParameterError("view", "must be from 0 to " + std::to_string(views.count() - 1));
  const pet::EventGeometryTableSet tableSet(scanner, grid, views);
  const pet::EventGeometryTables& t = tableSet.tables();
  Volume image = grid.makeVolume();
  const auto voxels = static_cast<std::size_t>(grid.shape.voxelCount());
  const auto total = static_cast<std::int64_t>(events.size());
  const int threads = std::max(1, omp_get_max_threads());
  // One partial image per thread (counts: no atomics), summed at the end in thread order.
  std::vector<std::vector<float>> partial(static_cast<std::size_t>(threads));
  for (std::int64_t first = 0; first < total; first += kChunkEvents * threads) {
    if (context != nullptr) context->throwIfCancelled();
    const std::int64_t end = std::min(total, first + kChunkEvents * threads);
#pragma omp parallel num_threads(threads)
    {
      std::vector<float>& mine = partial[static_cast<std::size_t>(omp_get_thread_num())];
      if (mine.empty()) mine.assign(voxels, 0.0f);
#pragma omp for schedule(static)
      for (std::int64_t i = first; i < end; ++i) {
        const pet::ListModeEvent& e = events[static_cast<std::size_t>(i)];
        if ((e.flags & pet::kEventDelayed) != 0) continue;
        const pet::EventPoint p =
            pet::locateEvent(t, e.crystal1, e.ring1, e.crystal2, e.ring2, e.tofLsb);
        if (p.view != view) continue;
        const std::int64_t voxel = pet::nearestVoxel(t, p.x, p.y, p.z);
        if (voxel >= 0) mine[static_cast<std::size_t>(voxel)] += 1.0f;
      }
    }
  }
  float* out = image.data();
  for (const std::vector<float>& mine : partial)
    if (!mine.empty())
      for (std::size_t v = 0; v < voxels; ++v) out[v] += mine[v];
  return image;
}

}  // namespace tomowb::gui
