// The GPU ET family's descriptor table (EtProjectorTable.h) and its registration: one row per
// projector variant (issue #7's kernels, docs/et-gpu.md), registered as forward projectors and
// backprojectors of the parallel-beam pair (GpuEt.h: host-to-host entries, bindGpuEtPair).
#include <optional>

#include "recon/projector/cuda/EtDeviceProjector.h"
#include "recon/projector/cuda/EtProjectorTable.h"
#include "recon/projector/cuda/GpuEt.h"

namespace tomowb::cuda {

namespace etgpu {

namespace {

using qa::AccuracyClass;

// Accuracy classes: the matched pair interpolates in software (float32); the fast kernels read
// half2 texels; the others use the texture unit's linear interpolation (docs/et-gpu.md).
std::vector<EtProjectorRow> builtinRows() {
  const std::vector<Tunable> fastFp = {
      {"fp-texel", kDefaultFpTexel, "slices per texel: float, float2, float4 or half2"},
      {"fp-layers", std::to_string(kDefaultFpLayers), "texels per thread (1, 2 or 4)"},
      {"angles", std::to_string(kDefaultAngles), "consecutive views per block (1-16)"},
      {"segment-planes", std::to_string(kDefaultSegmentPlanes),
       "planes per block-synchronised ray segment (0: none)"},
      {"band-planes", std::to_string(kDefaultBandPlanes),
       "planes per launch, rays walked band by band (-1: whole rays; 0: automatic, " +
           std::to_string(kAutoBandPlanes) + " for slices wider than " +
           std::to_string(kAutoBandAbove) + ")"}};
  const std::vector<Tunable> fastBp = {
      {"bp-texel", kDefaultBpTexel, "rows per texel: float, float2, float4 or half2"},
      {"bp-layers", std::to_string(kDefaultBpLayers), "texels per thread (1, 2, 4 or 8)"},
      {"bp-maxima", std::to_string(kDefaultBpMaxima),
       "1: SIRT's update epilogue also finds max |x| per slice for the next half2 packing"}};
  constexpr VariantRole kFp = VariantRole::ForwardProjector;
  constexpr VariantRole kBp = VariantRole::Backprojector;
  // name, description, tunables, role, model, adjointOf, accuracy, forward kind, back kind
  return {
      {"et.fp.unordered",
       "GPU Joseph FP, seed 004 ordering (a): 16 views x 32 rays spread over the view list and "
       "the detector, hardware bilinear, many slices per launch",
       {},
       kFp,
       "joseph",
       "",
       AccuracyClass::HardwareInterpolation,
       FpKind::Unordered},
      {"et.fp.strips",
       "GPU Joseph FP, seed 004 ordering (b): 32 consecutive rays, views spread",
       {},
       kFp,
       "joseph",
       "",
       AccuracyClass::HardwareInterpolation,
       FpKind::Strips},
      {"et.fp.strips-angles",
       "GPU Joseph FP, seed 004 ordering (c): 16 consecutive views x 32 consecutive rays",
       {},
       kFp,
       "joseph",
       "",
       AccuracyClass::HardwareInterpolation,
       FpKind::StripsAngles},
      {"et.fp.segments",
       "GPU Joseph FP, seed 004 ordering (d): (c) with each ray walked in segments, the block "
       "synchronised between them",
       {{"segments", "8", "segments per ray (1-64)"}},
       kFp,
       "joseph",
       "",
       AccuracyClass::HardwareInterpolation,
       FpKind::Segments},
      {"et.fp.fast",
       "GPU Joseph FP, ours: aligned slices share every coordinate, so one texel carries 2 slices "
       "(half2 layered texture, per-slice scale; float2 / float4 tunable), wide slices in bands",
       fastFp, kFp, "joseph", "", AccuracyClass::HalfPrecision, FpKind::Fast},
      {"et.fp.matched",
       "GPU Joseph FP in software (float32 linear interpolation): the exact transpose of "
       "et.bp.matched",
       {},
       kFp,
       "joseph",
       "",
       AccuracyClass::Exact,
       FpKind::Matched},
      {"et.bp.voxel",
       "GPU voxel-driven backprojection, seed 004 scheme (c): voxel tiles walking consecutive "
       "views, hardware linear interpolation",
       {},
       kBp,
       "voxel",
       "",
       AccuracyClass::HardwareInterpolation,
       FpKind::Fast,
       BpKind::Voxel},
      {"et.bp.fast",
       "GPU voxel-driven backprojection, ours: 2 rows per texel (half2 layered texture, per-row "
       "scale; float2 / float4 tunable), 2 texels per thread",
       fastBp, kBp, "voxel", "", AccuracyClass::HalfPrecision, FpKind::Fast, BpKind::Fast},
      {"et.bp.matched",
       "GPU exact transpose of et.fp.matched (a gather with the Joseph weights, float32): a "
       "matched pair for least-squares SIRT",
       {},
       kBp,
       "joseph",
       "et.fp.matched",
       AccuracyClass::Exact,
       FpKind::Fast,
       BpKind::Matched},
  };
}

}  // namespace

const std::vector<EtProjectorRow>& etProjectorRows() {
  static const std::vector<EtProjectorRow> rows = builtinRows();
  return rows;
}

const EtProjectorRow* findEtProjector(std::string_view name, VariantRole role) {
  for (const EtProjectorRow& row : etProjectorRows())
    if (row.name == name && row.role == role) return &row;
  return nullptr;
}

}  // namespace etgpu

void registerGpuEtVariants(VariantRegistry& r) {
  // The GPU projectors take parallel beams (tilt series and any other parallel geometry).
  const auto parallelBeamsOnly = [](const Geometry& geometry,
                                    const VolumeGrid&) -> std::optional<std::string> {
    if (geometry.beam() == BeamKind::Parallel) return std::nullopt;
    return std::string(
        "the GPU projectors take parallel beams only; use et.fp.cpu and a CPU "
        "backprojector for cone beams");
  };
  for (const etgpu::EtProjectorRow& row : etgpu::etProjectorRows()) {
    KernelVariant v;
    v.name = row.name;
    v.description = row.description;
    v.tunables = row.tunables;
    v.needsGpu = true;
    v.fusedSirt = true;  // recon/iterative/cuda/FusedSirt.h runs SIRT on any two of them
    v.adjointOf = row.adjointOf;
    v.accuracyClass = row.accuracy;
    v.role = row.role;
    v.model = row.model;
    v.supports = parallelBeamsOnly;
    v.bindDevicePair = bindGpuEtPair;
    const std::string name = row.name;
    if (row.role == VariantRole::ForwardProjector)
      v.forwardProject = [name](const Volume& volume, ProjectionStack& projections,
                                std::span<const std::int64_t> views, JobContext& context) {
        forwardProjectOnGpu(name, {}, volume, projections, views, context);
      };
    else
      v.backprojectViews = [name](const ProjectionStack& projections, Volume& volume,
                                  std::span<const std::int64_t> views, JobContext& context) {
        backprojectOnGpu(name, {}, projections, volume, views, context);
      };
    r.add(std::move(v));
  }
}

}  // namespace tomowb::cuda
