// `tomowb-cli demo`: the headless main job. Projects the modified 3-D Shepp-Logan phantom
// analytically for a circular cone-beam scan, reconstructs it with FDK, compares it with the
// voxelised phantom and writes the volumes, an axial slice picture (z = -25 mm, the classic
// Shepp-Logan plane) and a JSON summary. `--scan helical` scans the head on a helix with Poisson
// noise instead (recon/phantom/HelicalDemo.h), reconstructs the completely measured slab with
// helical FDK, and also writes the noisy post-log projections and the photon counts (the weights
// PWLS takes).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "RunRecords.h"
#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/Sha256.h"
#include "recon/io/VolumeFiles.h"
#include "recon/iterative/IterativeJson.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/metrics/MetricsJson.h"
#include "recon/metrics/RoiStatistics.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/HelicalDemo.h"
#include "recon/phantom/PoissonNoise.h"
#include "recon/phantom/Voxelise.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::cli {
namespace {

constexpr double kPhantomScaleMm = 100.0;  // head 138 x 184 x 180 mm
constexpr double kFieldMm = 204.8;         // volume edge, mm
// The helical demo's edge unless --size says otherwise: helical FDK's backprojection takes about
// 4 s on 2 CPU threads at 128 (2026-11-26), 8x that at the circular demo's 256.
constexpr std::int64_t kHelicalDefaultSize = 128;

// One axial slice of reconstruction and truth side by side, as an 8-bit PGM (window: the
// truth's soft-tissue range), so a user can look at the result without a viewer.
void writeAxialSlicePgm(const std::filesystem::path& path, const Volume& recon, const Volume& truth,
                        double zMm, double low, double high) {
  const std::int64_t nx = recon.nx(), ny = recon.ny();
  const auto z = std::clamp<std::int64_t>(
      std::llround((zMm - recon.originMm().z()) / recon.voxelSizeMm().z()), 0, recon.nz() - 1);
  std::string header = "P5\n" + std::to_string(2 * nx) + " " + std::to_string(ny) + "\n255\n";
  std::vector<unsigned char> pixels(static_cast<std::size_t>(2 * nx * ny));
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < 2 * nx; ++x) {
      const Volume& v = x < nx ? recon : truth;
      // Row 0 of the picture is the top: +y up, as seen from +z.
      const double value = v.at(x % nx, ny - 1 - y, z);
      const double t = std::clamp((value - low) / (high - low), 0.0, 1.0);
      pixels[static_cast<std::size_t>(y * 2 * nx + x)] =
          static_cast<unsigned char>(std::lround(255 * t));
    }
  io::AtomicFileWriter out(path);
  out.write(header);
  out.write(pixels.data(), pixels.size());
  out.commit();
}

class DemoCommand : public Command {
 public:
  explicit DemoCommand(CLI::App& app) {
    sub_ = app.add_subcommand(
        "demo", "phantom -> projections -> FDK -> metrics in one step (the headless main job)");
    sub_->add_option("--size", size_, "volume edge in voxels (the field is 204.8 mm wide)")
        ->check(CLI::Range(16, 2048))
        ->capture_default_str();
    sub_->add_option("--views", views_, "projections over a full turn")
        ->check(CLI::Range(8, 1 << 16))
        ->capture_default_str();
    sub_->add_option("--photons", photons_,
                     "incident photons per pixel for Poisson noise (0: none)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    sub_->add_option("--seed", seed_, "noise seed")->capture_default_str();
    sub_->add_option("--scan", scanKind_,
                     "circular (a full turn) or helical (3 turns at pitch 1 of a size/8-row "
                     "detector, size 128 and Poisson noise at 5e4 photons unless --size and "
                     "--photons say otherwise; "
                     "also writes projections.json and counts.json, the weights for PWLS)")
        ->check(CLI::IsMember({"circular", "helical"}))
        ->capture_default_str();
    sub_->add_option(
            "-o,--out-dir", outDir_,
            "folder for recon.mhd, truth.mhd, geometry.json, axial-slice.pgm, summary.json")
        ->capture_default_str();
    fdk_.addTo(*sub_);
    telemetryFile_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    const bool text = !global.quiet && !global.json;
    // The folder's files are committed together at the end (OutputSet.h): a failed or
    // cancelled demo leaves none of them, a finished one all.
    io::OutputSet files(&interruptToken());
    const bool helical = scanKind_ == "helical";
    if (helical && sub_->count("--size") == 0) size_ = kHelicalDefaultSize;
    for (const char* name :
         {"recon.mhd", "truth.mhd", "geometry.json", "axial-slice.pgm", "summary.json"})
      files.addOutput(outDir_ / name, "-o");
    if (helical)
      for (const char* name : {"projections.json", "counts.json"})
        files.addOutput(outDir_ / name, "-o");
    if (!global.noRecord) files.addOutput(outDir_ / "run.json", "run record");
    files.addOutput(telemetryFile_.path, "--telemetry");
    files.check();
    std::vector<std::string> optionWarnings;
    fdk::FdkParams params = fdk_.build(&optionWarnings);  // a bad device fails before projecting
    for (const std::string& w : optionWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    const double voxelMm = kFieldMm / double(size_);
    // SOD 500 mm, SDD 1000 mm: magnification 2, so 2-voxel pixels are one voxel at the isocentre.
    GeometryOptions scan;
    scan.cols = size_;
    scan.rows = std::int64_t(std::ceil(double(size_) * 300.0 / 256.0));
    scan.views = views_;
    scan.pitchMm = 2.0 * voxelMm;
    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    const auto t0 = std::chrono::steady_clock::now();
    std::optional<phantom::HelicalDemo> helix;
    if (helical) {
      if (sub_->count("--photons") == 0) photons_ = phantom::kHelicalDemoPhotons;
      helix.emplace(phantom::makeHelicalDemo(int(size_), photons_, seed_, &context));
    }
    const Geometry geometry = helix ? helix->lineIntegrals.geometry() : scan.build();
    const phantom::Phantom ph = phantom::modifiedSheppLogan3d(kPhantomScaleMm);
    if (text && !helix)
      std::printf(
          "Tomo Workbench demo: modified 3-D Shepp-Logan, %lld cone-beam views of %lld x "
          "%lld, FDK into %lld^3 voxels of %.2f mm\n",
          static_cast<long long>(views_), static_cast<long long>(scan.cols),
          static_cast<long long>(scan.rows), static_cast<long long>(size_), voxelMm);

    ProjectionStack projections = helix ? std::move(helix->lineIntegrals)
                                        : phantom::projectPhantom(ph, geometry, {}, &context);
    if (!helix && photons_ > 0) phantom::addPoissonNoise(projections, photons_, seed_);
    const double projectSeconds = secondsSince(t0);
    bar.finish();

    params.volume =
        fdk::VolumeGrid::centred({size_, size_, size_}, Eigen::Vector3d::Constant(voxelMm));
    if (helix) {
      // The slab whose every line the helix measures, size x size in-plane.
      const fdk::VolumeGrid slab = fdk::fieldOfViewGrid(geometry, voxelMm);
      params.volume = fdk::VolumeGrid::centred({size_, size_, slab.shape.nz},
                                               Eigen::Vector3d::Constant(voxelMm));
      params.volume.originMm.z() = slab.originMm.z();
      // A GPU asked for by --device alone: the registry's default for this geometry, which is
      // the CPU's for a helix (the GPU FDK kernels have no per-voxel helical weight).
      if (sub_->count("--variant") == 0 && VariantRegistry::builtins().find(params.variant) &&
          VariantRegistry::builtins().find(params.variant)->needsGpu) {
        std::string fellBack;
        params.variant = VariantRegistry::builtins()
                             .defaultFor(VariantRole::FdkBackprojector, VariantDevice::Gpu,
                                         geometry, params.volume, &fellBack)
                             .name;
        if (!fellBack.empty())
          std::fprintf(stderr, "warning: %s; running %s\n", fellBack.c_str(),
                       params.variant.c_str());
      }
      if (text)
        std::printf(
            "Tomo Workbench demo: modified 3-D Shepp-Logan, %s, helical FDK into %lld x %lld x "
            "%lld voxels of %.2f mm\n",
            helix->description.c_str(), static_cast<long long>(size_),
            static_cast<long long>(size_), static_cast<long long>(slab.shape.nz), voxelMm);
    }
    const fdk::VolumeGrid& grid = params.volume;
    fdk::FdkJob job(projections, params);
    if (!telemetryFile_.path.empty() && runsOnGpu(params))
      telemetry.startGpuSampling(params.gpu.devices);
    job.run(context);
    telemetry.stopGpuSampling();
    bar.finish();
    const Volume& recon = job.result();
    const Volume truth =
        phantom::voxelisePhantom(ph, grid.shape, grid.voxelSizeMm, grid.originMm, 2, &context);
    bar.finish();

    // Quality in the central 90% cylinder over the middle half of the slices, where FDK's
    // cone-beam approximation is good; and the brain's mean in a sphere of pure brain.
    const std::int64_t slices = grid.shape.nz;
    const metrics::Region central =
        helix ? metrics::Region::centralCylinder(0.9)
              : metrics::Region::centralCylinder(0.9).slices(size_ / 4, slices - size_ / 4);
    metrics::CompareOptions options;
    const auto m = metrics::compareVolumes(recon, truth, central, options);
    // At least one voxel wide, so that a coarse grid (--size 16: 12.8 mm voxels) still has a
    // voxel centre in it: no point lies further than sqrt(3)/2 voxel from the nearest centre.
    const metrics::Region brain =
        metrics::Region::sphere({0.0, -25.0, 0.0}, std::max(8.0, voxelMm));
    const auto brainStats = metrics::roiStatistics(recon, brain, "brain sphere");
    const auto brainTruth = metrics::roiStatistics(truth, brain, "brain sphere");

    const auto staged = [&](const char* name) { return files.staged(outDir_ / name); };
    io::writeVolume(staged("recon.mhd"), recon);
    context.throwIfCancelled();
    io::writeVolume(staged("truth.mhd"), truth);
    context.throwIfCancelled();
    saveGeometry(staged("geometry.json"), geometry);
    if (helix) {
      io::writeProjections(staged("projections.json"), projections);
      context.throwIfCancelled();
      io::writeProjections(staged("counts.json"), helix->counts);
      context.throwIfCancelled();
    }
    const double brainValue = 0.2 * phantom::kWaterAttenuationPerMm;
    writeAxialSlicePgm(staged("axial-slice.pgm"), recon, truth, -0.25 * kPhantomScaleMm,
                       0.5 * brainValue, 2.5 * brainValue);

    const fdk::FdkReport& r = job.report();
    nlohmann::json summary{
        {"command", "demo"},
        {"phantom", "modified-shepp-logan"},
        {"scan", scanKind_},
        {"views", geometry.viewCount()},
        {"detector", {geometry.detector().cols, geometry.detector().rows}},
        {"grid", gridToJson(grid)},
        {"gpuOptions", fdk::toJson(params.gpu)},
        {"photons", photons_},
        {"projectSeconds", projectSeconds},
        {"fdk", fdkReportToJson(r)},
        {"metrics", metrics::toJson(m, central)},
        {"brainMean", {{"reconstructed", brainStats.mean}, {"true", brainTruth.mean}}},
        {"outputs",
         {(outDir_ / "recon.mhd").string(), (outDir_ / "truth.mhd").string(),
          (outDir_ / "geometry.json").string(), (outDir_ / "axial-slice.pgm").string(),
          (outDir_ / "summary.json").string()}},
        {"telemetry", telemetry.toJson()}};
    if (helix) {
      summary["outputs"].push_back((outDir_ / "projections.json").string());
      summary["outputs"].push_back((outDir_ / "counts.json").string());
      summary["weights"] = {{"file", (outDir_ / "counts.json").string()},
                            {"incidentPhotons", helix->incidentPhotons},
                            {"what", "photon counts N per pixel; PWLS weights w = N"}};
    }
    if (!telemetryFile_.path.empty()) telemetry.writeFile(files.staged(telemetryFile_.path));
    {
      io::AtomicFileWriter out(staged("summary.json"));
      out.write(summary.dump(2) + "\n");
      out.commit();
    }
    if (!global.noRecord) {
      qa::RunRecord record =
          startRunRecord({"-o", "--out-dir"}, outDir_.string(), runsOnGpu(params));
      record.algorithm = "FDK";
      record.variant = r.kernel.empty() ? r.variant : r.kernel;
      addGeometry(record, geometry);
      record.parameters = {{"phantom", "modified-shepp-logan"},
                           {"size", size_},
                           {"views", views_},
                           {"photons", photons_},
                           {"seed", seed_},
                           {"variant", params.variant},
                           {"grid", gridToJson(grid)}};
      if (helix) {
        record.parameters["scan"] = scanKind_;
        record.parameters["views"] = geometry.viewCount();
      }
      addFdkParameters(record, params);
      record.tunables = fdk::toJson(params.gpu);
      record.timings = fdkReportToJson(r);
      record.metrics = metrics::toJson(m, central);
      finishRunRecord(record, files, outDir_ / "run.json", {outDir_ / "recon.mhd"});
    }
    files.commit();
    if (text) {
      std::printf("projections  %s (analytic, exact line integrals)\n",
                  formatSeconds(projectSeconds).c_str());
      std::printf("FDK          filter %s, backprojection %s with %s: %.2f GUPS\n",
                  formatSeconds(r.filterSeconds).c_str(),
                  formatSeconds(r.backprojectSeconds).c_str(),
                  (r.kernel.empty() ? r.variant : r.kernel).c_str(), r.backprojectGups());
      std::printf("device       %s\n", r.device.empty() ? "CPU" : r.device.c_str());
      if (!r.plan.empty()) std::printf("GPU plan     %s\n", r.plan.c_str());
      if (const std::string transfers = transferText(r); !transfers.empty())
        std::printf("transfers    %s\n", transfers.c_str());
      std::printf("weights      %s\n", r.weighting.c_str());
      std::printf("metrics      %s (%lld voxels)\n", central.description().c_str(),
                  static_cast<long long>(m.voxelCount));
      std::printf("  RMSE %.3g /mm   NRMSE %.4f   PSNR %.2f dB   SSIM %.4f   max|diff| %.3g /mm\n",
                  m.rmse, m.nrmse, m.psnrDb, m.ssim.value_or(std::nan("")), m.maxAbsDifference);
      std::printf("  brain mean %.5f /mm (true %.5f /mm, %+.2f%%)\n", brainStats.mean,
                  brainTruth.mean, 100.0 * (brainStats.mean - brainTruth.mean) / brainTruth.mean);
      std::printf(
          "wrote        %s/{recon.mhd, truth.mhd, geometry.json, axial-slice.pgm, "
          "summary.json%s}\n",
          outDir_.string().c_str(),
          helix ? ", projections.json (post-log), counts.json (photon counts: PWLS weights)" : "");
    }
    printJson(global, summary);
    return kExitOk;
  }

 private:
  static double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  }

  CLI::App* sub_ = nullptr;
  std::int64_t size_ = 256, views_ = 360;
  double photons_ = 0;
  std::uint64_t seed_ = 1;
  std::string scanKind_ = "circular";
  std::filesystem::path outDir_ = "tomowb-demo";
  FdkOptions fdk_;
  TelemetryFileOptions telemetryFile_;
};

}  // namespace

std::unique_ptr<Command> makeDemoCommand(CLI::App& app) {
  return std::make_unique<DemoCommand>(app);
}

}  // namespace tomowb::cli
