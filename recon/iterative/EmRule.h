// The EM update rules of the ordered-subset solver (architecture-next.md, seam 2; reference/
// direct-tof-pet.md, section 3.7) for emission data d with expected data qbar = m (A x) + b:
//   ML-EM / OSEM:  x <- x / S_s * B_s( m d / qbar ),  S_s = B_s m (the subset's sensitivity)
//   block RAMLA:   x <- max(0, x + lambda_n x / Sbar * B_s( m (d / qbar - 1) )),  Sbar = S / n_s,
//                  lambda_n = lambda0 / (1 + n / beta) in pass n (0-based)
// with m the multiplicative factors (sensitivity x attenuation; null: 1) and b the additive
// background (randoms + scatter; null: 0), both in the data's layout. ML-EM is OSEM with one
// subset. Without background, each full ML-EM iteration conserves counts: sum(qbar) = sum(d).
// The objective is the Poisson log-likelihood sum(d log qbar - qbar) of the iterate the
// iteration started from (to be maximised; recorded negated, as the solver minimises).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/iterative/OrderedSubsetSolver.h"

namespace tomowb::iterative {

struct EmOptions {
  bool ramla = false;                         // block RAMLA instead of OSEM
  double lambda0 = 1.0;                       // RAMLA's first relaxation
  double betaPasses = 5.0;                    // RAMLA: lambda halves after this many passes
  const op::Array* multiplicative = nullptr;  // m, in the pair's memory space (null: 1)
  const op::Array* additive = nullptr;        // b (null: 0)
  // Figures measured on the iterate after each iteration (contrast recovery, noise...), by name;
  // the rule downloads the iterate when set.
  std::function<std::vector<std::pair<std::string, double>>(const Volume& iterate)> metrics;
};

class EmRule final : public UpdateRule {
 public:
  static constexpr double kMaxStoredSensitivityBytes = 2.0 * 1024 * 1024 * 1024;

  explicit EmRule(EmOptions options) : options_(std::move(options)) {}
  void prepare(const SubsetProblem& problem, JobContext& context) override;
  void update(const SubsetProblem& problem, std::size_t subset, op::Array& x,
              IterationTotals& totals, JobContext& context) override;
  std::string objectiveName() const override { return "-log L (Poisson)"; }
  double objective(const IterationTotals& totals) const override { return -totals.logLikelihood; }
  IterationEnd finishIteration(const SubsetProblem& problem, op::Array& x,
                               JobContext& context) override;

  // The relaxation of pass `pass` (0-based): 1 for OSEM, lambda0 / (1 + pass / beta) for RAMLA.
  double relaxation(int pass) const noexcept;
  // The whole sensitivity image S = B m (after prepare()), in the pair's memory space.
  const op::Array& sensitivity() const noexcept { return *total_; }
  // After each update: sum of qbar and of d over the subset's views (count conservation checks).
  const op::PoissonSums& lastSums() const noexcept { return last_; }

 private:
  const op::Array& subsetSensitivity(const SubsetProblem& problem, std::size_t subset,
                                     JobContext& context);

  EmOptions options_;
  int pass_ = 0;
  std::unique_ptr<op::Array> total_, meanStep_, ones_, ratio_, backprojected_, scratch_;
  std::vector<std::unique_ptr<op::Array>> stored_;
  op::PoissonSums last_;
  double expected_ = 0, measured_ = 0;  // this iteration's sums so far
  Volume download_;
};

}  // namespace tomowb::iterative
