// `tomowb-cli metrics`: a volume against a reference (RMSE, NRMSE, PSNR, SSIM, max-abs), or ROI
// statistics and CNR, each restricted to a region.
#include <cmath>
#include <cstdio>

#include "CliSupport.h"
#include "Commands.h"
#include "RegionSpec.h"
#include "recon/core/Error.h"
#include "recon/io/VolumeFiles.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/metrics/MetricsJson.h"
#include "recon/metrics/RoiStatistics.h"

namespace tomowb::cli {
namespace {

class MetricsCommand : public Command {
 public:
  explicit MetricsCommand(CLI::App& app) {
    sub_ =
        app.add_subcommand("metrics", "compare a volume with a reference, or ROI statistics/CNR");
    sub_->add_option("volume", volume_, "the volume to measure")
        ->required()
        ->check(CLI::ExistingPath);
    sub_->add_option("-r,--reference", reference_, "reference volume (same shape) to compare with")
        ->check(CLI::ExistingPath);
    sub_->add_option("--region", region_, kRegionHelp);
    sub_->add_option("--data-range", dataRange_,
                     "peak for PSNR and L for SSIM (default: the reference's range in the region)");
    sub_->add_flag("--no-ssim", noSsim_, "skip SSIM (the slowest figure)");
    sub_->add_option(
        "--roi", roi_,
        "region of interest for statistics and CNR (" + std::string(kRegionHelp) + ")");
    sub_->add_option("--background", background_, "background region for CNR");
    sub_->add_option("--noise", noise_, "CNR noise: background (std of bg) or pooled")
        ->check(CLI::IsMember({"background", "pooled"}))
        ->capture_default_str();
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    const Volume volume = io::readVolume(volume_);
    nlohmann::json summary{{"command", "metrics"}, {"volume", volume_}};
    const bool text = !global.quiet && !global.json;
    if (!reference_.empty()) {
      const Volume reference = io::readVolume(reference_);
      const metrics::Region region = parseRegions(region_);
      metrics::CompareOptions options;
      if (dataRange_) options.dataRange = *dataRange_;
      options.computeSsim = !noSsim_;
      const auto m = metrics::compareVolumes(volume, reference, region, options);
      summary["reference"] = reference_;
      summary["comparison"] = metrics::toJson(m, region);
      if (text) {
        std::printf("region        %s (%lld voxels)\n", region.description().c_str(),
                    static_cast<long long>(m.voxelCount));
        std::printf("RMSE          %.6g\nNRMSE         %.6g\nPSNR          %.2f dB\n", m.rmse,
                    m.nrmse, m.psnrDb);
        if (m.ssim) std::printf("SSIM          %.4f\n", *m.ssim);
        std::printf("max |diff|    %.6g\nmean diff     %.6g\n", m.maxAbsDifference,
                    m.meanDifference);
      }
    }
    if (!roi_.empty()) {
      const metrics::Region roi = parseRegions(roi_);
      if (background_.empty()) {
        const auto s = metrics::roiStatistics(volume, roi, "roi");
        summary["roi"] = metrics::toJson(s);
        if (text)
          std::printf("roi %s: mean %.6g std %.6g min %.6g max %.6g (%lld voxels)\n",
                      roi.description().c_str(), s.mean, s.std, s.min, s.max,
                      static_cast<long long>(s.count));
      } else {
        const auto c = metrics::contrastToNoise(
            volume, roi, parseRegions(background_),
            noise_ == "pooled" ? metrics::CnrNoise::Pooled : metrics::CnrNoise::Background);
        summary["cnr"] = metrics::toJson(c);
        if (text)
          std::printf("CNR %.4g: contrast %.6g, noise %.6g (roi mean %.6g, background mean %.6g)\n",
                      c.cnr, c.contrast, c.noise, c.roi.mean, c.background.mean);
      }
    } else if (!background_.empty()) {
      throw ParameterError("--background", "needs --roi");
    }
    if (reference_.empty() && roi_.empty())
      throw ParameterError("metrics", "give --reference to compare, or --roi for statistics");
    printJson(global, summary);
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string volume_, reference_, noise_ = "background";
  std::vector<std::string> region_, roi_, background_;
  std::optional<double> dataRange_;
  bool noSsim_ = false;
};

}  // namespace

std::unique_ptr<Command> makeMetricsCommand(CLI::App& app) {
  return std::make_unique<MetricsCommand>(app);
}

}  // namespace tomowb::cli
