// HealthChecks: numerical health of a kernel variant (issue #9, point 4). Repeat-run determinism
// (run N times, count the voxels that differ from the first run: atomics-related noise shows up
// here), and for projector pairs the adjoint (dot-product) test <A x, y> = <x, A^T y> on random
// x and y, with its relative error.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/JobContext.h"

namespace tomowb::qa {

struct DeterminismReport {
  int runs = 0;
  std::int64_t voxels = 0;
  std::int64_t differingVoxels = 0;  // the most voxels any run differs from the first in
  double maxAbsDifference = 0;       // the largest difference from the first run
  bool bitIdentical() const { return differingVoxels == 0; }
  std::string summary() const;  // "bit-identical over 5 runs" / "12 of 262144 voxels differ ..."
};

// Compares each later run's volume with the first one, bit for bit.
class DeterminismCheck {
 public:
  void add(const Volume& volume);  // ParameterError when the shape differs from the first
  const DeterminismReport& report() const { return report_; }

 private:
  Volume first_;
  DeterminismReport report_;
};

// Runs `run` `runs` times (at least 2) and checks the results.
DeterminismReport checkDeterminism(const std::function<Volume(JobContext&)>& run, int runs,
                                   JobContext& context);

struct AdjointReport {
  std::string forward, back;  // variant names
  double forwardDot = 0;      // <A x, y>
  double backDot = 0;         // <x, A^T y>
  double relativeError = 0;   // |difference| / (||A x|| ||y||) (recon/operator/AdjointTest.h)
  std::string summary() const;
};

// The dot-product test of a forward projector and a backprojector (registry names) bound as a
// pair, on zero-mean random x (the grid's shape) and y (the geometry's stack) from `seed`
// (op::checkAdjoint). A matched pair gives rounding-level errors (1e-7 in float32); an unmatched
// one 1e-3 and more.
AdjointReport adjointTest(const std::string& forwardVariant, const std::string& backVariant,
                          const Geometry& geometry, const Volume& grid, std::uint64_t seed,
                          JobContext& context);

nlohmann::json toJson(const DeterminismReport& r);
nlohmann::json toJson(const AdjointReport& r);

}  // namespace tomowb::qa
