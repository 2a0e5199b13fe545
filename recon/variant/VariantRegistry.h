// The kernel-variant registry: every backprojector (CPU or GPU) has a stable name such as
// "fdk.bp.cpu", a one-line description and its tunables, and is chosen by name from the CLI and
// the GUI; runs record which one they used. Variants are registered explicitly in
// recon/catalog/registerBuiltins.cpp (one line each), never through static initialisers; main()
// installs that composition root (VariantRegistry::installBuiltins).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/PendingVolume.h"
#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"
#include "recon/variant/AccuracyClass.h"

namespace tomowb {

namespace op {
class ProjectorPair;
struct ProjectorProblem;
}  // namespace op

namespace pet {
struct DirectProblem;
}  // namespace pet

namespace fdk {
class FdkWeightPlan;
struct FdkParams;
struct FdkReport;
}  // namespace fdk

struct Tunable {
  std::string name;
  std::string defaultValue;
  std::string description;
};

// Adds the backprojection of weighted, filtered projections into the volume (1/w^2 weight for
// cone beams, bilinear sampling, zero outside the detector).
using FdkBackprojectFn =
    std::function<void(const ProjectionStack& filtered, Volume& volume, JobContext& context)>;

// A whole FDK run (weighting, filtering and backprojection) on the variant's device: GPU
// variants filter on the GPU and stream the data (recon/fdk/cuda/GpuFdk.h). The caller starts the
// zero-filled host volume's allocation (PendingVolume), which the function waits for only when it
// first writes to it: allocation and device work overlap. The function fills the report's device,
// kernel and timing fields.
using FdkReconstructFn =
    std::function<void(const ProjectionStack& projections, const fdk::FdkWeightPlan& plan,
                       const fdk::FdkParams& params, PendingVolume& volume, JobContext& context,
                       fdk::FdkReport& report)>;

// Iterative algorithms' projectors ("et.fp." and "et.bp." families; recon/iterative). A forward
// projector overwrites the listed views of the stack (all if the list is empty) with the
// projections of the volume; a backprojector adds the backprojection of the listed views into the
// volume. GPU variants move the data themselves.
using ForwardProjectFn =
    std::function<void(const Volume& volume, ProjectionStack& projections,
                       std::span<const std::int64_t> views, JobContext& context)>;
using BackprojectViewsFn =
    std::function<void(const ProjectionStack& projections, Volume& volume,
                       std::span<const std::int64_t> views, JobContext& context)>;

// What a variant is for. The role decides which function it provides and where it may be used:
// the registry checks the pairing on add(), and callers ask by role, never by a name prefix.
enum class VariantRole {
  Unset,             // refused by VariantRegistry::add
  FdkBackprojector,  // backproject (+ reconstruct on a GPU): FDK, FBP and WBP
  ForwardProjector,  // forwardProject: A of a projector pair (the iterative algorithms)
  Backprojector,     // backprojectViews: B of a projector pair (adjointOf: A^T of which A)
  // DIRECT TOF-PET (recon/pet/): bindDirectPair over per-view histo-images, model "direct".
  PetForwardProjector,
  PetBackprojector,  // adjointOf: the DIRECT forward projector it is the transpose of
};
std::string toString(VariantRole role);  // "FDK backprojector", "forward projector", ...

enum class VariantDevice { Cpu, Gpu };

struct KernelVariant {
  std::string name;  // stable: "fdk.bp.cpu"
  VariantRole role = VariantRole::Unset;
  std::string description;  // one line
  std::vector<Tunable> tunables;
  bool needsGpu = false;
  FdkBackprojectFn backproject;     // set for the "fdk.bp." family
  FdkReconstructFn reconstruct;     // GPU variants: the whole FDK on the device (else CPU filter)
  ForwardProjectFn forwardProject;  // set for the "et.fp." family
  BackprojectViewsFn backprojectViews;  // set for the "et.bp." family
  // For "et.bp." variants: true if it is the exact transpose of the forward projector named
  // here (a matched pair passes the adjoint test); empty for an unmatched backprojector.
  std::string adjointOf;
  // Projectors (et.fp., et.bp.): the model they discretise ("joseph": ray-driven with slice
  // interpolation; "voxel": voxel-driven with detector interpolation). A pair of one model can be
  // matched; the adjoint test and the sweeps group by it.
  std::string model;
  // Projectors: why this projector cannot work on a geometry and grid (e.g. a GPU kernel for
  // parallel beams only), or nothing when it can. Unset: it takes any.
  std::function<std::optional<std::string>(const Geometry& geometry, const VolumeGrid& grid)>
      supports;
  // Projectors that can keep a problem resident on a device: binds `forward` with `back` into a
  // device pair (recon/operator/ProjectorPair.h), or returns null when that pair cannot be
  // resident (another family's partner, not enough device memory: the reason in `why`), and the
  // pair then runs on host arrays through forwardProject / backprojectViews. Unset: host only.
  std::function<std::unique_ptr<op::ProjectorPair>(
      const KernelVariant& forward, const KernelVariant& back, const op::ProjectorProblem& problem,
      std::string& why)>
      bindDevicePair;
  // Projectors: a forward projector and a backprojector that both set this run SIRT, OS-SIRT and
  // SART fused on the device, data resident, the residual and the update inside the kernels'
  // epilogues (recon/iterative/cuda/FusedSirt.h: the GPU parallel-beam pair's fast path); the
  // ordered-subset solver over bindDevicePair is the general path.
  bool fusedSirt = false;
  // DIRECT projectors (PetForwardProjector, PetBackprojector): binds `forward` with `back` into a
  // pair over the problem's histo-images (recon/pet/DirectPair.h), or returns null with the
  // reason in `why` (a partner it cannot run with, a GPU that is not there, memory). The forward
  // projector's function binds; both carry it.
  std::function<std::unique_ptr<op::ProjectorPair>(
      const KernelVariant& forward, const KernelVariant& back, const pet::DirectProblem& problem,
      std::string& why)>
      bindDirectPair;
  // What agreement with the CPU float64 reference it promises (recon/variant/AccuracyClass.h): the
  // compare view and `tomowb-cli compare` / `sweep` judge it against that class's tolerance.
  qa::AccuracyClass accuracyClass = qa::AccuracyClass::Exact;
};

// Why `variant` cannot take this geometry and grid (its supports()), or nothing when it can or
// has no supports(). A supports() that throws a tomowb::Error (a geometry it cannot even analyse,
// such as a view without a projection matrix) refuses with the error's message: asking never
// fails, so lists of variants (the window's projector choice) can always be filled.
std::optional<std::string> refusalOf(const KernelVariant& variant, const Geometry& geometry,
                                     const VolumeGrid& grid);

class VariantRegistry {
 public:
  // Throws ParameterError on a duplicate name, an unset role, or a role without its function
  // (an FDK backprojector without backproject, a projector with adjointOf...).
  void add(KernelVariant variant);
  const KernelVariant* find(std::string_view name) const;
  // Throws ParameterError listing the registered names if `name` is unknown.
  const KernelVariant& require(std::string_view name) const;
  // Variants of one role, in registration order.
  std::vector<const KernelVariant*> withRole(VariantRole role) const;
  // The variant a run of this role gets on this device when the user names none: FDK
  // fdk.bp.cpu / fdk.bp.fast; projector pairs et.fp.cpu + et.bp.cpu-voxel on the CPU and
  // et.fp.fast + et.bp.fast on the GPU, or the matched pairs (et.bp.cpu-matched, et.fp.matched +
  // et.bp.matched) when `matched`; DIRECT direct.fp.cpu + direct.bp.cpu on the CPU and
  // direct.fp.gather-reg + direct.bp.gather-reg on the GPU. The one place this policy lives. Throws
  // ParameterError when this registry has no such variant (a build without CUDA asked for a GPU
  // default).
  const KernelVariant& defaultFor(VariantRole role, VariantDevice device,
                                  bool matched = false) const;
  // The default for a problem: defaultFor(role, device, matched) when its supports() takes the
  // geometry and grid; otherwise the role's CPU default (FDK on a helical orbit, which the GPU
  // FDK kernels refuse, runs fdk.bp.cpu), with the refusal in `fellBack` (left empty when the
  // device's default takes it). ParameterError naming the refusals when neither takes it.
  const KernelVariant& defaultFor(VariantRole role, VariantDevice device, const Geometry& geometry,
                                  const VolumeGrid& grid, std::string* fellBack,
                                  bool matched = false) const;
  // The accuracy yardstick of a role, a CPU variant summing in float64 that every other variant
  // of the role is compared with (QA's golden re-run, the sweeps, the compare view): FDK
  // fdk.bp.cpu-f64; projector pairs et.fp.cpu + et.bp.cpu-matched (its exact transpose); DIRECT
  // direct.fp.cpu + direct.bp.cpu.
  // ParameterError when this registry has none.
  const KernelVariant& referenceFor(VariantRole role) const;
  // The yardstick of a projector role within one model ("siddon", "joseph"): the CPU matched pair
  // of that model (its forward projector, or the backprojector that is its exact transpose), so a
  // pair of another discretisation is judged against its own model and not against Joseph's; the
  // role's referenceFor(role) when the model has no CPU matched pair or `model` is empty.
  const KernelVariant& referenceFor(VariantRole role, std::string_view model) const;
  const std::vector<KernelVariant>& all() const noexcept { return variants_; }

  // The process-wide registry with the built-in variants, filled on first use (thread-safe) by
  // the function the process's composition root installed: main() calls
  // catalog::installBuiltinVariants() (recon/catalog/Builtins.h) first thing, so this layer never
  // calls up into the families that register themselves. Throws std::logic_error when nothing
  // was installed.
  static const VariantRegistry& builtins();
  using Filler = void (*)(VariantRegistry& registry);
  // Sets the function builtins() fills the registry with; call it before the first builtins().
  static void installBuiltins(Filler fill) noexcept;

 private:
  std::vector<KernelVariant> variants_;
};

}  // namespace tomowb
