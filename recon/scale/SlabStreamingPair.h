// SlabStreamingPair: a projector pair over a volume too large for host or GPU memory (issue #22,
// point 2: out-of-core SIRT of a cone beam in one process). The volume is cut into z-slabs; a
// forward projection binds the registered pair to one slab at a time (its slices, and the
// detector rows they project onto), projects it, and adds its band of rows into the
// projections; a backprojection does the same the other way. The GPU (or the CPU) holds one slab
// and its band at a time.
//
// Its arrays are host arrays: projection arrays in memory, volume arrays in memory or, given a
// folder, in files there (core/HostMemory.h, FileBackedHostBuffers), which the kernel pages in and
// out as the slabs go by. Any solver written against ProjectorPair runs on it unchanged (the
// ordered-subset SIRT, OS-SIRT and SART; ExchangingPair wraps it for MPI ranks).
//
// The sums are those of the pair bound to the whole volume, up to float32 rounding: a slab's rays
// are cut at its faces, and the rows a slab cannot see are not computed (SlabPlan's row bands
// hold every row a slab's voxels project onto).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "recon/operator/ArrayOps.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::scale {

// One slab of the pair's volume: slices [z0, z1) of its grid and the rows [rowFirst, rowLast] of
// its detector they project onto.
struct StreamedSlab {
  std::int64_t z0 = 0, z1 = 0;
  std::int64_t rowFirst = 0, rowLast = 0;
};

class SlabStreamingPair final : public op::ProjectorPair {
 public:
  // `problem`: the whole volume's grid and the detector's geometry (pointer kept); `slabs` cover
  // the grid's slices in order. `volumeFolder`: keep volume arrays in files there (empty: in
  // memory). Throws ParameterError when the projectors cannot be bound to a slab.
  SlabStreamingPair(const VariantRegistry& registry, std::string forwardName,
                    std::string adjointName, const op::ProjectorProblem& problem,
                    std::vector<StreamedSlab> slabs, std::filesystem::path volumeFolder = {});
  ~SlabStreamingPair() override;
  SlabStreamingPair(const SlabStreamingPair&) = delete;
  SlabStreamingPair& operator=(const SlabStreamingPair&) = delete;

  const std::string& forwardName() const noexcept override { return forwardName_; }
  const std::string& adjointName() const noexcept override { return adjointName_; }
  bool matched() const noexcept override { return matched_; }
  std::string device() const override;
  const op::ArrayOps& ops() const noexcept override { return ops_; }
  const op::ProjectorProblem& problem() const noexcept override { return problem_; }

  std::unique_ptr<op::Array> makeVolume() const override;
  std::unique_ptr<op::Array> makeProjections() const override;
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override;
  std::unique_ptr<const op::Array> useProjections(const ProjectionStack& stack) const override;
  Volume takeVolume(std::unique_ptr<op::Array> volume) const override;

  void forward(const op::Array& volume, op::Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override;
  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override;

  const std::vector<StreamedSlab>& slabs() const noexcept { return slabs_; }
  // A volume of the pair's grid, in memory or in a file of the volume folder.
  Volume makeHostVolume() const;

 private:
  struct Bound;  // the registered pair bound to one slab, with its cropped geometry
  Bound& bind(std::size_t slab);

  const VariantRegistry& registry_;
  std::string forwardName_, adjointName_;
  op::ProjectorProblem problem_;
  std::vector<StreamedSlab> slabs_;
  std::filesystem::path volumeFolder_;
  op::HostArrayOps ops_;
  bool matched_ = false;
  std::string innerDevice_;
  std::unique_ptr<Bound> bound_;  // the last slab bound (kept while the next call uses it)
};

}  // namespace tomowb::scale
