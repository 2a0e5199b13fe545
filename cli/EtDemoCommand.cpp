// `tomowb-cli demo-et`: the electron-tomography demo (issue #7). Projects the ET specimen phantom
// (slab, cells, gold beads, L marker) as a single-axis tilt series over -60..+60 degrees, writes
// it as an MRC stack with its .tlt, reads it back as a user's file would be read, reconstructs it
// with weighted backprojection and with SIRT, and compares both with the voxelised specimen in
// the well-sampled centre. A picture of the central slice (truth | WBP | SIRT, x across, the
// specimen's thickness up) shows the missing wedge's elongation and how SIRT reduces it.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/OutputSet.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/metrics/MetricsJson.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Voxelise.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {
namespace {

constexpr double kPixelMm = 1e-6;  // 1 nm pixels, as in electron tomography

double secondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The middle slice (z) of each volume side by side, thickness (y) up, 8-bit PGM with the
// truth's range as the window.
void writeSlicePgm(const std::filesystem::path& path, const std::vector<const Volume*>& volumes,
                   double low, double high) {
  const Volume& first = *volumes.front();
  const std::int64_t nx = first.nx(), ny = first.ny(), z = first.nz() / 2;
  const auto panels = static_cast<std::int64_t>(volumes.size());
  const std::int64_t width = panels * nx + (panels - 1) * 4;
  std::string header = "P5\n" + std::to_string(width) + " " + std::to_string(ny) + "\n255\n";
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width * ny), 255);
  for (std::int64_t p = 0; p < panels; ++p)
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x) {
        const double value = volumes[static_cast<std::size_t>(p)]->at(x, ny - 1 - y, z);
        const double t = std::clamp((value - low) / (high - low), 0.0, 1.0);
        pixels[static_cast<std::size_t>(y * width + p * (nx + 4) + x)] =
            static_cast<unsigned char>(std::lround(255 * t));
      }
  io::AtomicFileWriter out(path);
  out.write(header);
  out.write(pixels.data(), pixels.size());
  out.commit();
}

// The well-sampled centre: the middle 80 % across, the specimen's slab through its thickness.
metrics::Region centralRegion(const VolumeShape& shape) {
  std::vector<std::uint8_t> voxels(static_cast<std::size_t>(shape.voxelCount()), 0);
  for (std::int64_t z = 0; z < shape.nz; ++z)
    for (std::int64_t y = shape.ny / 8; y < shape.ny - shape.ny / 8; ++y)
      for (std::int64_t x = shape.nx / 10; x < shape.nx - shape.nx / 10; ++x)
        voxels[static_cast<std::size_t>((z * shape.ny + y) * shape.nx + x)] = 1;
  return metrics::Region::mask(std::move(voxels), shape, "central 80% x slab");
}

class EtDemoCommand : public Command {
 public:
  explicit EtDemoCommand(CLI::App& app) {
    sub_ = app.add_subcommand(
        "demo-et",
        "electron tomography demo: specimen phantom -> MRC tilt series -> WBP and SIRT -> metrics");
    sub_->add_option("--width", width_, "detector columns (the tomogram's width)")
        ->check(CLI::Range(32, 4096))
        ->capture_default_str();
    sub_->add_option("--rows", rows_, "detector rows: slices along the tilt axis")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    sub_->add_option("--thickness", thickness_, "tomogram thickness, voxels")
        ->check(CLI::Range(8, 4096))
        ->capture_default_str();
    sub_->add_option("--max-tilt", maxTiltDeg_, "tilts from -this to +this degrees")
        ->check(CLI::Range(10.0, 89.0))
        ->capture_default_str();
    sub_->add_option("--step", stepDeg_, "tilt step, degrees")
        ->check(CLI::Range(0.1, 20.0))
        ->capture_default_str();
    sub_->add_option("--iterations", iterations_, "SIRT iterations")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    sub_->add_option("--device", device_, "cpu or gpu (the projector pair's device)")
        ->check(CLI::IsMember({"cpu", "gpu"}))
        ->capture_default_str();
    sub_->add_option("-o,--out-dir", outDir_,
                     "folder for tilts.mrc + tilts.tlt, truth.mrc, wbp.mrc, sirt.mrc, "
                     "residuals.csv, central-slice.pgm, summary.json")
        ->capture_default_str();
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    const bool text = !global.quiet && !global.json;
    // All files of the folder are committed together at the end (OutputSet.h).
    io::OutputSet files(&interruptToken());
    for (const char* name : {"tilts.mrc", "tilts.tlt", "truth.mrc", "wbp.mrc", "sirt.mrc",
                             "residuals.csv", "central-slice.pgm", "summary.json"})
      files.addOutput(outDir_ / name, "-o");
    files.check();
    const auto staged = [&](const char* name) { return files.staged(outDir_ / name); };
    if (device_ == "gpu") requireGpu("--device");
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);

    // The specimen fills 90 % of the width and 80 % of the thickness.
    const double widthMm = width_ * kPixelMm, thicknessMm = thickness_ * kPixelMm;
    const double heightMm = rows_ * kPixelMm;
    const phantom::Phantom specimen =
        phantom::etSpecimenPhantom(0.9 * widthMm, 0.8 * thicknessMm, heightMm);
    TiltSeriesParams scan;
    scan.cols = width_;
    scan.rows = rows_;
    scan.pixelSizeMm = kPixelMm;
    const auto views = static_cast<std::int64_t>(std::floor(2 * maxTiltDeg_ / stepDeg_ + 1e-9)) + 1;
    scan.tiltAnglesRad = arcAnglesRad(views, (views - 1) * stepDeg_ * std::numbers::pi / 180,
                                      -maxTiltDeg_ * std::numbers::pi / 180);
    if (text)
      std::printf(
          "Tomo Workbench ET demo: cell specimen with gold beads, %lld views over %+.0f..%+.0f "
          "degrees of %lld x %lld pixels of 1 nm; tomogram %lld x %lld x %lld\n",
          static_cast<long long>(views), -maxTiltDeg_, maxTiltDeg_, static_cast<long long>(width_),
          static_cast<long long>(rows_), static_cast<long long>(width_),
          static_cast<long long>(thickness_), static_cast<long long>(rows_));
    auto started = std::chrono::steady_clock::now();
    const ProjectionStack simulated =
        phantom::projectPhantom(specimen, tiltSeries(scan), {.supersample = 2}, &context);
    const double projectSeconds = secondsSince(started);
    bar.finish();
    const std::filesystem::path stackPath = outDir_ / "tilts.mrc";
    io::writeTiltSeries(staged("tilts.mrc"), simulated, scan.tiltAnglesRad);

    // From here on, only what a user's files give: the stack and its .tlt (still staged).
    const ProjectionStack projections = io::readProjections(staged("tilts.mrc"));
    const fdk::VolumeGrid grid = iterative::tomogramGrid(projections.geometry(), thickness_);

    started = std::chrono::steady_clock::now();
    fdk::FdkParams wbpParams;
    wbpParams.volume = grid;
    wbpParams.filter.window = fdk::RampWindow::Hann;
    fdk::FdkJob wbp(projections, wbpParams);
    wbp.run(context);
    bar.finish();
    const double wbpSeconds = secondsSince(started);

    iterative::IterativeParams sirtParams;
    sirtParams.volume = grid;
    sirtParams.iterations = iterations_;
    sirtParams.lowerBound = 0.0;
    if (device_ == "gpu") {
      const VariantRegistry& registry = VariantRegistry::builtins();
      sirtParams.forwardVariant =
          registry.defaultFor(VariantRole::ForwardProjector, VariantDevice::Gpu).name;
      sirtParams.backVariant =
          registry.defaultFor(VariantRole::Backprojector, VariantDevice::Gpu).name;
    }
    iterative::IterativeJob sirt(projections, sirtParams);
    sirt.run(context);
    bar.finish();

    const Volume truth = phantom::voxelisePhantom(specimen, grid.shape, grid.voxelSizeMm,
                                                  grid.originMm, 2, &context);
    const metrics::Region centre = centralRegion(grid.shape);
    metrics::CompareOptions options;
    options.dataRange = 1.0;  // the cells' contrast range, so the beads do not set the scale
    const auto wbpMetrics = metrics::compareVolumes(wbp.result(), truth, centre, options);
    const auto sirtMetrics = metrics::compareVolumes(sirt.result(), truth, centre, options);

    io::writeVolume(staged("truth.mrc"), truth);
    io::writeVolume(staged("wbp.mrc"), wbp.result());
    io::writeVolume(staged("sirt.mrc"), sirt.result());
    context.throwIfCancelled();
    const iterative::IterativeReport& r = sirt.report();
    {
      std::string csv = "iteration,relative_residual,weighted_residual_norm\n";
      for (const IterationRecord& it : r.iterations)
        csv += std::to_string(it.iteration) + "," + std::to_string(it.relativeResidual) + "," +
               std::to_string(it.weightedResidualNorm) + "\n";
      io::AtomicFileWriter out(staged("residuals.csv"));
      out.write(csv);
      out.commit();
    }
    writeSlicePgm(staged("central-slice.pgm"), {&truth, &wbp.result(), &sirt.result()}, 0.0, 1.0);
    nlohmann::json summary{
        {"command", "demo-et"},
        {"views", views},
        {"tiltRangeDeg", {-maxTiltDeg_, maxTiltDeg_}},
        {"detector", {width_, rows_}},
        {"grid", gridToJson(grid)},
        {"projectSeconds", projectSeconds},
        {"wbpSeconds", wbpSeconds},
        {"sirt",
         {{"forwardVariant", r.forwardVariant},
          {"backVariant", r.backVariant},
          {"device", r.device},
          {"iterations", r.iterations.size()},
          {"firstRelativeResidual", r.iterations.front().relativeResidual},
          {"lastRelativeResidual", r.iterations.back().relativeResidual},
          {"seconds", r.totalSeconds}}},
        {"metrics",
         {{"wbp", metrics::toJson(wbpMetrics, centre)},
          {"sirt", metrics::toJson(sirtMetrics, centre)}}},
        {"outputs",
         {stackPath.string(), (outDir_ / "tilts.tlt").string(), (outDir_ / "truth.mrc").string(),
          (outDir_ / "wbp.mrc").string(), (outDir_ / "sirt.mrc").string(),
          (outDir_ / "residuals.csv").string(), (outDir_ / "central-slice.pgm").string(),
          (outDir_ / "summary.json").string()}}};
    {
      io::AtomicFileWriter out(staged("summary.json"));
      out.write(summary.dump(2) + "\n");
      out.commit();
    }
    files.commit();
    if (text) {
      std::printf("projections  %s (analytic line integrals)\n",
                  formatSeconds(projectSeconds).c_str());
      std::printf("WBP          %s (Hann-windowed ramp)\n", formatSeconds(wbpSeconds).c_str());
      std::printf("SIRT         %zu iterations with %s + %s on %s: %s\n", r.iterations.size(),
                  r.forwardVariant.c_str(), r.backVariant.c_str(), r.device.c_str(),
                  formatSeconds(r.totalSeconds).c_str());
      std::printf("             relative residual %.4f -> %.4f\n",
                  r.iterations.front().relativeResidual, r.iterations.back().relativeResidual);
      std::printf("metrics      %s, against the voxelised specimen (cell contrast range 1)\n",
                  centre.description().c_str());
      std::printf("  WBP   RMSE %.4f   PSNR %.2f dB   SSIM %.4f\n", wbpMetrics.rmse,
                  wbpMetrics.psnrDb, wbpMetrics.ssim.value_or(std::nan("")));
      std::printf("  SIRT  RMSE %.4f   PSNR %.2f dB   SSIM %.4f\n", sirtMetrics.rmse,
                  sirtMetrics.psnrDb, sirtMetrics.ssim.value_or(std::nan("")));
      std::printf(
          "wrote        %s/{tilts.mrc, tilts.tlt, truth.mrc, wbp.mrc, sirt.mrc, residuals.csv, "
          "central-slice.pgm, summary.json}\n",
          outDir_.string().c_str());
    }
    printJson(global, summary);
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::int64_t width_ = 256, rows_ = 16, thickness_ = 64;
  double maxTiltDeg_ = 60, stepDeg_ = 2;
  int iterations_ = 30;
  std::string device_ = "cpu";
  std::filesystem::path outDir_ = "tomowb-demo-et";
};

}  // namespace

std::unique_ptr<Command> makeEtDemoCommand(CLI::App& app) {
  return std::make_unique<EtDemoCommand>(app);
}

}  // namespace tomowb::cli
