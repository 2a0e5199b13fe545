// Telemetry of a job: one event per timed step (a filtering pass, a backprojection block, a
// kernel launch), with the work it did, so sinks can show GUPS and throughput live.
#pragma once

#include <string>

namespace tomowb {

struct TelemetryEvent {
  std::string step;           // "fdk.filter", "fdk.backproject"
  std::string variant;        // kernel variant used, e.g. "fdk.bp.cpu"
  double seconds = 0.0;       // wall time of the step
  double voxelUpdates = 0.0;  // voxel x view updates done in the step (0 if none)
  double bytesMoved = 0.0;    // host<->device or file bytes (0 if none)
  double gups() const noexcept { return seconds > 0 ? voxelUpdates / seconds / 1e9 : 0.0; }
};

struct TelemetrySink {
  virtual ~TelemetrySink() = default;
  virtual void publish(const TelemetryEvent& event) = 0;
};

}  // namespace tomowb
