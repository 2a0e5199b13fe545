#include "recon/iterative/IterationLog.h"

#include <cmath>
#include <cstdio>

namespace tomowb::iterative {

IterationLog::IterationLog(const IterativeParams& params, IterativeReport& report,
                           JobContext& context, double dataNorm)
    : params_(params), report_(report), context_(context), dataNorm_(dataNorm) {}

std::string IterationLog::record(int iteration, const IterationTotals& t, double seconds,
                                 const std::string& objectiveName, double objective,
                                 std::vector<std::pair<std::string, double>> metrics) {
  IterationRecord record;
  record.algorithm = report_.method;
  record.iteration = iteration;
  record.maxIterations = params_.iterations;
  record.residualNorm = std::sqrt(t.residual2);
  record.weightedResidualNorm = std::sqrt(t.weighted2);
  record.relativeResidual = dataNorm_ > 0 ? record.residualNorm / dataNorm_ : 0.0;
  record.seconds = seconds;
  record.objectiveName = objectiveName;
  record.objective = objective;
  record.metrics = std::move(metrics);
  report_.iterations.push_back(record);
  report_.forwardSeconds += t.forwardSeconds;
  report_.backprojectSeconds += t.backSeconds;
  report_.voxelUpdates += t.updates;
  context_.publishTelemetry(
      {"iterative.forward", report_.forwardVariant, t.forwardSeconds, t.updates / 2, 0, -1, 0});
  context_.publishTelemetry(
      {"iterative.backproject", report_.backVariant, t.backSeconds, t.updates / 2, 0, -1, 0});
  context_.reportIteration(record);
  context_.reportProgress(
      "iteration " + std::to_string(iteration) + "/" + std::to_string(params_.iterations),
      static_cast<double>(iteration) / params_.iterations);

  // The stop rule: go on while the weighted residual still falls by at least the fraction asked.
  // The user's "stop and keep" is checked after it, so a run that converged says so.
  const std::string userStop = context_.stopRequested() && iteration < params_.iterations
                                   ? stoppedByUser(iteration, params_.iterations)
                                   : std::string();
  const std::size_t n = report_.iterations.size();
  if (params_.stopRelativeChange <= 0 || n < 2) return userStop;
  const double before = report_.iterations[n - 2].weightedResidualNorm;
  const double now = report_.iterations[n - 1].weightedResidualNorm;
  const double change = before > 0 ? (before - now) / before : 0.0;
  if (change >= params_.stopRelativeChange) return userStop;
  char text[160];
  std::snprintf(text, sizeof text, "the weighted residual fell by %.3g (< %.3g) in iteration %zu",
                change, params_.stopRelativeChange, n);
  return text;
}

void IterationLog::publish(const op::ProjectorPair& pair, const op::Array& x, int iteration,
                           bool last) {
  if (!context_.wantsIntermediates() || params_.publishEvery <= 0) return;
  if (iteration % params_.publishEvery != 0 && iteration != params_.iterations && !last) return;
  const std::string label = "iteration " + std::to_string(iteration);
  if (const auto* host = dynamic_cast<const op::HostVolumeArray*>(&x)) {
    context_.publishIntermediate(host->volume(), label);
    return;
  }
  if (scratch_.empty()) scratch_ = pair.problem().grid.makeVolume();
  pair.ops().download(x, scratch_.voxels());
  context_.publishIntermediate(scratch_, label);
}

std::string stoppedByUser(int done, int planned) {
  return "stopped by the user after " + std::to_string(done) + " of " + std::to_string(planned) +
         " iterations";
}

double dataNormOf(const ProjectionStack& projections) {
  double sum = 0;
  for (const float b : projections.pixels()) sum += static_cast<double>(b) * b;
  return std::sqrt(sum);
}

}  // namespace tomowb::iterative
