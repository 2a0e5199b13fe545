#include "recon/iterative/PwlsSqs.h"

#include <cmath>
#include <cstdio>

#include "recon/core/Error.h"

namespace tomowb::iterative {

PwlsRule::PwlsRule(const PwlsOptions& options, const op::Array* weights, const op::Array* reference)
    : options_(options), weights_(weights), reference_(reference) {}

PwlsRule::Footprint PwlsRule::footprint(const PwlsOptions& options, bool hasWeights) {
  Footprint f;
  // d, the backprojected residual, x at the iteration's start; the penalty's gradient and
  // curvature; x_prev of the momentum.
  f.volumes = 3 + (options.beta > 0 ? 2 : 0) + (options.momentum ? 1 : 0);
  // The residual, and unit weights when none are given.
  f.stacks = 1 + (hasWeights ? 0 : 1);
  return f;
}

void PwlsRule::prepare(const SubsetProblem& problem, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  if (!weights_) {
    unitWeights_ = pair.makeProjections();
    ops.fill(*unitWeights_, 1.0f);
  }
  const op::Array& w = weights_ ? *weights_ : *unitWeights_;
  // d = A^T W A 1 over the unknowns (the mask's voxels): the data term's SQS curvature, valid
  // because every a_ij >= 0.
  residual_ = pair.makeProjections();
  denominator_ = pair.makeVolume();
  {
    std::unique_ptr<op::Array> ones = pair.makeVolume();
    ops.indicator(problem.mask, *ones);
    pair.forward(*ones, *residual_, {}, context);
  }
  context.reportProgress("weights", 0.5);
  ops.multiply(w, *residual_);
  pair.adjoint(*residual_, *denominator_, {}, context);
  if (!(ops.maxValue(*denominator_) > 0))
    throw ParameterError("volume", "no ray of the projections crosses the reconstruction grid");
  context.reportProgress("weights", 1.0);
  descent_ = pair.makeVolume();
  start_ = pair.makeVolume();
  if (options_.beta > 0) {
    gradient_ = pair.makeVolume();
    curvature_ = pair.makeVolume();
  }
  if (options_.momentum) previous_ = pair.makeVolume();
  momentum_ = 1;
}

void PwlsRule::update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
                      IterationTotals& t, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  const std::vector<std::int64_t>& views = problem.subsets[subset];
  const op::Array& w = weights_ ? *weights_ : *unitWeights_;
  if (subset == 0) {
    ops.copy(x, *start_);
    // The momentum's x_prev starts at the first iterate.
    if (previous_ && momentum_ == 1) ops.copy(x, *previous_);
  }
  // r = W (y - A x) on the subset's views; ||y - A x||^2 and ||y - A x||_W^2 for the cost.
  auto clock = Clock::now();
  pair.forward(x, *residual_, views, context);
  t.forwardSeconds += secondsSince(clock);
  const op::ResidualNorms norms =
      ops.weightResidual(problem.data, w, *residual_, pair.select(views));
  t.residual2 += norms.residual2;
  t.weighted2 += norms.weighted2;
  ops.fill(*descent_, 0.0f);
  clock = Clock::now();
  pair.adjoint(*residual_, *descent_, views, context);
  t.backSeconds += secondsSince(clock);
  t.updates += 2.0 * static_cast<double>(pair.problem().grid.shape.voxelCount()) *
               static_cast<double>(views.size());
  if (options_.beta > 0) {
    const double penalty = ops.hyperbolaPenalty(x, pair.problem().grid.shape, options_.delta,
                                                options_.beta, *gradient_, curvature_.get());
    if (subset == 0) penaltyAtStart_ = penalty;
  } else if (subset == 0) {
    penaltyAtStart_ = 0;
  }
  // grad L ~ -M B_m r: the subset stands for all M of them.
  ops.sqsStep(x, *descent_, static_cast<double>(problem.subsets.size()), gradient_.get(),
              *denominator_, curvature_.get(), problem.mask, problem.lowerBound,
              problem.upperBound);
  if (previous_) {
    // x <- x+ + g (x+ - x_prev), x_prev <- x+, with g = (t - 1) / t', in three passes over the
    // volumes and no fourth: D = x_prev - x+, x <- x+ - g D, x_prev <- x + g D (= x+).
    const double next = (1.0 + std::sqrt(1.0 + 4.0 * momentum_ * momentum_)) / 2.0;
    const double gain = (momentum_ - 1.0) / next;
    ops.axpy(-1.0, x, *previous_);
    ops.axpy(-gain, *previous_, x);
    ops.xpby(x, gain, *previous_);
    ops.clampMasked(x, problem.mask, problem.lowerBound, problem.upperBound);
    momentum_ = next;
  }
}

double PwlsRule::objective(const IterationTotals& totals) const {
  return totals.weighted2 / 2 + penaltyAtStart_;
}

UpdateRule::IterationEnd PwlsRule::finishIteration(const SubsetProblem& problem, op::Array& x,
                                                   JobContext& /*context*/) {
  const op::ArrayOps& ops = problem.pair.ops();
  IterationEnd end;
  // The descent array is free until the next subset: the differences go there.
  ops.copy(x, *descent_);
  ops.axpy(-1.0, *start_, *descent_);
  const double change2 = ops.dot(*descent_, *descent_);
  const double norm2 = ops.dot(x, x);
  const double change = norm2 > 0 ? std::sqrt(change2 / norm2) : (change2 > 0 ? INFINITY : 0.0);
  end.metrics.emplace_back("relative change", change);
  if (reference_) {
    ops.copy(x, *descent_);
    ops.axpy(-1.0, *reference_, *descent_);
    const double voxels = static_cast<double>(x.size());
    end.metrics.emplace_back("RMSE", std::sqrt(ops.dot(*descent_, *descent_) / voxels));
  }
  if (options_.stopChange > 0 && change < options_.stopChange) {
    char text[160];
    std::snprintf(text, sizeof text, "the relative change of x fell to %.3g (< %.3g)", change,
                  options_.stopChange);
    end.stop = text;
  }
  return end;
}

double pwlsCost(op::ProjectorPair& pair, const op::Array& data, const op::Array* weights,
                const op::Array& x, const PwlsOptions& options, JobContext& context) {
  const op::ArrayOps& ops = pair.ops();
  std::unique_ptr<op::Array> residual = pair.makeProjections();
  std::unique_ptr<op::Array> unit;
  if (!weights) {
    unit = pair.makeProjections();
    ops.fill(*unit, 1.0f);
  }
  pair.forward(x, *residual, {}, context);
  const op::ResidualNorms norms =
      ops.weightResidual(data, weights ? *weights : *unit, *residual, pair.select({}));
  double penalty = 0;
  if (options.beta > 0) {
    std::unique_ptr<op::Array> gradient = pair.makeVolume();
    penalty = ops.hyperbolaPenalty(x, pair.problem().grid.shape, options.delta, options.beta,
                                   *gradient, nullptr);
  }
  return norms.weighted2 / 2 + penalty;
}

}  // namespace tomowb::iterative
