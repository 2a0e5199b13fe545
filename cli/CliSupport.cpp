#include "CliSupport.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <iterator>
#include <numbers>
#include <string_view>

#include "FiniteNumbers.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/GeometryJson.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {

CancelToken& interruptToken() {
  static CancelToken token;
  return token;
}

namespace {
extern "C" void onInterrupt(int signal) {
  // The first SIGINT/SIGTERM only sets the token (a lock-free atomic store: async-signal-safe):
  // the job notices within one slab or view block and unwinds, and atomic writers remove their
  // temporary files. A second one restores the default action and ends the process at once.
  if (interruptToken().requested()) {
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    sigemptyset(&defaults.sa_mask);
    ::sigaction(signal, &defaults, nullptr);
    ::raise(signal);
    return;
  }
  interruptToken().request();
}
}  // namespace

void installSignalHandlers() {
  interruptToken();  // construct before any signal can arrive
  // No SA_RESTART: a blocking open(), read() or waitpid() returns EINTR, so that a run blocked
  // on a FIFO or waiting for a child notices the request instead of sleeping on.
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

namespace {

// The first pair of (rank, size) variables that is set and consistent.
std::optional<std::pair<int, int>> rankPairFrom(
    std::initializer_list<std::pair<const char*, const char*>> names) {
  for (const auto& [rankName, sizeName] : names) {
    const char* rank = std::getenv(rankName);  // NOLINT(concurrency-mt-unsafe): before threads
    const char* size = std::getenv(sizeName);  // NOLINT(concurrency-mt-unsafe)
    if (rank == nullptr || size == nullptr) continue;
    const int r = std::atoi(rank), n = std::atoi(size);
    if (n >= 1 && r >= 0 && r < n) return std::make_pair(r, n);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::pair<int, int>> launcherRanks() {
  return rankPairFrom({{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                       {"PMI_RANK", "PMI_SIZE"},
                       {"SLURM_PROCID", "SLURM_NTASKS"}});
}

std::optional<std::pair<int, int>> localLauncherRanks() {
  return rankPairFrom({{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                       {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
                       {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}});
}

std::string bindLocalRankToOneGpu(int argc, const char* const* argv) {
  // One rank alone on its machine too (mpirun -np 1, or one rank per node): Open MPI binds the
  // ranks of -np <= 2 to one core each, which left a lone rank one thread (2026-11-27o: compute
  // 0.70 s against 0.31 s for the same FDK outside mpirun).
  const auto local = localLauncherRanks();
  if (!local || local->second < 1) return {};
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--gpus" || std::string_view(argv[i]).rfind("--gpus=", 0) == 0)
      return {};
  // Read and set before any thread starts (main's first call).
  if (const char* binding = std::getenv("TOMOWB_GPU_BINDING");  // NOLINT(concurrency-mt-unsafe)
      binding != nullptr && std::string_view(binding) == "off")
    return {};
  // The driver's GPUs without asking CUDA (which would fix the visible set for good).
  std::size_t driverGpus = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it("/proc/driver/nvidia/gpus", error), end;
       !error && it != end; it.increment(error))
    ++driverGpus;
  std::string mine =
      cuda::gpuForLocalRank(local->first, local->second,
                            std::getenv("CUDA_VISIBLE_DEVICES"),  // NOLINT(concurrency-mt-unsafe)
                            driverGpus);
  if (!mine.empty())
    ::setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
  return mine;
}

namespace {
int& widenedCores() {
  static int cores = 0;
  return cores;
}
}  // namespace

std::string widenSingleCoreLauncherBinding() {
  // One rank alone on its machine too (mpirun -np 1, or one rank per node): Open MPI binds the
  // ranks of -np <= 2 to one core each, which left a lone rank one thread (2026-11-27o: compute
  // 0.70 s against 0.31 s for the same FDK outside mpirun).
  const auto local = localLauncherRanks();
  if (!local || local->second < 1) return {};
  if (const char* binding = std::getenv("TOMOWB_CPU_BINDING");  // NOLINT(concurrency-mt-unsafe)
      binding != nullptr && std::string_view(binding) == "keep")
    return {};
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0 || CPU_COUNT(&mask) != 1) return {};
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  const int ranks = local->second;
  if (online <= ranks || online > CPU_SETSIZE) return {};
  const long first = local->first * online / ranks, last = (local->first + 1) * online / ranks;
  cpu_set_t share;
  CPU_ZERO(&share);
  for (long cpu = first; cpu < last; ++cpu) CPU_SET(static_cast<int>(cpu), &share);
  if (sched_setaffinity(0, sizeof share, &share) != 0) return {};  // a cpuset forbids: keep it
  // The kernel keeps only the CPUs a cpuset allows: count what this process got.
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) widenedCores() = CPU_COUNT(&mask);
  return "cores " + std::to_string(first) + "-" + std::to_string(last - 1);
}

int widenedLauncherBindingCores() {
  return widenedCores();
}

void tracePhase(std::string_view what) {
  static const bool wanted = [] {
    const char* text = std::getenv("TOMOWB_PHASES");  // NOLINT(concurrency-mt-unsafe)
    return text != nullptr && text[0] != '\0' && std::string_view(text) != "0";
  }();
  if (!wanted) return;
  static const auto start = std::chrono::steady_clock::now();
  const double since =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double epoch =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const int rank = launcherRanks().value_or(std::make_pair(0, 1)).first;
  std::fprintf(stderr, "[phases] rank %d: epoch %.3f, +%.3f s %.*s\n", rank, epoch, since,
               static_cast<int>(what.size()), what.data());
}

namespace {
std::unique_ptr<io::ProgressFileWriter>& progressFile() {
  static std::unique_ptr<io::ProgressFileWriter> file;
  return file;
}
}  // namespace

void startProgressFile(const std::string& path) {
  const auto ranks = launcherRanks().value_or(std::make_pair(0, 1));
  progressFile() = std::make_unique<io::ProgressFileWriter>(
      io::progressPathForRank(path, ranks.first, ranks.second), ranks.first, ranks.second);
}

void finishProgressFile(io::ProgressState state, int exitCode, std::string_view message) noexcept {
  if (progressFile()) progressFile()->finish(state, exitCode, message);
}

bool progressWanted(bool forced, bool quiet) {
  if (quiet) return false;
  return forced || ::isatty(STDERR_FILENO) == 1;
}

ProgressBar::ProgressBar(bool enabled)
    : enabled_(enabled), started_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::report(std::string_view stage, double fraction) {
  if (progressFile()) progressFile()->report(stage, fraction);
  if (!enabled_) return;
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && fraction < 1.0 && now - lastDraw_ < std::chrono::milliseconds(100)) return;
  lastDraw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(std::clamp(fraction, 0.0, 1.0) * kWidth);
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  std::string bar(static_cast<std::size_t>(filled), '#');
  bar.resize(kWidth, '.');
  std::fprintf(stderr, "\r[%s] %3d%% %-12.*s %6.1f s", bar.c_str(),
               static_cast<int>(std::lround(100 * std::clamp(fraction, 0.0, 1.0))),
               static_cast<int>(stage.size()), stage.data(), elapsed);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  std::lock_guard lock(mutex_);
  if (enabled_ && drawn_) {
    std::fputc('\n', stderr);
    drawn_ = false;
  }
}

// --- Telemetry ------------------------------------------------------------------------------

namespace {

// The columns of --telemetry FILE: the event's own figures, then the NVML sample's.
constexpr const char* kTelemetryColumns[] = {"step",
                                             "variant",
                                             "device",
                                             "seconds",
                                             "voxel_updates",
                                             "gups",
                                             "bytes",
                                             "bandwidth_gbps",
                                             "device_memory_bytes",
                                             "elapsed_s",
                                             "utilisation_percent",
                                             "memory_utilisation_percent",
                                             "sm_clock_mhz",
                                             "memory_clock_mhz",
                                             "power_w",
                                             "temperature_c"};
constexpr std::size_t kTelemetryColumnCount = std::size(kTelemetryColumns);

std::string numberText(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

std::string lowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

// One row of the telemetry file; a cell is empty where the row has no such figure.
struct TelemetryLog::Row {
  std::string text[kTelemetryColumnCount];
  std::optional<double> number[kTelemetryColumnCount];

  void set(std::size_t column, double value) {
    number[column] = value;
    text[column] = numberText(value);
  }
};

TelemetryLog::TelemetryLog() : started_(std::chrono::steady_clock::now()) {}

TelemetryLog::~TelemetryLog() {
  stopGpuSampling();
}

double TelemetryLog::elapsedSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

void TelemetryLog::publish(const TelemetryEvent& event) {
  const double elapsed = elapsedSeconds();
  std::lock_guard lock(mutex_);
  events_.emplace_back(elapsed, event);
}

std::vector<TelemetryEvent> TelemetryLog::events() const {
  std::lock_guard lock(mutex_);
  std::vector<TelemetryEvent> out;
  out.reserve(events_.size());
  for (const auto& [elapsed, e] : events_) out.push_back(e);
  return out;
}

nlohmann::json TelemetryLog::toJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const TelemetryEvent& e : events()) {
    nlohmann::json item{{"step", e.step},
                        {"variant", e.variant},
                        {"seconds", e.seconds},
                        {"voxelUpdates", e.voxelUpdates},
                        {"gups", e.gups()}};
    if (e.device >= 0) item["device"] = e.device;
    if (e.bytesMoved > 0) {
      item["bytes"] = e.bytesMoved;
      item["bandwidthGBps"] = e.bandwidthGBps();
    }
    if (e.deviceMemoryBytes > 0) item["deviceMemoryBytes"] = e.deviceMemoryBytes;
    out.push_back(std::move(item));
  }
  return out;
}

bool TelemetryLog::startGpuSampling(std::vector<int> devices, std::chrono::milliseconds interval) {
  stopGpuSampling();
  if (!monitor_) monitor_ = std::make_unique<GpuMonitor>();
  if (!monitor_->available() || monitor_->deviceCount() == 0) return false;
  if (devices.empty())
    for (int d = 0; d < monitor_->deviceCount(); ++d) devices.push_back(d);
  {
    std::lock_guard lock(stopMutex_);
    stopRequested_ = false;
  }
  sampler_ = std::thread(
      [this, devices = std::move(devices), interval] { sampleLoop(devices, interval); });
  return true;
}

void TelemetryLog::stopGpuSampling() {
  {
    std::lock_guard lock(stopMutex_);
    stopRequested_ = true;
  }
  stopSignal_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

void TelemetryLog::sampleLoop(std::vector<int> devices, std::chrono::milliseconds interval) {
  std::unique_lock stopLock(stopMutex_);
  do {
    stopLock.unlock();
    for (const int device : devices) {
      std::optional<GpuSample> sample = monitor_->sample(device);
      if (!sample) continue;
      const double elapsed = elapsedSeconds();
      std::lock_guard lock(mutex_);
      gpuSamples_.emplace_back(elapsed, std::move(*sample));
    }
    stopLock.lock();
  } while (!stopSignal_.wait_for(stopLock, interval, [this] { return stopRequested_; }));
}

std::vector<TelemetryLog::Row> TelemetryLog::rows() const {
  std::lock_guard lock(mutex_);
  std::vector<Row> out;
  for (const auto& [elapsed, e] : events_) {
    Row r;
    r.text[0] = e.step;
    r.text[1] = e.variant;
    r.set(2, e.device);
    r.set(3, e.seconds);
    r.set(4, e.voxelUpdates);
    if (e.voxelUpdates > 0) r.set(5, e.gups());
    r.set(6, e.bytesMoved);
    if (e.bytesMoved > 0) r.set(7, e.bandwidthGBps());
    if (e.deviceMemoryBytes > 0) r.set(8, e.deviceMemoryBytes);
    r.set(9, elapsed);
    out.push_back(std::move(r));
  }
  for (const auto& [elapsed, g] : gpuSamples_) {
    Row r;
    r.text[0] = "nvml";
    r.set(2, g.device);
    r.set(8, double(g.memoryUsedBytes));  // every process on the device, the driver's included
    r.set(9, elapsed);
    if (g.gpuUtilisationPercent) r.set(10, *g.gpuUtilisationPercent);
    if (g.memoryUtilisationPercent) r.set(11, *g.memoryUtilisationPercent);
    if (g.smClockMHz) r.set(12, *g.smClockMHz);
    if (g.memoryClockMHz) r.set(13, *g.memoryClockMHz);
    if (g.powerWatts) r.set(14, *g.powerWatts);
    if (g.temperatureCelsius) r.set(15, *g.temperatureCelsius);
    out.push_back(std::move(r));
  }
  return out;
}

std::string TelemetryLog::csv() const {
  std::string text;
  for (std::size_t c = 0; c < kTelemetryColumnCount; ++c) {
    if (c > 0) text += ',';
    text += kTelemetryColumns[c];
  }
  text += '\n';
  for (const Row& r : rows()) {
    for (std::size_t c = 0; c < kTelemetryColumnCount; ++c) {
      if (c > 0) text += ',';
      text += csvField(r.text[c]);
    }
    text += '\n';
  }
  return text;
}

nlohmann::json TelemetryLog::rowsJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const Row& r : rows()) {
    nlohmann::json item = nlohmann::json::object();
    for (std::size_t c = 0; c < kTelemetryColumnCount; ++c) {
      if (r.number[c] && *r.number[c] == std::trunc(*r.number[c]) &&
          std::abs(*r.number[c]) < 0x1p53)
        item[kTelemetryColumns[c]] = static_cast<std::int64_t>(*r.number[c]);  // counts, indices
      else if (r.number[c])
        item[kTelemetryColumns[c]] = *r.number[c];
      else if (!r.text[c].empty())
        item[kTelemetryColumns[c]] = r.text[c];
    }
    out.push_back(std::move(item));
  }
  return out;
}

void TelemetryLog::writeFile(const std::string& path) const {
  const std::string ext = lowerExtension(path);
  if (ext != ".csv" && ext != ".json")
    throw ParameterError("--telemetry", "'" + path + "': the name must end in .csv or .json");
  io::AtomicFileWriter out(path);
  out.write(ext == ".csv" ? csv() : rowsJson().dump(2) + "\n");
  out.commit();
}

void TelemetryFileOptions::addTo(CLI::App& app) {
  app.add_option("--telemetry", path,
                 "write every telemetry event (and NVML samples of the GPUs during a GPU run, "
                 "every 100 ms) to FILE: .csv, or .json with the same rows")
      ->check(CLI::Validator(
          [](std::string& name) {
            const std::string ext = lowerExtension(name);
            return ext == ".csv" || ext == ".json" ? std::string()
                                                   : "the name must end in .csv or .json";
          },
          "FILE.csv|FILE.json"));
}

namespace {

// The bytes `text` stands for, or why it is not a size (`why` set, 0 returned).
std::uint64_t byteSize(const std::string& text, std::string* why) {
  const auto fail = [&](const std::string& problem) -> std::uint64_t {
    *why = "'" + text + "' " + problem;
    return 0;
  };
  const char* kNotASize =
      "is not a size: give bytes, or a number with K, M, G, T or KiB, MiB, GiB, TiB (x1024) or "
      "KB, MB, GB, TB (x1000), e.g. 512M or 1.5GiB";
  std::size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.'))
    ++end;
  if (end == 0 || std::count(text.begin(), text.begin() + long(end), '.') > 1 || text[0] == '.')
    return fail(kNotASize);
  const double number = std::stod(text.substr(0, end));
  std::string unit = text.substr(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  std::transform(unit.begin(), unit.end(), unit.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static const std::pair<const char*, double> kUnits[] = {
      {"", 1.0},       {"b", 1.0},    {"k", 0x1p10},   {"kib", 0x1p10}, {"m", 0x1p20},
      {"mib", 0x1p20}, {"g", 0x1p30}, {"gib", 0x1p30}, {"t", 0x1p40},   {"tib", 0x1p40},
      {"kb", 1e3},     {"mb", 1e6},   {"gb", 1e9},     {"tb", 1e12}};
  const auto* found = std::find_if(std::begin(kUnits), std::end(kUnits),
                                   [&](const auto& u) { return unit == u.first; });
  if (found == std::end(kUnits)) return fail(kNotASize);
  const double bytes = std::floor(number * found->second);
  if (!(bytes >= 1.0)) return fail("is less than one byte: give a size > 0");
  if (bytes >= 0x1p64) return fail("is 2^64 bytes or more");
  why->clear();
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace

std::uint64_t parseByteSize(std::string_view text, std::string_view option) {
  std::string why;
  const std::uint64_t bytes = byteSize(std::string(text), &why);
  if (!why.empty()) throw ParameterError(option, why);
  return bytes;
}

void GeometryOptions::addTo(CLI::App& app) {
  auto* g = app.add_option_group("Geometry", "a geometry file, or a circular scan built here");
  g->add_option("--geometry", file,
                "geometry JSON (vector views or a 'builder' block; docs/geometry.md); overrides "
                "the flags below")
      ->check(CLI::ExistingFile);
  g->add_option("--beam", beam, "cone or parallel")
      ->check(CLI::IsMember({"cone", "parallel"}))
      ->capture_default_str();
  g->add_option("--scan", scan, "full (360 deg), short (180 deg + fan, Parker) or arc (--arc-deg)")
      ->check(CLI::IsMember({"full", "short", "arc"}))
      ->capture_default_str();
  g->add_option("--detector", detector,
                "flat, or arc: a cylinder centred on the source (cone beams; --pitch-mm and "
                "--offset-u-mm are then arc lengths)")
      ->check(CLI::IsMember({"flat", "arc"}))
      ->capture_default_str();
  g->add_option("--sod", sourceToIsocentreMm, "source to isocentre distance, mm")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  g->add_option("--sdd", sourceToDetectorMm, "source to detector distance, mm")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  g->add_option("--cols", cols, "detector columns (pixels)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  g->add_option("--rows", rows, "detector rows (pixels)")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  g->add_option("--views", views, "number of projections")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  g->add_option("--pitch-mm", pitchMm, "detector pixel pitch, mm")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  g->add_option("--offset-u-mm", offsetUMm, "detector offset along its columns, mm (half-fan)")
      ->capture_default_str();
  g->add_option("--offset-v-mm", offsetVMm, "detector offset along its rows, mm")
      ->capture_default_str();
  g->add_option("--start-deg", startDeg, "angle of the first view, degrees")->capture_default_str();
  g->add_option("--arc-deg", arcDeg, "angular range for --scan arc, degrees");
}

Geometry GeometryOptions::build() const {
  if (!file.empty()) return loadGeometry(file);
  constexpr double kDeg = std::numbers::pi / 180.0;
  DetectorParams d;
  d.cols = cols;
  d.rows = rows;
  d.pitchUMm = d.pitchVMm = pitchMm;
  d.offsetUMm = offsetUMm;
  d.offsetVMm = offsetVMm;
  d.surface = detector == "arc" ? DetectorSurface::Cylinder : DetectorSurface::Flat;
  if (beam == "parallel" && d.surface == DetectorSurface::Cylinder)
    throw ParameterError("--detector",
                         "arc needs a cone beam (the cylinder is centred on the source)");
  CircularConeParams c;
  c.sourceToIsocentreMm = sourceToIsocentreMm;
  c.sourceToDetectorMm = sourceToDetectorMm;
  c.detector = d;
  std::vector<double> angles;
  if (scan == "full") {
    angles = fullScanAnglesRad(views, startDeg * kDeg);
  } else if (scan == "short") {
    if (beam == "parallel")
      angles = arcAnglesRad(views, std::numbers::pi * (1.0 - 1.0 / double(views)), startDeg * kDeg);
    else
      angles = shortScanAnglesRad(c, views, startDeg * kDeg);
  } else {
    if (!(arcDeg > 0)) throw ParameterError("--arc-deg", "must be > 0 with --scan arc");
    angles = arcAnglesRad(views, arcDeg * kDeg, startDeg * kDeg);
  }
  if (beam == "parallel") return parallelBeam({d, angles});
  c.anglesRad = std::move(angles);
  return circularConeBeam(c);
}

void GridOptions::addTo(CLI::App& app) {
  auto* g = app.add_option_group("Volume", "the reconstruction grid (centred on the isocentre)");
  g->add_option("--size", size, "cubic volume edge, voxels")->check(CLI::Range(1, 1 << 20));
  g->add_option("--shape", shape, "nx ny nz, voxels")->expected(3)->check(CLI::Range(1, 1 << 20));
  g->add_option("--voxel-mm", voxelMm,
                "voxel size, mm (default: the detector pitch scaled to the isocentre)")
      ->check(finitePositiveNumber());
  g->add_option("--origin-mm", originMm,
                "x y z of the centre of voxel (0,0,0), mm (default: volume centred on the "
                "isocentre)")
      ->expected(3)
      ->check(finiteNumber());
}

fdk::VolumeGrid GridOptions::build(const Geometry& geometry) const {
  // The default grid covers the field of view; --shape or --size replace its shape.
  fdk::VolumeGrid grid = illuminated ? fdk::illuminatedGrid(geometry, voxelMm)
                                     : fdk::fieldOfViewGrid(geometry, voxelMm);
  if (!shape.empty())
    grid = fdk::VolumeGrid::centred({shape[0], shape[1], shape[2]}, grid.voxelSizeMm);
  else if (size > 0)
    grid = fdk::VolumeGrid::centred({size, size, size}, grid.voxelSizeMm);
  if (!originMm.empty()) grid.originMm = Eigen::Vector3d(originMm[0], originMm[1], originMm[2]);
  return grid;
}

void PhantomOptions::addTo(CLI::App& app) {
  app.add_option("--phantom", name,
                 "modified-shepp-logan, shepp-logan, cnr (low-contrast spheres in water) or "
                 "orientation (asymmetric spheres)")
      ->check(CLI::IsMember({"modified-shepp-logan", "shepp-logan", "cnr", "orientation"}))
      ->capture_default_str();
  app.add_option("--phantom-scale-mm", scaleMm,
                 "size of the Shepp-Logan / orientation phantom: the head is 0.92 x this tall, mm")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

phantom::Phantom PhantomOptions::build() const {
  if (name == "shepp-logan") return phantom::sheppLogan3d(scaleMm);
  if (name == "cnr") return phantom::cnrPhantom();
  if (name == "orientation") return phantom::orientationPhantom(scaleMm);
  return phantom::modifiedSheppLogan3d(scaleMm);
}

void FdkOptions::addTo(CLI::App& app) {
  auto* g = app.add_option_group("FDK", filterOptions ? "filter, weights, device and kernel variant"
                                                      : "device and kernel variant");
  if (filterOptions) addFilterOptionsTo(*g);
  addDeviceOptionsTo(*g);
}

void FdkOptions::addFilterOptionsTo(CLI::App& app) {
  CLI::App* g = &app;
  g->add_option("--filter", filter, "ramp window: ram-lak, shepp-logan, cosine, hamming, hann")
      ->capture_default_str();
  g->add_option("--cutoff", cutoff, "filter cut-off as a fraction of Nyquist, (0, 1]")
      ->check(CLI::Validator(
          [](std::string& text) {
            // CLI::Range(0, 1) would let 0 through and NaN compares false both ways.
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0' || !(value > 0.0 && value <= 1.0))
              return std::string("must be a number in (0, 1], got '" + text + "'");
            return std::string();
          },
          "(0, 1]"))
      ->capture_default_str();
  g->add_option("--redundancy", redundancy,
                "auto, full-scan, parker (short scan), offset-detector (half-fan), none or helical")
      ->capture_default_str();
  g->add_flag("--fov-mask", fovMask, "zero the voxels outside the field of view every view sees");
  g->add_flag("--allow-incomplete", allowIncomplete,
              "reconstruct a short scan that covers less than 180 deg + fan angle, with a "
              "warning (refused without it)");
}

void FdkOptions::addDeviceOptionsTo(CLI::App& app) {
  CLI::App* g = &app;
  g->add_option("--device", device,
                "cpu or gpu (default: the variant's device; the CPU without --variant)")
      ->check(CLI::IsMember({"cpu", "gpu"}));
  g->add_option("--variant", variant,
                "backprojection kernel variant (default: fdk.bp.cpu on the CPU, fdk.bp.fast on "
                "the GPU; 'tomowb-cli variants' lists them)");
  g->add_option("--gpu-mem-limit", gpuMemoryLimit,
                "use at most SIZE of each GPU's memory: bytes, or 512M, 2G, 1.5GiB (x1024), "
                "2GB (x1000) (default: the free memory)")
      ->check(CLI::Validator(
          [](std::string& text) {
            std::string why;
            byteSize(text, &why);
            return why;
          },
          "SIZE"));
  g->add_option("--gpus", gpus, "CUDA device indices to run on, e.g. 0,1 (default: every GPU)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  g->add_option("--tunable", tunables,
                "NAME=VALUE: a tunable of the variant ('tomowb-cli variants'); repeatable")
      ->allow_extra_args(false);
}

namespace {

std::string variantNames(const std::vector<const KernelVariant*>& variants) {
  std::string names;
  for (const KernelVariant* v : variants) {
    if (!names.empty()) names += ", ";
    names += v->name;
  }
  return names.empty() ? "none" : names;
}

std::vector<const KernelVariant*> variantsOn(bool gpu) {
  std::vector<const KernelVariant*> out;
  for (const KernelVariant* v : VariantRegistry::builtins().withRole(VariantRole::FdkBackprojector))
    if (v->needsGpu == gpu) out.push_back(v);
  return out;
}

std::string tunableList(const KernelVariant& v) {
  if (v.tunables.empty()) return v.name + " has no tunables";
  std::string text = v.name + "'s tunables: ";
  for (std::size_t i = 0; i < v.tunables.size(); ++i) {
    const Tunable& t = v.tunables[i];
    if (i > 0) text += ", ";
    text += t.name + " (default " + t.defaultValue + ": " + t.description + ")";
  }
  return text;
}

}  // namespace

void requireGpu(const std::string& option) {
  const std::vector<cuda::GpuDevice> devices = cuda::listGpuDevices();
  if (variantsOn(true).empty() || devices.empty())
    throw ParameterError(option,
                         "no GPU can run here (" + cuda::gpuStatus() +
                             "); 'tomowb-cli variants' lists the kernel variants and GPUs of this "
                             "build; run with --device cpu");
}

fdk::FdkParams FdkOptions::build(std::vector<std::string>* warnings) const {
  fdk::FdkParams p;
  p.filter.window = fdk::rampWindowFromString(filter);
  p.filter.cutoff = cutoff;
  p.redundancy = fdk::redundancyModeFromString(redundancy);
  p.fieldOfViewMask = fovMask;
  p.allowIncomplete = allowIncomplete;

  // The device first: --device gpu on a machine without one says so, whatever the variant.
  if (device == "gpu") requireGpu("--device");
  p.variant = !variant.empty()
                  ? variant
                  : VariantRegistry::builtins()
                        .defaultFor(VariantRole::FdkBackprojector,
                                    device == "gpu" ? VariantDevice::Gpu : VariantDevice::Cpu)
                        .name;
  const KernelVariant* v = VariantRegistry::builtins().find(p.variant);
  if (v == nullptr || v->role != VariantRole::FdkBackprojector) {
    std::string problem =
        "unknown FDK variant '" + p.variant + "'; this build has " +
        variantNames(VariantRegistry::builtins().withRole(VariantRole::FdkBackprojector)) +
        " ('tomowb-cli variants' describes them)";
    if (variantsOn(true).empty())
      problem += "; GPU variants need a CUDA build and a GPU: " + cuda::gpuStatus();
    throw ParameterError("--variant", problem);
  }
  if (device == "cpu" && v->needsGpu)
    throw ParameterError("--device", "cpu: '" + v->name + "' is a GPU variant; CPU variants: " +
                                         variantNames(variantsOn(false)));
  if (device == "gpu" && !v->needsGpu)
    throw ParameterError("--device", "gpu: '" + v->name + "' runs on the CPU; GPU variants: " +
                                         variantNames(variantsOn(true)));
  if (device.empty() && v->needsGpu) requireGpu("--variant " + v->name);

  if (!gpuMemoryLimit.empty())
    p.gpu.memoryLimitBytes = parseByteSize(gpuMemoryLimit, "--gpu-mem-limit");
  if (!gpus.empty()) {
    const std::vector<cuda::GpuDevice> present = cuda::listGpuDevices();
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (std::find(gpus.begin(), gpus.begin() + long(i), gpus[i]) != gpus.begin() + long(i))
        throw ParameterError("--gpus", "device " + std::to_string(gpus[i]) + " is named twice");
      if (v->needsGpu && std::none_of(present.begin(), present.end(),
                                      [&](const cuda::GpuDevice& d) { return d.index == gpus[i]; }))
        throw ParameterError("--gpus", "no GPU " + std::to_string(gpus[i]) + " (there are " +
                                           std::to_string(present.size()) +
                                           "; 'tomowb-cli variants' lists them)");
    }
    p.gpu.devices = gpus;
  }
  if (!v->needsGpu && warnings != nullptr) {
    if (!gpuMemoryLimit.empty())
      warnings->push_back("--gpu-mem-limit is ignored: " + v->name + " runs on the CPU");
    if (!gpus.empty()) warnings->push_back("--gpus is ignored: " + v->name + " runs on the CPU");
  }
  for (const std::string& t : tunables) {
    const auto equals = t.find('=');
    if (equals == std::string::npos || equals == 0)
      throw ParameterError("--tunable", "'" + t + "' is not NAME=VALUE; " + tunableList(*v));
    const std::string name = t.substr(0, equals);
    if (std::none_of(v->tunables.begin(), v->tunables.end(),
                     [&](const Tunable& known) { return known.name == name; }))
      throw ParameterError(
          "--tunable", "'" + name + "' is not a tunable of " + v->name + "; " + tunableList(*v));
    if (p.gpu.tunables.count(name) != 0)
      throw ParameterError("--tunable", "'" + name + "' is given twice");
    p.gpu.tunables[name] = t.substr(equals + 1);
  }
  return p;
}

bool runsOnGpu(const fdk::FdkParams& params) {
  const KernelVariant* v = VariantRegistry::builtins().find(params.variant);
  return v != nullptr && v->needsGpu;
}

nlohmann::json gridToJson(const fdk::VolumeGrid& grid) {
  return {{"shape", {grid.shape.nx, grid.shape.ny, grid.shape.nz}},
          {"voxelSizeMm", {grid.voxelSizeMm.x(), grid.voxelSizeMm.y(), grid.voxelSizeMm.z()}},
          {"originMm", {grid.originMm.x(), grid.originMm.y(), grid.originMm.z()}}};
}

nlohmann::json fdkReportToJson(const fdk::FdkReport& r) {
  return catalog::fdkReportToJson(r);
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  return text;
}

std::string transferText(const fdk::FdkReport& r) {
  return catalog::transferSummary(r);
}

}  // namespace tomowb::cli
