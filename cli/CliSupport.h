// Shared pieces of tomowb-cli: the Ctrl-C cancel token, the progress bar on stderr, the
// telemetry log (with NVML samples during GPU runs, written by --telemetry FILE), exit codes, and
// option groups used by several commands (geometry builders, volume grids, phantoms, FDK with its
// device, kernel variant and GPU options).
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/ProgressFile.h"
#include "recon/job/GpuMonitor.h"
#include "recon/job/JobContext.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::cli {

// Exit codes (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;        // bad input file, bad parameter, I/O failure
inline constexpr int kExitUsage = 2;        // command line not understood
inline constexpr int kExitOutOfMemory = 3;  // the data would not fit in memory
inline constexpr int kExitCancelled = 130;  // interrupted (Ctrl-C / SIGINT / SIGTERM)

// The process-wide token that SIGINT and SIGTERM set (installed by installSignalHandlers(), first
// thing in main, with sigaction and without SA_RESTART, so blocking calls return EINTR). A
// second SIGINT/SIGTERM restores the default action and ends the process at once.
CancelToken& interruptToken();
void installSignalHandlers();

// This process's rank and the number of ranks when a launcher started it: mpirun (Open MPI's
// OMPI_COMM_WORLD_*, MPICH's PMI_*) or srun (SLURM_PROCID, SLURM_NTASKS); nullopt otherwise.
std::optional<std::pair<int, int>> launcherRanks();
// This process's place among the ranks on its machine (Open MPI, MPICH/Hydra, srun), or nullopt.
std::optional<std::pair<int, int>> localLauncherRanks();

// Ranks that share a machine get one GPU each: with more than one local rank, no --gpus among
// the arguments and TOMOWB_GPU_BINDING not "off", sets CUDA_VISIBLE_DEVICES to the local rank's
// GPU (local rank mod the GPUs visible: those CUDA_VISIBLE_DEVICES lists, else the driver's
// /proc/driver/nvidia/gpus). Must run before the first CUDA call: the runtime reads the variable
// once. Without it each rank would make a context on every GPU and pin its buffers for all of
// them. Returns what it set (empty when it set nothing).
std::string bindLocalRankToOneGpu(int argc, const char* const* argv);

// Open MPI binds each rank to one core when it starts two or fewer (its default policy), which
// left a rank's OpenMP threads, slab writer and CUDA host work on one core: a 2-rank FDK computed
// 1.8 times slower than with `--bind-to none` on the two-H100 machine (issue #22). A process bound
// to a single core of a machine with more cores than local ranks (one rank alone included) is
// given its share instead: CPUs [k n / L, (k+1) n / L) of the n online ones, for local rank k
// of L. TOMOWB_CPU_BINDING=keep keeps the launcher's binding. Returns "cores A-B" when it widened
// the binding, else empty. Call before any thread starts.
std::string widenSingleCoreLauncherBinding();
// The cores the call above gave this process (0: it changed nothing).
int widenedLauncherBindingCores();

// TOMOWB_PHASES=1: "[phases] rank R: epoch E, +S s WHAT" on stderr, S the seconds since the first
// call (main's start), E the wall clock: where a run's time outside its slabs goes (process start,
// MPI, the input, the plan, the end; issue #22, point 6). Nothing without the variable.
void tracePhase(std::string_view what);

// --progress-file FILE (a global option, io/ProgressFile.h): started in main before the command
// runs, for rank K of N > 1 of a launcher as "<stem>.rank<K><ext>". Every ProgressBar reports to
// it, whether or not it draws; main writes the final state. IoError when FILE cannot be written.
void startProgressFile(const std::string& path);
// The final state, exit code and message (no-op without a progress file).
void finishProgressFile(io::ProgressState state, int exitCode, std::string_view message) noexcept;

// A progress bar on stderr, redrawn at most 10 times a second; silent unless enabled. Reports
// also go to the --progress-file, if any.
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

// Collects telemetry events with their time since the log was made, for the summary, --json and
// --telemetry FILE; during a GPU run also NVML samples of the GPUs (utilisation, clocks, power,
// memory), taken every `interval` on a thread of its own (GpuMonitor; nothing without NVML).
class TelemetryLog : public TelemetrySink {
 public:
  TelemetryLog();
  ~TelemetryLog() override;  // stops the sampling thread
  TelemetryLog(const TelemetryLog&) = delete;
  TelemetryLog& operator=(const TelemetryLog&) = delete;

  void publish(const TelemetryEvent& event) override;
  std::vector<TelemetryEvent> events() const;
  nlohmann::json toJson() const;  // the events, for --json

  // Samples `devices` (NVML indices, which match CUDA's where CUDA_DEVICE_ORDER=PCI_BUS_ID or
  // all GPUs are alike; empty: every GPU) until stopGpuSampling(). Returns false, and samples
  // nothing, when NVML is not available.
  bool startGpuSampling(std::vector<int> devices,
                        std::chrono::milliseconds interval = std::chrono::milliseconds(100));
  void stopGpuSampling();

  // One row per event (then one per NVML sample, step "nvml"), columns kTelemetryColumns.
  std::string csv() const;
  nlohmann::json rowsJson() const;  // the same rows as objects; empty cells left out
  // Writes csv() for a .csv path, rowsJson() for .json (atomically).
  void writeFile(const std::string& path) const;

 private:
  struct Row;
  std::vector<Row> rows() const;
  double elapsedSeconds() const;
  void sampleLoop(std::vector<int> devices, std::chrono::milliseconds interval);

  const std::chrono::steady_clock::time_point started_;
  mutable std::mutex mutex_;
  std::vector<std::pair<double, TelemetryEvent>> events_;  // (elapsed s, event)
  std::vector<std::pair<double, GpuSample>> gpuSamples_;
  std::unique_ptr<GpuMonitor> monitor_;
  std::mutex stopMutex_;
  std::condition_variable stopSignal_;
  bool stopRequested_ = false;
  std::thread sampler_;
};

// --telemetry FILE: .csv or .json (checked when parsing).
struct TelemetryFileOptions {
  std::string path;

  void addTo(CLI::App& app);
};

// A byte count: plain bytes ("1073741824"), or a number with a unit: K, M, G, T and KiB, MiB,
// GiB, TiB are powers of 1024 ("512M", "1.5GiB"); KB, MB, GB, TB powers of 1000; B is bytes.
// Throws ParameterError naming `option` for anything else, a value < 1 byte or beyond 2^64.
std::uint64_t parseByteSize(std::string_view text, std::string_view option);

// Whether to draw progress: --progress forces it, --quiet or a non-terminal stderr hide it.
bool progressWanted(bool forced, bool quiet);

// --- Option groups --------------------------------------------------------------------------

// A scan geometry from --geometry FILE or from builder flags (circular cone beam or parallel).
struct GeometryOptions {
  std::string file;
  std::string beam = "cone";
  std::string scan = "full";
  std::string detector = "flat";  // flat or arc (a cylinder centred on the source)
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
  // The default grid is fdk::illuminatedGrid's (iterative methods) instead of fieldOfViewGrid's.
  bool illuminated = false;

  void addTo(CLI::App& app);
  fdk::VolumeGrid build(const Geometry& geometry) const;
};

struct PhantomOptions {
  std::string name = "modified-shepp-logan";
  double scaleMm = 100;

  void addTo(CLI::App& app);
  phantom::Phantom build() const;
};

// FDK settings shared by `recon fdk` and `demo`: filter, weights, and where it runs. --device
// cpu (the default) picks fdk.bp.cpu, --device gpu fdk.bp.fast, unless --variant names one;
// a variant of the other device is an error, and so is --device gpu where no GPU can run (the
// message names `tomowb-cli variants` and cuda::gpuStatus()). --gpu-mem-limit, --gpus and
// --tunable NAME=VALUE fill params.gpu; a tunable the variant does not have is an error.
struct FdkOptions {
  std::string filter = "ram-lak";
  double cutoff = 1.0;
  std::string redundancy = "auto";
  bool fovMask = false;
  bool allowIncomplete = false;
  std::string device;   // "cpu", "gpu" or empty: the variant's device (the CPU without one)
  std::string variant;  // empty: by device
  std::string gpuMemoryLimit;
  std::vector<int> gpus;
  std::vector<std::string> tunables;  // NAME=VALUE
  // False: only the device and variant options (`recon fdk` takes the filter options from the
  // algorithm catalogue's descriptor).
  bool filterOptions = true;

  void addTo(CLI::App& app);
  void addFilterOptionsTo(CLI::App& app);
  void addDeviceOptionsTo(CLI::App& app);
  // The parameters without the grid (params.volume stays default). Throws ParameterError naming
  // the option; `warnings` gets options that do not apply (GPU options of a CPU variant).
  fdk::FdkParams build(std::vector<std::string>* warnings = nullptr) const;
};

// Throws ParameterError naming `option` unless a GPU variant is registered and a GPU answers.
void requireGpu(const std::string& option);

// Whether `params.variant` runs on a GPU (a registered variant with needsGpu).
bool runsOnGpu(const fdk::FdkParams& params);

nlohmann::json gridToJson(const fdk::VolumeGrid& grid);
nlohmann::json fdkReportToJson(const fdk::FdkReport& report);
std::string formatSeconds(double seconds);
// "upload 1.20 GiB in 0.10 s (12.9 GB/s), download 256 MiB in 0.02 s (13.4 GB/s)", or empty
// when the run moved nothing between host and device (a CPU run).
std::string transferText(const fdk::FdkReport& report);

}  // namespace tomowb::cli
