#include "recon/iterative/OrderedSubsetSolver.h"

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"

namespace tomowb::iterative {

void SirtRule::prepare(const SubsetProblem& problem, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  // R: inverse row sums, the forward projection of ones (of the mask's voxels).
  rowWeights_ = pair.makeProjections();
  // Volumes that live in files (out of core, scale/SlabStreamingPair.h) cost disk, not memory:
  // there up to 8 subsets' column weights are kept instead of a backprojection per subset.
  bool volumesOnDisk = false;
  {
    std::unique_ptr<op::Array> ones = pair.makeVolume();
    volumesOnDisk = ones->space() == op::MemorySpace::Host && isFileBackedHostBuffer(ones->data());
    ops.indicator(problem.mask, *ones);
    pair.forward(*ones, *rowWeights_, {}, context);
  }
  ops.invertSums(*rowWeights_, kRelativeSumThreshold, 1.0);
  if (!(ops.maxValue(*rowWeights_) > 0))
    throw ParameterError("volume", "no ray of the projections crosses the reconstruction grid");

  // C_s: the relaxation over the column sums of each subset.
  ones_ = pair.makeProjections();
  ops.fill(*ones_, 1.0f);
  stored_.clear();
  const double bytes = static_cast<double>(problem.subsets.size()) *
                       static_cast<double>(pair.problem().grid.shape.voxelCount()) * 4.0;
  if (bytes <= kMaxStoredWeightBytes || (volumesOnDisk && problem.subsets.size() <= 8))
    for (std::size_t s = 0; s < problem.subsets.size(); ++s) {
      context.throwIfCancelled();
      stored_.push_back(columnWeights(problem, s, context));
      context.reportProgress(
          "weights", static_cast<double>(s + 1) / static_cast<double>(problem.subsets.size()));
    }
  residual_ = pair.makeProjections();
  update_ = pair.makeVolume();
}

std::unique_ptr<op::Array> SirtRule::columnWeights(const SubsetProblem& problem, std::size_t subset,
                                                   JobContext& context) const {
  const op::ArrayOps& ops = problem.pair.ops();
  std::unique_ptr<op::Array> c = problem.pair.makeVolume();
  problem.pair.adjoint(*ones_, *c, problem.subsets[subset], context);
  ops.invertSums(*c, kRelativeSumThreshold, relaxation_);
  if (problem.mask) ops.clampMasked(*c, problem.mask, -INFINITY, INFINITY);
  return c;
}

void SirtRule::update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
                      IterationTotals& t, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  const std::vector<std::int64_t>& views = problem.subsets[subset];
  auto clock = Clock::now();
  pair.forward(x, *residual_, views, context);
  t.forwardSeconds += secondsSince(clock);
  const op::ResidualNorms norms =
      ops.weightResidual(problem.data, *rowWeights_, *residual_, pair.select(views));
  t.residual2 += norms.residual2;
  t.weighted2 += norms.weighted2;
  ops.fill(*update_, 0.0f);
  clock = Clock::now();
  pair.adjoint(*residual_, *update_, views, context);
  t.backSeconds += secondsSince(clock);
  t.updates += 2.0 * static_cast<double>(pair.problem().grid.shape.voxelCount()) *
               static_cast<double>(views.size());
  if (stored_.empty()) scratch_ = columnWeights(problem, subset, context);
  const op::Array& c = stored_.empty() ? *scratch_ : *stored_[subset];
  ops.addProduct(c, *update_, x);
  ops.clampMasked(x, problem.mask, problem.lowerBound, problem.upperBound);
}

void runOrderedSubsets(const SubsetProblem& problem, UpdateRule& rule, op::Array& x,
                       const IterativeParams& params, double dataNorm, IterativeReport& report,
                       JobContext& context) {
  const auto started = Clock::now();
  context.reportProgress("weights", 0.0);
  rule.prepare(problem, context);
  report.setupSeconds = secondsSince(started);

  IterationLog log(params, report, context, dataNorm);
  report.stopReason = std::to_string(params.iterations) + " iterations";
  for (int iteration = problem.iterationsBefore + 1; iteration <= params.iterations; ++iteration) {
    const auto iterationStart = Clock::now();
    IterationTotals totals;
    for (std::size_t s = 0; s < problem.subsets.size(); ++s) {
      context.throwIfCancelled();
      rule.update(problem, s, x, totals, context);
    }
    UpdateRule::IterationEnd end = rule.finishIteration(problem, x, context);
    std::string converged =
        log.record(iteration, totals, secondsSince(iterationStart), rule.objectiveName(),
                   rule.objective(totals), std::move(end.metrics));
    if (converged.empty()) converged = std::move(end.stop);
    if (!converged.empty()) report.stopReason = converged;
    log.publish(problem.pair, x, iteration, !converged.empty());
    if (problem.afterIteration) problem.afterIteration(iteration, x);
    if (!converged.empty()) break;
  }
}

}  // namespace tomowb::iterative
