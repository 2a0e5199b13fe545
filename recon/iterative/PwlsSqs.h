// PWLS-OS-SQS: penalised weighted least squares by ordered subsets with separable quadratic
// surrogates (reference/sf-projectors.md section 6: Erdogan & Fessler 1999; Kim, Ramani & Fessler
// 2015 for the momentum), an update rule of the ordered-subset solver (OrderedSubsetSolver.h), so
// it runs on every projector pair, host or device-resident. It minimises
//
//   Psi(x) = 1/2 sum_i w_i (y_i - [A x]_i)^2 + beta R(x),
//   R(x) = sum over voxel pairs of the 26-neighbourhood of kappa psi(x_j - x_k)
//
// (the hyperbola penalty, ArrayOps::hyperbolaPenalty). Once: d = A^T W A 1 (the data term's SQS
// curvature; A 1 over the mask's voxels). Per subset m of M:
//
//   r = W_m (y_m - A_m x),  u = B_m r  (B = A^T for a matched pair),
//   x <- clamp(x + (M u - beta grad R(x)) / (d + D_R(x)))  and 0 outside the mask,
//
// D_R the penalty's Huber curvature at x (2 beta sum_k kappa omega). With momentum, after each
// subset update x+: t' = (1 + sqrt(1 + 4 t^2)) / 2, x <- x+ + ((t - 1) / t') (x+ - x_prev),
// x_prev <- x+, clamped again. One subset with no momentum decreases Psi at every iteration.
//
// Per iteration it records the cost (1/2 ||y - A x||_W^2 summed over the subsets as they visit x,
// plus beta R of the iterate the iteration starts from: Psi exactly with one subset), the
// relative change RMS(x_k - x_(k-1)) / RMS(x_k) ("relative change"), and with a reference volume
// the RMSE against it ("RMSE"); it stops when the relative change falls below options.stopChange.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/iterative/PwlsOptions.h"

namespace tomowb::iterative {

class PwlsRule final : public UpdateRule {
 public:
  // `weights` (projections of the pair, null: 1 for every ray) and `reference` (a volume of the
  // pair, null: no RMSE) must outlive the rule.
  PwlsRule(const PwlsOptions& options, const op::Array* weights, const op::Array* reference);
  void prepare(const SubsetProblem& problem, JobContext& context) override;
  void update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
              IterationTotals& totals, JobContext& context) override;
  std::string objectiveName() const override { return "PWLS cost"; }
  double objective(const IterationTotals& totals) const override;
  IterationEnd finishIteration(const SubsetProblem& problem, op::Array& x,
                               JobContext& context) override;

  // The arrays a run holds beside the iterate, in volumes and projection stacks.
  struct Footprint {
    int volumes = 0, stacks = 0;
  };
  static Footprint footprint(const PwlsOptions& options, bool hasWeights);

 private:
  PwlsOptions options_;
  const op::Array* weights_;
  const op::Array* reference_;
  std::unique_ptr<op::Array> unitWeights_, residual_;
  std::unique_ptr<op::Array> denominator_, descent_, gradient_, curvature_, start_, previous_;
  double penaltyAtStart_ = 0;
  double momentum_ = 1;  // t of Nesterov's sequence
};

// Psi(x) exactly: one forward projection of every view and the penalty. `weights` null: 1.
double pwlsCost(op::ProjectorPair& pair, const op::Array& data, const op::Array* weights,
                const op::Array& x, const PwlsOptions& options, JobContext& context);

}  // namespace tomowb::iterative
