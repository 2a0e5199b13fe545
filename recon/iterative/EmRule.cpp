#include "recon/iterative/EmRule.h"

#include <cmath>

#include "recon/core/Error.h"
#include "recon/iterative/IterationLog.h"

namespace tomowb::iterative {

double EmRule::relaxation(int pass) const noexcept {
  if (!options_.ramla) return 1.0;
  return options_.lambda0 / (1.0 + static_cast<double>(pass) / options_.betaPasses);
}

void EmRule::prepare(const SubsetProblem& problem, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  if (options_.ramla && !(options_.lambda0 > 0 && options_.betaPasses > 0))
    throw ParameterError("relaxation", "RAMLA needs lambda0 > 0 and beta > 0");
  if (!options_.multiplicative) {
    ones_ = pair.makeProjections();
    ops.fill(*ones_, 1.0f);
  }
  total_ = pair.makeVolume();
  stored_.clear();
  const double bytes = static_cast<double>(problem.subsets.size()) *
                       static_cast<double>(pair.problem().grid.shape.voxelCount()) * 4.0;
  const bool store = problem.subsets.size() > 1 && bytes <= kMaxStoredSensitivityBytes;
  for (std::size_t s = 0; s < problem.subsets.size(); ++s) {
    context.throwIfCancelled();
    std::unique_ptr<op::Array> sensitivity = pair.makeVolume();
    pair.adjoint(options_.multiplicative ? *options_.multiplicative : *ones_, *sensitivity,
                 problem.subsets[s], context);
    ops.axpy(1.0, *sensitivity, *total_);
    if (store) stored_.push_back(std::move(sensitivity));
    context.reportProgress(
        "sensitivity", static_cast<double>(s + 1) / static_cast<double>(problem.subsets.size()));
  }
  if (!(ops.maxValue(*total_) > 0))
    throw ParameterError("sensitivity",
                         "is zero everywhere: no view's correction factors reach the image grid");
  if (options_.ramla) {
    meanStep_ = pair.makeVolume();
    ops.axpy(1.0 / static_cast<double>(problem.subsets.size()), *total_, *meanStep_);
  }
  ratio_ = pair.makeProjections();
  backprojected_ = pair.makeVolume();
  pass_ = 0;
}

const op::Array& EmRule::subsetSensitivity(const SubsetProblem& problem, std::size_t subset,
                                           JobContext& context) {
  if (problem.subsets.size() == 1) return *total_;
  if (!stored_.empty()) return *stored_[subset];
  op::ProjectorPair& pair = problem.pair;
  if (!scratch_) scratch_ = pair.makeVolume();
  pair.ops().fill(*scratch_, 0.0f);
  pair.adjoint(options_.multiplicative ? *options_.multiplicative : *ones_, *scratch_,
               problem.subsets[subset], context);
  return *scratch_;
}

void EmRule::update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
                    IterationTotals& t, JobContext& context) {
  op::ProjectorPair& pair = problem.pair;
  const op::ArrayOps& ops = pair.ops();
  const std::vector<std::int64_t>& views = problem.subsets[subset];
  auto clock = Clock::now();
  pair.forward(x, *ratio_, views, context);
  t.forwardSeconds += secondsSince(clock);
  last_ = ops.poissonRatio(problem.data, *ratio_, options_.multiplicative, options_.additive,
                           pair.select(views));
  t.logLikelihood += last_.logLikelihood;
  t.residual2 += (last_.measured - last_.expected) * (last_.measured - last_.expected);
  expected_ += last_.expected;
  measured_ += last_.measured;
  ops.fill(*backprojected_, 0.0f);
  clock = Clock::now();
  pair.adjoint(*ratio_, *backprojected_, views, context);
  t.backSeconds += secondsSince(clock);
  t.updates += 2.0 * static_cast<double>(pair.problem().grid.shape.voxelCount()) *
               static_cast<double>(views.size());
  const op::Array& s = subsetSensitivity(problem, subset, context);
  if (options_.ramla)
    ops.relaxedEmStep(x, *backprojected_, s, *meanStep_, relaxation(pass_));
  else
    ops.relaxedEmStep(x, *backprojected_, s, s, 1.0);
  if (problem.mask || std::isfinite(problem.upperBound))
    ops.clampMasked(x, problem.mask, problem.lowerBound, problem.upperBound);
}

UpdateRule::IterationEnd EmRule::finishIteration(const SubsetProblem& problem, op::Array& x,
                                                 JobContext& /*context*/) {
  IterationEnd end;
  end.metrics.emplace_back("expected / measured counts",
                           measured_ > 0 ? expected_ / measured_ : 0.0);
  end.metrics.emplace_back("relaxation", relaxation(pass_));
  expected_ = measured_ = 0;
  ++pass_;
  if (options_.metrics) {
    if (const auto* host = dynamic_cast<const op::HostVolumeArray*>(&x)) {
      for (auto& m : options_.metrics(host->volume())) end.metrics.push_back(std::move(m));
    } else {
      if (download_.empty()) download_ = problem.pair.problem().grid.makeVolume();
      problem.pair.ops().download(x, download_.voxels());
      for (auto& m : options_.metrics(download_)) end.metrics.push_back(std::move(m));
    }
  }
  return end;
}

}  // namespace tomowb::iterative
