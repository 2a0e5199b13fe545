#include "recon/iterative/Cgls.h"

#include <cmath>
#include <cstdio>

#include "recon/iterative/IterationLog.h"

namespace tomowb::iterative {

void runCgls(op::ProjectorPair& pair, const op::Array& data, const op::Array* mask, op::Array& x,
             const IterativeParams& params, double dataNorm, IterativeReport& report,
             JobContext& context) {
  const op::ArrayOps& ops = pair.ops();
  const double voxels = static_cast<double>(pair.problem().grid.shape.voxelCount());
  const double views = static_cast<double>(pair.problem().geometry->viewCount());
  const auto started = Clock::now();
  IterationTotals setup;

  // r = b - A x
  std::unique_ptr<op::Array> r = pair.makeProjections();
  auto clock = Clock::now();
  pair.forward(x, *r, {}, context);
  setup.forwardSeconds += secondsSince(clock);
  ops.xpby(data, -1.0, *r);
  // s = M B r, p = s
  std::unique_ptr<op::Array> s = pair.makeVolume();
  clock = Clock::now();
  pair.adjoint(*r, *s, {}, context);
  setup.backSeconds += secondsSince(clock);
  setup.updates += 2.0 * voxels * views;
  if (mask) ops.clampMasked(*s, mask, -INFINITY, INFINITY);
  std::unique_ptr<op::Array> p = pair.makeVolume();
  ops.copy(*s, *p);
  std::unique_ptr<op::Array> q = pair.makeProjections();
  double gamma = ops.dot(*s, *s);
  double residual2 = ops.dot(*r, *r);
  report.setupSeconds = secondsSince(started);
  report.forwardSeconds += setup.forwardSeconds;
  report.backprojectSeconds += setup.backSeconds;
  report.voxelUpdates += setup.updates;

  IterationLog log(params, report, context, dataNorm);
  report.stopReason = std::to_string(params.iterations) + " iterations";
  for (int iteration = 1; iteration <= params.iterations; ++iteration) {
    context.throwIfCancelled();
    const auto iterationStart = Clock::now();
    IterationTotals t;
    t.residual2 = t.weighted2 = residual2;
    const double gradientNorm = std::sqrt(gamma);
    std::string stop;
    double alpha = 0;
    if (!(gamma > 0)) {
      stop = "the gradient vanished in iteration " + std::to_string(iteration) +
             " (x solves the least-squares problem)";
    } else {
      clock = Clock::now();
      pair.forward(*p, *q, {}, context);
      t.forwardSeconds += secondsSince(clock);
      const double qq = ops.dot(*q, *q);
      if (!(qq > 0)) {
        stop = "A p vanished in iteration " + std::to_string(iteration);
      } else {
        alpha = gamma / qq;
        ops.axpy(alpha, *p, x);
        ops.axpy(-alpha, *q, *r);
        ops.fill(*s, 0.0f);
        clock = Clock::now();
        pair.adjoint(*r, *s, {}, context);
        t.backSeconds += secondsSince(clock);
        if (mask) ops.clampMasked(*s, mask, -INFINITY, INFINITY);
        const double gammaNext = ops.dot(*s, *s);
        ops.xpby(*s, gammaNext / gamma, *p);
        gamma = gammaNext;
        residual2 = ops.dot(*r, *r);
      }
      t.updates += 2.0 * voxels * views;
    }
    const std::string converged =
        log.record(iteration, t, secondsSince(iterationStart), "||b - Ax||^2 / 2", t.residual2 / 2,
                   {{"gradient norm", gradientNorm}, {"step", alpha}});
    if (stop.empty()) stop = converged;
    if (!stop.empty()) report.stopReason = stop;
    log.publish(pair, x, iteration, !stop.empty());
    if (!stop.empty()) break;
  }
}

}  // namespace tomowb::iterative
