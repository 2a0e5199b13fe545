// Filtered backprojection in the catalogue: "fdk" (FDK for cone beams, FBP for parallel beams, on
// the field-of-view grid) and "wbp" (weighted backprojection: FBP of a tilt series on its
// tomogram grid). Both run fdk::reconstructFdk with an FDK backprojector variant.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/fdk/FdkMemoryEstimate.h"
#include "recon/iterative/IterativeJson.h"

namespace tomowb::catalog {

namespace {

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

class FilteredBackprojectionJob : public ReconstructionJob {
 public:
  FilteredBackprojectionJob(const ProjectionStack& projections, fdk::FdkParams params,
                            std::string id)
      : projections_(projections), params_(std::move(params)), id_(std::move(id)) {}
  std::string_view name() const override { return id_; }

  void run(JobContext& context) override {
    fdk::FdkReport r;
    result_ = fdk::reconstructFdk(projections_, params_, context, &r);
    RunReport& out = report_;
    out.algorithm = id_;
    out.variant = r.kernel.empty() ? r.variant : r.kernel;
    out.device = r.device;
    out.details = fdkReportToJson(r);
    out.timings = out.details;
    out.recordParameters = {{"weighting", r.weighting}};
    out.warnings = r.warnings;
    const KernelVariant* v = VariantRegistry::builtins().find(params_.variant);
    out.ranOnGpu = v != nullptr && v->needsGpu;
    if (id_ == "wbp") {
      out.summary.push_back("weighted backprojection with " + out.variant + ", filter " +
                            seconds(r.filterSeconds) + ", backprojection " +
                            seconds(r.backprojectSeconds) + ", total " + seconds(r.totalSeconds));
      return;
    }
    out.summary.push_back(r.weighting);
    out.summary.push_back("kernel " + out.variant + " on " +
                          (r.device.empty() ? std::string("the CPU") : r.device));
    if (!r.plan.empty()) out.summary.push_back("plan: " + r.plan);
    char line[200];
    std::snprintf(line, sizeof line, "filter %s, backprojection %s (%.2f GUPS), total %s",
                  seconds(r.filterSeconds).c_str(), seconds(r.backprojectSeconds).c_str(),
                  r.backprojectGups(), seconds(r.totalSeconds).c_str());
    out.summary.push_back(line);
    if (const std::string t = transferSummary(r); !t.empty()) out.summary.push_back(t);
  }

 private:
  const ProjectionStack& projections_;
  fdk::FdkParams params_;
  std::string id_;
};

std::vector<ParameterSpec> filterParameters() {
  return {
      choiceParameter("filter/window", "--filter", "Ramp window",
                      "ramp window: ram-lak, shepp-logan, cosine, hamming, hann",
                      {"ram-lak", "shepp-logan", "cosine", "hamming", "hann"}, "ram-lak"),
      realParameter("filter/cutoff", "--cutoff", "Cut-off",
                    "filter cut-off as a fraction of Nyquist", 0, 1, 1.0, true),
      choiceParameter(
          "redundancy", "--redundancy", "Redundancy weights",
          "auto, full-scan, parker (short scan), offset-detector (half-fan), none or helical "
          "(per-voxel weights over conjugate rays; auto picks it for a helix)",
          {"auto", "full-scan", "parker", "offset-detector", "none", "helical"}, "auto"),
      flagParameter("fieldOfViewMask", "--fov-mask", "Field-of-view mask",
                    "zero the voxels outside the field of view every view sees"),
      flagParameter("allowIncomplete", "--allow-incomplete", "Allow incomplete scans",
                    "reconstruct a short scan that covers less than 180 deg + fan angle, with a "
                    "warning (refused without it)"),
  };
}

AlgorithmDescriptor filteredBackprojection(std::string id) {
  AlgorithmDescriptor d;
  d.id = id;
  d.parameters = filterParameters();
  d.projectors = {{VariantRole::FdkBackprojector, "variant"}};
  d.validate = [specs = d.parameters](const nlohmann::json& parameters) {
    nlohmann::json out = applyParameterSpecs(specs, parameters);
    gridFromJson(out.value("volume", nlohmann::json()));
    if (!out.contains("variant") || !out["variant"].is_string())
      out["variant"] = VariantRegistry::builtins()
                           .defaultFor(VariantRole::FdkBackprojector, VariantDevice::Cpu)
                           .name;
    fdkParamsFromJson(out);  // the GPU options' types
    return out;
  };
  d.makeJob = [id](const ProjectionStack& projections, const nlohmann::json& parameters,
                   JobInputs inputs) -> std::unique_ptr<ReconstructionJob> {
    if (inputs.initialVolume || inputs.mask)
      throw ParameterError(id, "filtered backprojection takes no initial volume and no mask");
    return std::make_unique<FilteredBackprojectionJob>(projections, fdkParamsFromJson(parameters),
                                                       id);
  };
  d.hostMemoryBytes = [](const ProjectionStack& projections, const nlohmann::json& parameters) {
    return fdk::estimateFdkMemory(projections.geometry(), fdkParamsFromJson(parameters))
        .hostNewBytes;
  };
  return d;
}

}  // namespace

std::string transferSummary(const fdk::FdkReport& r) {
  const auto one = [](const char* what, double bytes, double s) {
    char rate[48] = "";
    if (s > 0) std::snprintf(rate, sizeof rate, " (%.1f GB/s)", bytes / s / 1e9);
    return std::string(what) + " " + formatBytes(static_cast<std::uint64_t>(bytes)) + " in " +
           seconds(s) + rate;
  };
  std::string text;
  if (r.uploadBytes > 0) text = one("upload", r.uploadBytes, r.uploadSeconds);
  if (r.downloadBytes > 0) {
    if (!text.empty()) text += ", ";
    text += one("download", r.downloadBytes, r.downloadSeconds);
  }
  return text;
}

nlohmann::json fdkParamsToJson(const fdk::FdkParams& params) {
  return {
      {"volume", gridToJson(params.volume)},
      {"filter",
       {{"window", std::string(fdk::toString(params.filter.window))},
        {"cutoff", params.filter.cutoff}}},
      {"redundancy", std::string(fdk::toString(params.redundancy))},
      {"fieldOfViewMask", params.fieldOfViewMask},
      {"allowIncomplete", params.allowIncomplete},
      {"variant", params.variant},
      {"gpu", fdk::toJson(params.gpu)},
  };
}

fdk::FdkParams fdkParamsFromJson(const nlohmann::json& json) {
  try {
    fdk::FdkParams p;
    p.volume = gridFromJson(json.at("volume"));
    if (json.contains("filter")) {
      p.filter.window = fdk::rampWindowFromString(json["filter"].value("window", "ram-lak"));
      p.filter.cutoff = json["filter"].value("cutoff", 1.0);
    }
    p.redundancy = fdk::redundancyModeFromString(json.value("redundancy", "auto"));
    p.fieldOfViewMask = json.value("fieldOfViewMask", false);
    p.allowIncomplete = json.value("allowIncomplete", false);
    p.variant = json.value("variant", "fdk.bp.cpu");
    if (json.contains("gpu")) p.gpu = fdk::gpuRunOptionsFromJson(json["gpu"]);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw ParameterError("FDK parameters", e.what());
  }
}

nlohmann::json fdkReportToJson(const fdk::FdkReport& r) {
  return {{"variant", r.variant},
          {"kernel", r.kernel},
          {"device", r.device},
          {"plan", r.plan},
          {"weighting", r.weighting},
          {"warnings", r.warnings},
          {"filterSeconds", r.filterSeconds},
          {"backprojectSeconds", r.backprojectSeconds},
          {"voxelUpdates", r.voxelUpdates},
          {"backprojectGups", r.backprojectGups()},
          {"uploadSeconds", r.uploadSeconds},
          {"uploadBytes", r.uploadBytes},
          {"downloadSeconds", r.downloadSeconds},
          {"downloadBytes", r.downloadBytes},
          {"totalSeconds", r.totalSeconds}};
}

AlgorithmDescriptor fdkAlgorithm() {
  AlgorithmDescriptor d = filteredBackprojection("fdk");
  d.label = "FDK";
  d.summary = "FDK cone-beam / FBP parallel-beam reconstruction";
  d.modalities = {Modality::TransmissionCt, Modality::ElectronTomography};
  d.gridPolicy = GridPolicy::FieldOfView;
  // Arc (cylindrical) detectors are resampled onto flat ones first (fdk::rebinArcToFlat).
  return d;
}

AlgorithmDescriptor wbpAlgorithm() {
  AlgorithmDescriptor d = filteredBackprojection("wbp");
  d.label = "WBP";
  d.summary = "weighted backprojection (parallel-beam FBP) of a tilt series: the baseline";
  d.modalities = {Modality::ElectronTomography};
  d.gridPolicy = GridPolicy::Tomogram;
  d.refuses = [](const Geometry& geometry) {
    return geometry.beam() == BeamKind::Parallel
               ? std::string()
               : std::string(
                     "weighted backprojection needs a parallel-beam tilt series; "
                     "cone-beam data: use 'recon fdk'");
  };
  return d;
}

}  // namespace tomowb::catalog
