// Iterations of an iterative algorithm (SIRT, OS-SIRT, SART, CGLS...): one record per iteration
// with the residual, the objective the algorithm minimises and whatever other figures it reports
// by name, so the CLI prints the curves and the GUI plots them live while the slices refine.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace tomowb {

struct IterationRecord {
  std::string algorithm;            // "sirt", "os-sirt", "sart"
  int iteration = 0;                // 1-based
  int maxIterations = 0;            // the most the run will do
  double residualNorm = 0;          // ||b - A x|| of the iterate the iteration started from
  double weightedResidualNorm = 0;  // ||b - A x||_R, R = 1 / row sums: what SIRT minimises
  double relativeResidual = 0;      // residualNorm / ||b||
  double seconds = 0;               // wall time of the iteration
  // What the algorithm minimises, evaluated at the iterate the iteration started from (SIRT:
  // ||b - A x||_R^2 / 2; CGLS: ||b - A x||^2 / 2), and its name for plots and tables.
  std::string objectiveName;
  double objective = 0;
  // Further figures the algorithm reports, by name ("relative residual", "step"...), in the
  // order it reports them.
  std::vector<std::pair<std::string, double>> metrics;
};

struct IterationSink {
  virtual ~IterationSink() = default;
  // Called on the worker thread after each iteration.
  virtual void iterationDone(const IterationRecord& record) = 0;
};

}  // namespace tomowb
