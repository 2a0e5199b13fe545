#include "recon/qa/HealthChecks.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "recon/core/Error.h"
#include "recon/data/ProjectionStack.h"
#include "recon/operator/AdjointTest.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::qa {

std::string DeterminismReport::summary() const {
  char b[160];
  if (bitIdentical())
    std::snprintf(b, sizeof b, "bit-identical over %d runs", runs);
  else
    std::snprintf(b, sizeof b, "%lld of %lld voxels differ between %d runs (max |diff| %.3g)",
                  static_cast<long long>(differingVoxels), static_cast<long long>(voxels), runs,
                  maxAbsDifference);
  return b;
}

void DeterminismCheck::add(const Volume& volume) {
  ++report_.runs;
  if (report_.runs == 1) {
    first_ = Volume(volume.shape(), volume.voxelSizeMm(), volume.originMm());
    std::memcpy(first_.data(), volume.data(), sizeof(float) * volume.voxelCount());
    report_.voxels = volume.voxelCount();
    return;
  }
  if (!(volume.shape() == first_.shape()))
    throw ParameterError("determinism", "a repeat run gave another volume shape");
  std::int64_t differing = 0;
  double worst = 0;
  for (std::int64_t i = 0; i < volume.voxelCount(); ++i) {
    const float a = first_.data()[i], b = volume.data()[i];
    if (std::memcmp(&a, &b, sizeof a) != 0) {
      ++differing;
      worst = std::max(worst, std::abs(static_cast<double>(a) - b));
    }
  }
  report_.differingVoxels = std::max(report_.differingVoxels, differing);
  report_.maxAbsDifference = std::max(report_.maxAbsDifference, worst);
}

DeterminismReport checkDeterminism(const std::function<Volume(JobContext&)>& run, int runs,
                                   JobContext& context) {
  if (runs < 2) throw ParameterError("runs", "determinism needs at least 2 runs");
  DeterminismCheck check;
  for (int i = 0; i < runs; ++i) {
    context.throwIfCancelled();
    check.add(run(context));
  }
  return check.report();
}

std::string AdjointReport::summary() const {
  char b[200];
  std::snprintf(b, sizeof b, "<Ax,y> = %.9g, <x,A'y> = %.9g, relative error %.2g (%s / %s)",
                forwardDot, backDot, relativeError, forward.c_str(), back.c_str());
  return b;
}

AdjointReport adjointTest(const std::string& forwardVariant, const std::string& backVariant,
                          const Geometry& geometry, const Volume& grid, std::uint64_t seed,
                          JobContext& context) {
  const std::unique_ptr<op::ProjectorPair> pair =
      op::bindProjectorPair(VariantRegistry::builtins(), forwardVariant, backVariant,
                            {&geometry, VolumeGrid::of(grid), {}});
  const op::AdjointCheck check = op::checkAdjoint(*pair, seed, context);
  AdjointReport r;
  r.forward = forwardVariant;
  r.back = backVariant;
  r.forwardDot = check.forwardDot;
  r.backDot = check.backDot;
  r.relativeError = check.relativeError;
  return r;
}

nlohmann::json toJson(const DeterminismReport& r) {
  return {{"runs", r.runs},
          {"voxels", r.voxels},
          {"differingVoxels", r.differingVoxels},
          {"maxAbsDifference", r.maxAbsDifference},
          {"bitIdentical", r.bitIdentical()},
          {"summary", r.summary()}};
}

nlohmann::json toJson(const AdjointReport& r) {
  return {{"forward", r.forward},
          {"back", r.back},
          {"forwardDot", r.forwardDot},
          {"backDot", r.backDot},
          {"relativeError", r.relativeError},
          {"summary", r.summary()}};
}

}  // namespace tomowb::qa
