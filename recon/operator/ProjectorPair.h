// Projector pairs (architecture-next.md, seam 1): a forward projector A and a backprojector B
// (A's exact transpose for a matched pair, an approximation of it otherwise) bound once to one
// problem: the geometry, the reconstruction grid, the devices and the tunables. Binding builds
// whatever the kernels need (view tables, textures, constant banks); then forward() and
// adjoint() run per view subset on the pair's own arrays (host or device memory), so a solver
// uploads the measured data once and never moves an iterate between iterations.
//
// Every solver (recon/iterative/) talks to a pair only through this interface and its ArrayOps;
// a new projector pair registered in the variant registry is thus available to SIRT, OS-SIRT,
// SART, CGLS, the CLI, the window, the sweeps and the adjoint test without another edit.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "recon/core/GpuRunOptions.h"
#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ArrayOps.h"

namespace tomowb {
class VariantRegistry;
struct KernelVariant;
}  // namespace tomowb

namespace tomowb::op {

// What a pair is bound to. The geometry must outlive the pair.
struct ProjectorProblem {
  const Geometry* geometry = nullptr;
  VolumeGrid grid;
  GpuRunOptions gpu;  // GPU pairs: the device (the first listed), memory limit, tunables
};

class ProjectorPair {
 public:
  virtual ~ProjectorPair() = default;

  virtual const std::string& forwardName() const noexcept = 0;
  virtual const std::string& adjointName() const noexcept = 0;
  // True when the backprojector is registered as the exact transpose of the forward projector.
  virtual bool matched() const noexcept = 0;
  virtual std::string device() const = 0;  // "CPU, 16 threads", "GPU", "GPU and CPU, 16 threads"
  virtual const ArrayOps& ops() const noexcept = 0;
  virtual const ProjectorProblem& problem() const noexcept = 0;

  // Zero-filled arrays of the problem's shapes, in the pair's memory space.
  virtual std::unique_ptr<Array> makeVolume() const = 0;
  virtual std::unique_ptr<Array> makeProjections() const = 0;
  // The caller's data in the pair's memory space: host pairs borrow it (no copy; it must outlive
  // the array), device pairs upload it once. ParameterError if the shape differs.
  virtual std::unique_ptr<const Array> useVolume(const Volume& volume) const = 0;
  virtual std::unique_ptr<const Array> useProjections(const ProjectionStack& stack) const = 0;
  // The volume an array holds, on the host (moved out of a host array, downloaded otherwise).
  virtual Volume takeVolume(std::unique_ptr<Array> volume) const = 0;

  // Overwrites the listed views of `projections` (every view if `views` is empty) with A x.
  virtual void forward(const Array& volume, Array& projections, std::span<const std::int64_t> views,
                       JobContext& context) = 0;
  // Adds B y of the listed views of `projections` (every view if empty) into `volume`.
  virtual void adjoint(const Array& projections, Array& volume, std::span<const std::int64_t> views,
                       JobContext& context) = 0;

  // The projection arrays' layout, for ArrayOps' per-view operations: [view][row][col] of the
  // geometry's detector on the host; a device pair may hold fewer rows per view (the rows its
  // slices see).
  virtual ViewSelection select(std::span<const std::int64_t> views) const noexcept;
};

// Why the registered projectors `forwardName` and `adjointName` cannot be bound to this problem
// (not a forward projector, not a backprojector, a geometry a GPU kernel does not handle...), or
// nothing when they can.
std::optional<std::string> whyNotSupported(const VariantRegistry& registry,
                                           const std::string& forwardName,
                                           const std::string& adjointName,
                                           const ProjectorProblem& problem);

// Binds two registered projectors into a pair. Throws ParameterError naming the projector and the
// reason (whyNotSupported) when they cannot.
std::unique_ptr<ProjectorPair> bindProjectorPair(const VariantRegistry& registry,
                                                 const std::string& forwardName,
                                                 const std::string& adjointName,
                                                 const ProjectorProblem& problem);

}  // namespace tomowb::op
