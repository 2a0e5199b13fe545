#include "recon/operator/ProjectorPair.h"

#include "recon/core/Error.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::op {

ViewSelection ProjectorPair::select(std::span<const std::int64_t> views) const noexcept {
  const Geometry& g = *problem().geometry;
  return {views, g.viewCount(), g.detector().rows * g.detector().cols};
}

namespace {

// Two registered projectors run on host arrays: the CPU projectors directly, a GPU projector
// through its host-to-host entry (it uploads and downloads per call; a device-resident pair
// registers its own binding).
class HostProjectorPair final : public ProjectorPair {
 public:
  HostProjectorPair(const KernelVariant& forward, const KernelVariant& adjoint,
                    const ProjectorProblem& problem)
      : forward_(forward), adjoint_(adjoint), problem_(problem) {}

  const std::string& forwardName() const noexcept override { return forward_.name; }
  const std::string& adjointName() const noexcept override { return adjoint_.name; }
  bool matched() const noexcept override { return adjoint_.adjointOf == forward_.name; }
  std::string device() const override {
    std::string text = ops_.describe();
    if (forward_.needsGpu && adjoint_.needsGpu)
      text = "GPU";
    else if (forward_.needsGpu || adjoint_.needsGpu)
      text = "GPU and " + text;
    return note_.empty() ? text : text + ", " + note_;
  }
  void setNote(std::string note) { note_ = std::move(note); }
  const ArrayOps& ops() const noexcept override { return ops_; }
  const ProjectorProblem& problem() const noexcept override { return problem_; }

  std::unique_ptr<Array> makeVolume() const override {
    return std::make_unique<HostVolumeArray>(problem_.grid.makeVolume());
  }
  std::unique_ptr<Array> makeProjections() const override {
    return std::make_unique<HostProjectionArray>(ProjectionStack(*problem_.geometry));
  }
  std::unique_ptr<const Array> useVolume(const Volume& volume) const override {
    if (volume.shape() != problem_.grid.shape)
      throw ParameterError("volume", "its shape differs from the reconstruction grid's");
    return std::make_unique<HostVolumeArray>(&volume);
  }
  std::unique_ptr<const Array> useProjections(const ProjectionStack& stack) const override {
    const Geometry& g = *problem_.geometry;
    if (stack.viewCount() != g.viewCount() || stack.rows() != g.detector().rows ||
        stack.cols() != g.detector().cols)
      throw ParameterError("projections", "their shape differs from the geometry's");
    return std::make_unique<HostProjectionArray>(&stack);
  }
  Volume takeVolume(std::unique_ptr<Array> volume) const override {
    return std::move(hostVolume(*volume)).take();
  }

  void forward(const Array& volume, Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override {
    forward_.forwardProject(hostVolume(volume).volume(), hostProjections(projections).stack(),
                            views, context);
  }
  void adjoint(const Array& projections, Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    adjoint_.backprojectViews(hostProjections(projections).stack(), hostVolume(volume).volume(),
                              views, context);
  }

 private:
  static const HostVolumeArray& hostVolume(const Array& a) {
    return dynamic_cast<const HostVolumeArray&>(a);
  }
  static HostVolumeArray& hostVolume(Array& a) { return dynamic_cast<HostVolumeArray&>(a); }
  static const HostProjectionArray& hostProjections(const Array& a) {
    return dynamic_cast<const HostProjectionArray&>(a);
  }
  static HostProjectionArray& hostProjections(Array& a) {
    return dynamic_cast<HostProjectionArray&>(a);
  }

  const KernelVariant& forward_;
  const KernelVariant& adjoint_;
  ProjectorProblem problem_;
  HostArrayOps ops_;
  std::string note_;
};

}  // namespace

std::optional<std::string> whyNotSupported(const VariantRegistry& registry,
                                           const std::string& forwardName,
                                           const std::string& adjointName,
                                           const ProjectorProblem& problem) {
  const KernelVariant* forward = registry.find(forwardName);
  const KernelVariant* adjoint = registry.find(adjointName);
  if (!forward) return "'" + forwardName + "' is not a registered variant";
  if (!adjoint) return "'" + adjointName + "' is not a registered variant";
  if (forward->role != VariantRole::ForwardProjector)
    return "'" + forwardName + "' is not a forward projector (the et.fp. family)";
  if (adjoint->role != VariantRole::Backprojector)
    return "'" + adjointName + "' is not a backprojector (the et.bp. family)";
  if (!problem.geometry) return std::string("the problem has no geometry");
  const VolumeShape& s = problem.grid.shape;
  if (s.nx < 1 || s.ny < 1 || s.nz < 1) return std::string("the reconstruction grid is empty");
  for (const KernelVariant* v : {forward, adjoint})
    if (std::optional<std::string> why = refusalOf(*v, *problem.geometry, problem.grid))
      return v->name + ": " + *why;
  return std::nullopt;
}

std::unique_ptr<ProjectorPair> bindProjectorPair(const VariantRegistry& registry,
                                                 const std::string& forwardName,
                                                 const std::string& adjointName,
                                                 const ProjectorProblem& problem) {
  if (std::optional<std::string> why = whyNotSupported(registry, forwardName, adjointName, problem))
    throw ParameterError("projectors", *why);
  const KernelVariant& forward = registry.require(forwardName);
  const KernelVariant& adjoint = registry.require(adjointName);
  // Both projectors of one device family: resident on the device when it fits.
  if (forward.bindDevicePair && adjoint.bindDevicePair) {
    std::string why;
    if (std::unique_ptr<ProjectorPair> pair =
            forward.bindDevicePair(forward, adjoint, problem, why))
      return pair;
    auto host = std::make_unique<HostProjectorPair>(forward, adjoint, problem);
    host->setNote("not resident on the GPU (" + why + "): data move per projection");
    return host;
  }
  return std::make_unique<HostProjectorPair>(forward, adjoint, problem);
}

}  // namespace tomowb::op
