// Iterations of an iterative algorithm (SIRT, OS-SIRT, SART): one record per iteration with the
// residual, so the CLI prints the curve and the GUI plots it live while the slices refine.
#pragma once

#include <string>

namespace tomowb {

struct IterationRecord {
  std::string algorithm;            // "sirt", "os-sirt", "sart"
  int iteration = 0;                // 1-based
  int maxIterations = 0;            // the most the run will do
  double residualNorm = 0;          // ||b - A x|| of the iterate the iteration started from
  double weightedResidualNorm = 0;  // ||b - A x||_R, R = 1 / row sums: what SIRT minimises
  double relativeResidual = 0;      // residualNorm / ||b||
  double seconds = 0;               // wall time of the iteration
};

struct IterationSink {
  virtual ~IterationSink() = default;
  // Called on the worker thread after each iteration.
  virtual void iterationDone(const IterationRecord& record) = 0;
};

}  // namespace tomowb
