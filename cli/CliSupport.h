// Shared pieces of tomowb-cli: the Ctrl-C cancel token, the progress bar on stderr, the
// telemetry log, exit codes, and option groups used by several commands (geometry builders,
// volume grids, phantoms).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "recon/core/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::cli {

// Exit codes (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;        // bad input file, bad parameter, I/O failure
inline constexpr int kExitUsage = 2;        // command line not understood
inline constexpr int kExitOutOfMemory = 3;  // the data would not fit in memory
inline constexpr int kExitCancelled = 130;  // interrupted (Ctrl-C / SIGINT / SIGTERM)

// The process-wide token that SIGINT and SIGTERM set (installed by installSignalHandlers()).
CancelToken& interruptToken();
void installSignalHandlers();

// A progress bar on stderr, redrawn at most 10 times a second; silent unless enabled.
class ProgressBar : public ProgressSink {
 public:
  explicit ProgressBar(bool enabled);
  ~ProgressBar() override;
  void report(std::string_view stage, double fraction) override;
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point started_, lastDraw_;
};

// Collects telemetry events, for the summary and --json.
class TelemetryLog : public TelemetrySink {
 public:
  void publish(const TelemetryEvent& event) override;
  const std::vector<TelemetryEvent>& events() const { return events_; }
  nlohmann::json toJson() const;

 private:
  std::mutex mutex_;
  std::vector<TelemetryEvent> events_;
};

// Whether to draw progress: --progress forces it, --quiet or a non-terminal stderr hide it.
bool progressWanted(bool forced, bool quiet);

// --- Option groups --------------------------------------------------------------------------

// A scan geometry from --geometry FILE or from builder flags (circular cone beam or parallel).
struct GeometryOptions {
  std::string file;
  std::string beam = "cone";
  std::string scan = "full";
  double sourceToIsocentreMm = 500, sourceToDetectorMm = 1000;
  std::int64_t cols = 256, rows = 256, views = 360;
  double pitchMm = 1.6;
  double offsetUMm = 0, offsetVMm = 0, startDeg = 0, arcDeg = 0;

  void addTo(CLI::App& app);
  Geometry build() const;
};

// The reconstruction grid: --size or --shape, --voxel-mm, --origin-mm; defaults from the
// geometry (isocentre pixel pitch, field of view).
struct GridOptions {
  std::int64_t size = 0;
  std::vector<std::int64_t> shape;
  double voxelMm = 0;
  std::vector<double> originMm;

  void addTo(CLI::App& app);
  fdk::VolumeGrid build(const Geometry& geometry) const;
};

struct PhantomOptions {
  std::string name = "modified-shepp-logan";
  double scaleMm = 100;

  void addTo(CLI::App& app);
  phantom::Phantom build() const;
};

// FDK settings shared by `recon fdk` and `demo`.
struct FdkOptions {
  std::string filter = "ram-lak";
  double cutoff = 1.0;
  std::string redundancy = "auto";
  bool fovMask = false;
  std::string variant = "fdk.bp.cpu";

  void addTo(CLI::App& app);
  fdk::FdkParams build(const fdk::VolumeGrid& grid) const;
};

// Throws ParameterError if writing `output` would replace a file that `input` consists of, e.g.
// `recon -i scan.json -o scan.mhd`, whose data file scan.raw is also the projections' data.
void checkOutputSparesInput(const std::string& input, const std::string& output);

nlohmann::json gridToJson(const fdk::VolumeGrid& grid);
nlohmann::json fdkReportToJson(const fdk::FdkReport& report);
std::string formatSeconds(double seconds);

}  // namespace tomowb::cli
