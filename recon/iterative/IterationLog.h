// IterationLog: what every iterative solver does after an iteration, written once: the record in
// the report (residuals, objective, named metrics), the telemetry and progress events, the stop
// rule on the weighted residual, and the iterate handed to the views every N iterations.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/job/JobContext.h"
#include "recon/operator/ProjectorPair.h"

namespace tomowb::iterative {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// What one iteration added up: projector times, voxel updates (forward and back, voxels x views
// each) and the squared residual norms of the iterate it started from.
struct IterationTotals {
  double forwardSeconds = 0, backSeconds = 0, updates = 0, residual2 = 0, weighted2 = 0;
  double logLikelihood = 0;  // EM: the Poisson log-likelihood of the data (EmRule.h)
};

class IterationLog {
 public:
  // `dataNorm` = ||b||, for the relative residual.
  IterationLog(const IterativeParams& params, IterativeReport& report, JobContext& context,
               double dataNorm);

  // Records iteration `iteration` (1-based) and tells the context. Returns why the run stops
  // (the stop rule fired, or the user asked to stop and keep the iterate: stoppedByUser()) or an
  // empty string.
  std::string record(int iteration, const IterationTotals& totals, double seconds,
                     const std::string& objectiveName, double objective,
                     std::vector<std::pair<std::string, double>> metrics = {});

  // Hands the iterate to the views when they want it: every params.publishEvery iterations, and
  // at the last one (`last`).
  void publish(const op::ProjectorPair& pair, const op::Array& x, int iteration, bool last);

 private:
  const IterativeParams& params_;
  IterativeReport& report_;
  JobContext& context_;
  double dataNorm_;
  Volume scratch_;  // a device iterate downloaded for the views
};

// The stop reason of a run the user stopped after `done` of `planned` iterations
// (JobContext::stopRequested): "stopped by the user after 3 of 50 iterations".
std::string stoppedByUser(int done, int planned);

// ||b|| of the measured projections, summed in float64 in order.
double dataNormOf(const ProjectionStack& projections);

}  // namespace tomowb::iterative
