// BandExchange: an iterative reconstruction whose z-slabs are shared by ranks (issue #22, point
// 3). Each rank holds its block of slices and the band of detector rows they project onto; the
// forward projection of the whole volume is the sum of the blocks' partial ray sums, and a ray
// gets contributions from several ranks only on the rows where their bands overlap. So after
// every forward projection the ranks sum exactly those rows (Communicator::sum), nothing else:
// a single-axis tilt series whose slices fall on detector rows exchanges no data at all, a cone
// beam the rows its neighbouring slabs both see. The backprojection needs no exchange (a voxel's
// rays all lie in its rank's band).
//
// ExchangingPair wraps the projector pair a rank binds to its block and band (any registered
// pair, host or device arrays), so the ordered-subset solver (SIRT, OS-SIRT, SART) runs on it
// unchanged. Its ArrayOps make the solver's reductions global: residual norms count each ray
// once (a shared row by the lowest rank that holds it) and are summed over ranks, the maximum
// behind invertSums' threshold is the whole problem's, so every rank makes the choices one
// process would. CGLS, PWLS and EM, whose dot products and penalties would need more, are not
// run this way (ParameterError).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "recon/operator/ProjectorPair.h"
#include "recon/scale/Communicator.h"

namespace tomowb::scale {

// Detector rows [first, last] of the whole detector, inclusive.
struct RowBand {
  std::int64_t first = 0, last = -1;
  std::int64_t rows() const noexcept { return last - first + 1; }
  bool contains(std::int64_t row) const noexcept { return row >= first && row <= last; }
};

// Which rows of rank `rank`'s band other ranks' bands hold too.
struct BandOverlap {
  // For every shared row of this rank's band: its row in the band, its place in the list of
  // every shared row of the run (the exchange buffer's order), and whether this rank counts it
  // in the residual norms (the lowest rank holding it does).
  struct SharedRow {
    std::int64_t bandRow = 0;
    std::int64_t slot = 0;
    bool counted = true;
  };
  std::int64_t sharedRowCount = 0;  // rows of the whole detector held by two bands or more
  std::vector<SharedRow> mine;
  static BandOverlap of(const std::vector<RowBand>& bands, int rank);
};

class ExchangingPair final : public op::ProjectorPair {
 public:
  // `inner` is bound to this rank's block and to its band's cropped geometry; `bands` holds every
  // rank's band (the same list on every rank), `comm` the ranks.
  ExchangingPair(std::unique_ptr<op::ProjectorPair> inner, const std::vector<RowBand>& bands,
                 Communicator& comm, std::int64_t detectorCols);
  ~ExchangingPair() override;
  ExchangingPair(const ExchangingPair&) = delete;
  ExchangingPair& operator=(const ExchangingPair&) = delete;

  const std::string& forwardName() const noexcept override { return inner_->forwardName(); }
  const std::string& adjointName() const noexcept override { return inner_->adjointName(); }
  bool matched() const noexcept override { return inner_->matched(); }
  std::string device() const override { return inner_->device(); }
  const op::ArrayOps& ops() const noexcept override;
  const op::ProjectorProblem& problem() const noexcept override { return inner_->problem(); }
  std::unique_ptr<op::Array> makeVolume() const override { return inner_->makeVolume(); }
  std::unique_ptr<op::Array> makeProjections() const override { return inner_->makeProjections(); }
  std::unique_ptr<const op::Array> useVolume(const Volume& volume) const override {
    return inner_->useVolume(volume);
  }
  std::unique_ptr<const op::Array> useProjections(const ProjectionStack& stack) const override {
    return inner_->useProjections(stack);
  }
  Volume takeVolume(std::unique_ptr<op::Array> volume) const override {
    return inner_->takeVolume(std::move(volume));
  }
  // The inner pair's forward projection, then the shared rows summed over the ranks.
  void forward(const op::Array& volume, op::Array& projections, std::span<const std::int64_t> views,
               JobContext& context) override;
  void adjoint(const op::Array& projections, op::Array& volume, std::span<const std::int64_t> views,
               JobContext& context) override {
    inner_->adjoint(projections, volume, views, context);
  }
  op::ViewSelection select(std::span<const std::int64_t> views) const noexcept override {
    return inner_->select(views);
  }

  const BandOverlap& overlap() const noexcept { return overlap_; }
  // ||b||^2 per view of the detector rows no rank's band holds (rays that miss the grid: their
  // residual is b whatever the iterate), added once (by the rank that passes them) to every
  // residual norm of those views, so that the norms are those of one process that holds the
  // whole detector.
  void setUncoveredSquares(std::vector<double> perView) { uncoveredSquares_ = std::move(perView); }
  // Bytes this rank sent into the sums so far (float32 samples of shared rows).
  std::uint64_t exchangedBytes() const noexcept { return exchangedBytes_; }

 private:
  class Ops;
  friend class Ops;

  std::unique_ptr<op::ProjectorPair> inner_;
  Communicator& comm_;
  BandOverlap overlap_;
  std::int64_t cols_ = 0;
  std::unique_ptr<Ops> ops_;
  // The last exchange: its views and the summed shared rows ([view][slot][col]), which the norms
  // use for the rows another rank counts.
  std::vector<std::int64_t> lastViews_;
  std::vector<float> lastSums_;
  std::vector<float> staging_;  // a device array's copy on the host
  std::uint64_t exchangedBytes_ = 0;
  std::vector<double> uncoveredSquares_;
};

}  // namespace tomowb::scale
