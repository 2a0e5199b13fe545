// The ordered-subset solver (architecture-next.md, seam 2): one loop over iterations and view
// subsets for every algorithm of the family, with the update rule plugged in. The loop checks the
// cancel token per subset, records each iteration (IterationLog: residuals, objective, metrics,
// stop rule, intermediate volumes); the rule owns its weights and its update. Everything runs on
// the projector pair's arrays (host or device), through the pair and its ArrayOps only.
//
// Rules: SirtRule (SIRT, OS-SIRT, SART: row and column sums, reference/sirt-et.md section 3),
// PwlsRule (PwlsSqs.h: PWLS-OS-SQS). EM plugs in the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "recon/iterative/IterationLog.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"

namespace tomowb::iterative {

// What the loop and its rule share: the bound pair, the measured data in the pair's memory
// space, the unknowns' mask and box, and the subsets in the order they are visited.
struct SubsetProblem {
  op::ProjectorPair& pair;
  const op::Array& data;
  const op::Array* mask = nullptr;  // unknowns: the mask's non-zero voxels (null: every voxel)
  float lowerBound = -INFINITY, upperBound = INFINITY;
  std::vector<std::vector<std::int64_t>> subsets;
  // A run that goes on from an earlier one's iterate (recon/scale/ slab runs: a checkpoint):
  // the iterations that iterate had; the loop runs the rest of params.iterations.
  int iterationsBefore = 0;
  // Called after every iteration with its number and the iterate (a slab run's checkpoints).
  std::function<void(int iteration, const op::Array& x)> afterIteration = {};
};

class UpdateRule {
 public:
  virtual ~UpdateRule() = default;
  // Once before the first iteration (weights, scratch arrays). May report progress ("weights").
  virtual void prepare(const SubsetProblem& problem, JobContext& context) = 0;
  // One subset's update of x (projected onto the mask and the box afterwards by the rule);
  // adds its projector times, voxel updates and the residual norms to `totals`.
  virtual void update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
                      IterationTotals& totals, JobContext& context) = 0;
  // The objective the rule minimises from an iteration's totals, and its name.
  virtual std::string objectiveName() const = 0;
  virtual double objective(const IterationTotals& totals) const = 0;

  // After each iteration's subsets, before it is recorded: figures to record beside the
  // objective, by name ("RMSE"), and why the rule stops the run (empty: go on). None by default.
  struct IterationEnd {
    std::vector<std::pair<std::string, double>> metrics;
    std::string stop;
  };
  virtual IterationEnd finishIteration(const SubsetProblem& /*problem*/, op::Array& /*x*/,
                                       JobContext& /*context*/) {
    return {};
  }
};

// SIRT's update over subset s: x <- P_C(x + C_s B_s R (b - A_s x)), with R = 1 / row sums (A 1 of
// the mask's voxels), C_s = lambda / column sums (B_s 1), sums below 1e-6 of their largest set
// to 0. The column weights of every subset are kept when they fit in `maxStoredWeightBytes`,
// else recomputed per subset (one more backprojection of ones each).
class SirtRule final : public UpdateRule {
 public:
  static constexpr double kRelativeSumThreshold = 1e-6;
  static constexpr double kMaxStoredWeightBytes = 2.0 * 1024 * 1024 * 1024;

  explicit SirtRule(double relaxation) : relaxation_(relaxation) {}
  void prepare(const SubsetProblem& problem, JobContext& context) override;
  void update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
              IterationTotals& totals, JobContext& context) override;
  std::string objectiveName() const override { return "||b - Ax||_R^2 / 2"; }
  double objective(const IterationTotals& totals) const override { return totals.weighted2 / 2; }

 private:
  std::unique_ptr<op::Array> columnWeights(const SubsetProblem& problem, std::size_t subset,
                                           JobContext& context) const;

  double relaxation_;
  std::unique_ptr<op::Array> rowWeights_, ones_, residual_, update_, scratch_;
  std::vector<std::unique_ptr<op::Array>> stored_;
};

// Runs `rule` over problem.subsets for params.iterations iterations (fewer when params'
// stop rule fires) from x; fills the report's iterations, stop reason, setup and projector times.
void runOrderedSubsets(const SubsetProblem& problem, UpdateRule& rule, op::Array& x,
                       const IterativeParams& params, double dataNorm, IterativeReport& report,
                       JobContext& context);

}  // namespace tomowb::iterative
