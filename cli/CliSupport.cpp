#include "CliSupport.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/fdk/FdkWeights.h"
#include "recon/geometry/GeometryJson.h"
#include "recon/phantom/CnrPhantom.h"

namespace tomowb::cli {

CancelToken& interruptToken() {
  static CancelToken token;
  return token;
}

namespace {
extern "C" void onInterrupt(int) {
  // Lock-free atomic store: async-signal-safe. The job notices within one slab or view block
  // and unwinds; atomic writers then remove their temporary files.
  interruptToken().request();
}
}  // namespace

void installSignalHandlers() {
  interruptToken();  // construct before any signal can arrive
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
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

void TelemetryLog::publish(const TelemetryEvent& event) {
  std::lock_guard lock(mutex_);
  events_.push_back(event);
}

nlohmann::json TelemetryLog::toJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const TelemetryEvent& e : events_)
    out.push_back({{"step", e.step},
                   {"variant", e.variant},
                   {"seconds", e.seconds},
                   {"voxelUpdates", e.voxelUpdates},
                   {"gups", e.gups()}});
  return out;
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
      ->check(CLI::PositiveNumber);
  g->add_option("--origin-mm", originMm,
                "x y z of the centre of voxel (0,0,0), mm (default: volume centred on the "
                "isocentre)")
      ->expected(3);
}

fdk::VolumeGrid GridOptions::build(const Geometry& geometry) const {
  // The default grid covers the field of view; --shape or --size replace its shape.
  fdk::VolumeGrid grid = fdk::VolumeGrid::coveringFieldOfView(geometry, voxelMm);
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
  auto* g = app.add_option_group("FDK", "filter, weights and kernel variant");
  g->add_option("--filter", filter, "ramp window: ram-lak, shepp-logan, cosine, hamming, hann")
      ->capture_default_str();
  g->add_option("--cutoff", cutoff, "filter cut-off as a fraction of Nyquist, (0, 1]")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  g->add_option("--redundancy", redundancy,
                "auto, full-scan, parker (short scan), offset-detector (half-fan) or none")
      ->capture_default_str();
  g->add_flag("--fov-mask", fovMask, "zero the voxels outside the field of view every view sees");
  g->add_option("--variant", variant, "backprojection kernel variant (see 'tomowb-cli variants')")
      ->capture_default_str();
}

fdk::FdkParams FdkOptions::build(const fdk::VolumeGrid& grid) const {
  fdk::FdkParams p;
  p.volume = grid;
  p.filter.window = fdk::rampWindowFromString(filter);
  p.filter.cutoff = cutoff;
  p.redundancy = fdk::redundancyModeFromString(redundancy);
  p.fieldOfViewMask = fovMask;
  p.variant = variant;
  return p;
}

namespace {
// The files a path stands for: a header and its data file where the format has two.
std::vector<std::filesystem::path> filesOf(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::filesystem::path stem = path;
  if (ext == ".json" || ext == ".raw")
    return {stem.replace_extension(".json"), stem.replace_extension(".raw")};
  if (ext == ".mhd") return {path, stem.replace_extension(".raw")};
  return {path};
}
}  // namespace

void checkOutputSparesInput(const std::string& input, const std::string& output) {
  for (const auto& in : filesOf(input))
    for (const auto& out : filesOf(output)) {
      std::error_code ec;
      if (std::filesystem::weakly_canonical(in, ec) == std::filesystem::weakly_canonical(out, ec))
        throw ParameterError("--out", "writing '" + output + "' would overwrite " + in.string() +
                                          ", part of the input '" + input +
                                          "': choose another name");
    }
}

nlohmann::json gridToJson(const fdk::VolumeGrid& grid) {
  return {{"shape", {grid.shape.nx, grid.shape.ny, grid.shape.nz}},
          {"voxelSizeMm", {grid.voxelSizeMm.x(), grid.voxelSizeMm.y(), grid.voxelSizeMm.z()}},
          {"originMm", {grid.originMm.x(), grid.originMm.y(), grid.originMm.z()}}};
}

nlohmann::json fdkReportToJson(const fdk::FdkReport& r) {
  return {{"variant", r.variant},
          {"weighting", r.weighting},
          {"warnings", r.warnings},
          {"filterSeconds", r.filterSeconds},
          {"backprojectSeconds", r.backprojectSeconds},
          {"voxelUpdates", r.voxelUpdates},
          {"backprojectGups", r.backprojectGups()}};
}

std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", seconds);
  return text;
}

}  // namespace tomowb::cli
