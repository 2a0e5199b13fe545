#include "recon/scale/SlabStreamingPair.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/scale/ProjectionRowSource.h"

namespace tomowb::scale {

struct SlabStreamingPair::Bound {
  std::size_t slab = 0;
  Geometry geometry;  // the slab's rows of the detector (cropRows)
  std::unique_ptr<op::ProjectorPair> pair;
  std::unique_ptr<op::Array> volume, projections;
  std::vector<float> staging;  // the band of every view, [view][row][col], on the host
};

namespace {

std::vector<std::int64_t> allViews(std::int64_t count) {
  std::vector<std::int64_t> views(static_cast<std::size_t>(count));
  for (std::int64_t v = 0; v < count; ++v) views[static_cast<std::size_t>(v)] = v;
  return views;
}

}  // namespace

SlabStreamingPair::SlabStreamingPair(const VariantRegistry& registry, std::string forwardName,
                                     std::string adjointName, const op::ProjectorProblem& problem,
                                     std::vector<StreamedSlab> slabs,
                                     std::filesystem::path volumeFolder)
    : registry_(registry),
      forwardName_(std::move(forwardName)),
      adjointName_(std::move(adjointName)),
      problem_(problem),
      slabs_(std::move(slabs)),
      volumeFolder_(std::move(volumeFolder)) {
  if (problem_.geometry == nullptr) throw ParameterError("geometry", "a slab pair needs one");
  std::int64_t next = 0;
  const auto& detector = problem_.geometry->detector();
  for (const StreamedSlab& s : slabs_) {
    if (s.z0 != next || s.z1 <= s.z0 || s.rowFirst < 0 || s.rowLast < s.rowFirst ||
        s.rowLast >= detector.rows)
      throw ParameterError("slabs",
                           "the slabs must cover the grid's slices in order, each with "
                           "rows of the detector");
    next = s.z1;
  }
  if (next != problem_.grid.shape.nz)
    throw ParameterError("slabs", "the slabs must cover every slice of the grid");
  Bound& first = bind(0);  // fails here, not in the first iteration, when the pair cannot bind
  matched_ = first.pair->matched();
  innerDevice_ = first.pair->device();
}

SlabStreamingPair::~SlabStreamingPair() = default;

std::string SlabStreamingPair::device() const {
  return innerDevice_ + ", " + std::to_string(slabs_.size()) + " slabs streamed" +
         (volumeFolder_.empty() ? "" : " (volume on disk in " + volumeFolder_.string() + ")");
}

Volume SlabStreamingPair::makeHostVolume() const {
  std::optional<FileBackedHostBuffers> onDisk;
  if (!volumeFolder_.empty()) onDisk.emplace(volumeFolder_, 1);  // every volume, small ones too
  return problem_.grid.makeVolume();
}

std::unique_ptr<op::Array> SlabStreamingPair::makeVolume() const {
  return std::make_unique<op::HostVolumeArray>(makeHostVolume());
}

std::unique_ptr<op::Array> SlabStreamingPair::makeProjections() const {
  return std::make_unique<op::HostProjectionArray>(ProjectionStack(*problem_.geometry));
}

std::unique_ptr<const op::Array> SlabStreamingPair::useVolume(const Volume& volume) const {
  if (volume.shape() != problem_.grid.shape)
    throw ParameterError("volume", "its shape differs from the reconstruction grid's");
  return std::make_unique<op::HostVolumeArray>(&volume);
}

std::unique_ptr<const op::Array> SlabStreamingPair::useProjections(
    const ProjectionStack& stack) const {
  const auto& d = problem_.geometry->detector();
  if (stack.viewCount() != problem_.geometry->viewCount() || stack.rows() != d.rows ||
      stack.cols() != d.cols)
    throw ParameterError("projections", "their shape differs from the geometry's");
  return std::make_unique<op::HostProjectionArray>(&stack);
}

Volume SlabStreamingPair::takeVolume(std::unique_ptr<op::Array> volume) const {
  return std::move(dynamic_cast<op::HostVolumeArray&>(*volume)).take();
}

SlabStreamingPair::Bound& SlabStreamingPair::bind(std::size_t slab) {
  if (bound_ && bound_->slab == slab) return *bound_;
  bound_.reset();  // the GPU holds one slab's arrays at a time
  const StreamedSlab& s = slabs_[slab];
  auto b = std::make_unique<Bound>();
  b->slab = slab;
  b->geometry = cropRows(*problem_.geometry, s.rowFirst, s.rowLast);
  VolumeGrid grid = problem_.grid;
  grid.shape.nz = s.z1 - s.z0;
  grid.originMm.z() = problem_.grid.originMm.z() + double(s.z0) * problem_.grid.voxelSizeMm.z();
  const op::ProjectorProblem problem{&b->geometry, grid, problem_.gpu};
  b->pair = op::bindProjectorPair(registry_, forwardName_, adjointName_, problem);
  b->volume = b->pair->makeVolume();
  b->projections = b->pair->makeProjections();
  const std::int64_t cols = problem_.geometry->detector().cols;
  const std::int64_t perView = (s.rowLast - s.rowFirst + 1) * cols;
  if (b->pair->select({}).pixelsPerView != perView)
    throw ParameterError("projector", forwardName_ + " + " + adjointName_ +
                                          " keep only some detector rows of a slab: they cannot "
                                          "stream a volume in slabs");
  b->staging.assign(static_cast<std::size_t>(problem_.geometry->viewCount() * perView), 0.0f);
  bound_ = std::move(b);
  return *bound_;
}

void SlabStreamingPair::forward(const op::Array& volume, op::Array& projections,
                                std::span<const std::int64_t> views, JobContext& context) {
  const std::int64_t viewCount = problem_.geometry->viewCount();
  const std::int64_t rows = problem_.geometry->detector().rows;
  const std::int64_t cols = problem_.geometry->detector().cols;
  const std::vector<std::int64_t> every =
      views.empty() ? allViews(viewCount) : std::vector<std::int64_t>{};
  const std::span<const std::int64_t> listed = views.empty() ? std::span(every) : views;
  const std::size_t slice =
      static_cast<std::size_t>(problem_.grid.shape.nx * problem_.grid.shape.ny);
  float* out = projections.data();
  const auto listedCount = static_cast<std::int64_t>(listed.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < listedCount; ++k)
    std::fill_n(out + listed[std::size_t(k)] * rows * cols, static_cast<std::size_t>(rows * cols),
                0.0f);
  for (std::size_t k = 0; k < slabs_.size(); ++k) {
    context.throwIfCancelled();
    const StreamedSlab& s = slabs_[k];
    Bound& b = bind(k);
    const op::ArrayOps& inner = b.pair->ops();
    inner.upload({volume.data() + static_cast<std::size_t>(s.z0) * slice,
                  static_cast<std::size_t>(s.z1 - s.z0) * slice},
                 *b.volume);
    b.pair->forward(*b.volume, *b.projections, views, context);
    inner.download(*b.projections, b.staging);
    const std::int64_t bandRows = s.rowLast - s.rowFirst + 1;
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < listedCount; ++k) {
      const std::int64_t v = listed[std::size_t(k)];
      const float* from = b.staging.data() + v * bandRows * cols;
      float* to = out + (v * rows + s.rowFirst) * cols;
      for (std::int64_t i = 0; i < bandRows * cols; ++i) to[i] += from[i];
    }
  }
}

void SlabStreamingPair::adjoint(const op::Array& projections, op::Array& volume,
                                std::span<const std::int64_t> views, JobContext& context) {
  const std::int64_t viewCount = problem_.geometry->viewCount();
  const std::int64_t rows = problem_.geometry->detector().rows;
  const std::int64_t cols = problem_.geometry->detector().cols;
  const std::size_t slice =
      static_cast<std::size_t>(problem_.grid.shape.nx * problem_.grid.shape.ny);
  const float* in = projections.data();
  // Last slab first: the forward projection before it ended with it bound (slabs are disjoint,
  // so the order does not change the sums).
  for (std::size_t k = slabs_.size(); k-- > 0;) {
    context.throwIfCancelled();
    const StreamedSlab& s = slabs_[k];
    Bound& b = bind(k);
    const op::ArrayOps& inner = b.pair->ops();
    const std::int64_t bandRows = s.rowLast - s.rowFirst + 1;
#pragma omp parallel for schedule(static)
    for (std::int64_t v = 0; v < viewCount; ++v)
      std::memcpy(b.staging.data() + v * bandRows * cols, in + (v * rows + s.rowFirst) * cols,
                  static_cast<std::size_t>(bandRows * cols) * sizeof(float));
    inner.upload(b.staging, *b.projections);
    const std::span<float> part{volume.data() + static_cast<std::size_t>(s.z0) * slice,
                                static_cast<std::size_t>(s.z1 - s.z0) * slice};
    inner.upload(part, *b.volume);  // the adjoint adds into what the volume holds
    b.pair->adjoint(*b.projections, *b.volume, views, context);
    inner.download(*b.volume, part);
  }
}

}  // namespace tomowb::scale
