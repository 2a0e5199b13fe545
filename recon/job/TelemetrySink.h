// Telemetry of a job: one event per timed step (a filtering pass, a backprojection block, a
// kernel launch), with the work it did, so sinks can show GUPS and throughput live.
#pragma once

#include <string>

namespace tomowb {

struct TelemetryEvent {
  // "fdk.filter", "fdk.backproject"; GPU runs also "fdk.upload", "fdk.download".
  std::string step;
  std::string variant;             // kernel variant used, e.g. "fdk.bp.cpu"
  double seconds = 0.0;            // wall time of the step
  double voxelUpdates = 0.0;       // voxel x view updates done in the step (0 if none)
  double bytesMoved = 0.0;         // host<->device or file bytes (0 if none)
  int device = -1;                 // CUDA device index of a GPU step; -1 on the CPU
  double deviceMemoryBytes = 0.0;  // device memory the run had allocated (0 if none or unknown)
  double gups() const noexcept { return seconds > 0 ? voxelUpdates / seconds / 1e9 : 0.0; }
  // bytesMoved / seconds in GB/s (1e9 bytes), e.g. an upload's PCIe bandwidth.
  double bandwidthGBps() const noexcept { return seconds > 0 ? bytesMoved / seconds / 1e9 : 0.0; }
};

struct TelemetrySink {
  virtual ~TelemetrySink() = default;
  virtual void publish(const TelemetryEvent& event) = 0;
};

}  // namespace tomowb
