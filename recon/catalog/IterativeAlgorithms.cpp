// The iterative methods in the catalogue: SIRT, OS-SIRT and SART (the ordered-subset solver with
// the SIRT rule) and CGLS, each over a projector pair (a forward projector and a backprojector
// from the variant registry) on the tomogram grid of a tilt series.
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/iterative/IterativeJson.h"

namespace tomowb::catalog {

namespace {

using iterative::IterativeMethod;

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

// The lines the CLI prints: the pair and the stop reason, about ten iterations, the timings.
std::vector<std::string> summaryOf(const iterative::IterativeReport& r) {
  std::vector<std::string> lines;
  lines.push_back(r.method + " with " + r.forwardVariant + " + " + r.backVariant + " on " +
                  r.device + ": " + r.stopReason);
  const std::size_t n = r.iterations.size();
  char text[200];
  for (std::size_t i = 0; i < n; ++i) {
    const IterationRecord& it = r.iterations[i];
    if (n > 12 && i != 0 && i + 1 != n && (i + 1) % std::max<std::size_t>(1, n / 10) != 0) continue;
    if (it.metrics.empty()) {
      std::snprintf(text, sizeof text, "  iteration %4d: relative residual %.4g, weighted %.4g",
                    it.iteration, it.relativeResidual, it.weightedResidualNorm);
      lines.push_back(text);
      continue;
    }
    // Algorithms that report named metrics (CGLS: gradient norm, step) show those instead.
    std::snprintf(text, sizeof text, "  iteration %4d: relative residual %.4g", it.iteration,
                  it.relativeResidual);
    std::string line = text;
    for (const auto& [name, value] : it.metrics) {
      std::snprintf(text, sizeof text, ", %s %.4g", name.c_str(), value);
      line += text;
    }
    lines.push_back(line);
  }
  const double compute = r.forwardSeconds + r.backprojectSeconds;
  std::snprintf(text, sizeof text, "%s %s, forward %s, back %s (%.2f G updates/s), total %s",
                r.method == "cgls" ? "setup" : "weights", seconds(r.setupSeconds).c_str(),
                seconds(r.forwardSeconds).c_str(), seconds(r.backprojectSeconds).c_str(),
                compute > 0 ? r.voxelUpdates / compute / 1e9 : 0.0,
                seconds(r.totalSeconds).c_str());
  lines.push_back(text);
  return lines;
}

class IterativeReconstructionJob : public ReconstructionJob {
 public:
  IterativeReconstructionJob(const ProjectionStack& projections, iterative::IterativeParams params)
      : projections_(projections), params_(std::move(params)) {}
  std::string_view name() const override { return "iterative"; }

  void run(JobContext& context) override {
    iterative::IterativeReport r;
    result_ = iterative::reconstructIterative(projections_, params_, context, &r);
    RunReport& out = report_;
    out.algorithm = r.method;
    out.variant = r.backVariant;
    out.forwardVariant = r.forwardVariant;
    out.device = r.device;
    out.details = iterative::toJson(r);
    out.timings = {{"totalSeconds", r.totalSeconds},
                   {"forwardSeconds", r.forwardSeconds},
                   {"backprojectSeconds", r.backprojectSeconds}};
    if (!r.iterations.empty())
      out.metrics = {{"finalRelativeResidual", r.iterations.back().relativeResidual}};
    out.recordParameters = {{"stopReason", r.stopReason}};
    out.iterations = r.iterations;
    out.warnings = r.warnings;
    out.summary = summaryOf(r);
    const VariantRegistry& registry = VariantRegistry::builtins();
    const KernelVariant* fp = registry.find(r.forwardVariant);
    const KernelVariant* bp = registry.find(r.backVariant);
    out.ranOnGpu = (fp != nullptr && fp->needsGpu) || (bp != nullptr && bp->needsGpu);
  }

 private:
  const ProjectionStack& projections_;
  iterative::IterativeParams params_;
};

std::vector<ParameterSpec> iterativeParameters(IterativeMethod method) {
  std::vector<ParameterSpec> specs;
  specs.push_back(integerParameter("iterations", "--iterations", "Iterations",
                                   "iterations (sweeps over all views)", 1, 1000000, 50));
  if (method != IterativeMethod::Cgls)
    specs.push_back(realParameter("relaxation", "--relaxation", "Relaxation", "relaxation lambda",
                                  0, 2, method == IterativeMethod::Sart ? 0.5 : 1.0, true, true));
  if (method == IterativeMethod::OsSirt)
    specs.push_back(integerParameter("subsets", "--subsets", "Subsets",
                                     "number of interleaved view subsets", 1, 1 << 20, 5));
  if (method != IterativeMethod::Cgls) {
    ParameterSpec lower = optionalRealParameter("lowerBound", "--min", "Lower bound",
                                                "lower bound of the voxel values");
    lower.aliasFlag = "--nonneg";
    lower.aliasHelp = "non-negativity: clamp voxels below 0 (= --min 0)";
    lower.aliasValue = 0.0;
    specs.push_back(std::move(lower));
    specs.push_back(optionalRealParameter("upperBound", "--max", "Upper bound",
                                          "upper bound of the voxel values"));
  }
  specs.push_back(realParameter("stopRelativeChange", "--stop-change", "Stop on residual change",
                                "stop when the weighted residual falls by less than this "
                                "fraction in one iteration (0: run every iteration)",
                                0, 0.999, 0.0));
  return specs;
}

}  // namespace

nlohmann::json iterativeParamsToJson(const iterative::IterativeParams& p) {
  return {
      {"method", iterative::toString(p.method)},
      {"volume", gridToJson(p.volume)},
      {"iterations", p.iterations},
      {"relaxation", p.relaxation},
      {"subsets", p.subsets},
      {"lowerBound", p.lowerBound ? nlohmann::json(*p.lowerBound) : nlohmann::json()},
      {"upperBound", p.upperBound ? nlohmann::json(*p.upperBound) : nlohmann::json()},
      {"stopRelativeChange", p.stopRelativeChange},
      {"forwardVariant", p.forwardVariant},
      {"backVariant", p.backVariant},
      {"publishEvery", p.publishEvery},
      {"gpu", fdk::toJson(p.gpu)},
      {"warmStart", p.initialVolume != nullptr},
      {"mask", p.mask != nullptr},
  };
}

iterative::IterativeParams iterativeParamsFromJson(const nlohmann::json& json) {
  try {
    iterative::IterativeParams p;
    p.method = iterative::iterativeMethodFromString(json.at("method").get<std::string>());
    p.volume = gridFromJson(json.at("volume"));
    p.iterations = json.value("iterations", p.iterations);
    p.relaxation = json.value("relaxation", p.relaxation);
    p.subsets = json.value("subsets", p.subsets);
    if (json.contains("lowerBound") && !json["lowerBound"].is_null())
      p.lowerBound = json["lowerBound"].get<double>();
    if (json.contains("upperBound") && !json["upperBound"].is_null())
      p.upperBound = json["upperBound"].get<double>();
    p.stopRelativeChange = json.value("stopRelativeChange", p.stopRelativeChange);
    p.forwardVariant = json.value("forwardVariant", p.forwardVariant);
    p.backVariant = json.value("backVariant", p.backVariant);
    p.publishEvery = json.value("publishEvery", p.publishEvery);
    if (json.contains("gpu")) p.gpu = fdk::gpuRunOptionsFromJson(json["gpu"]);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw ParameterError("iterative parameters", e.what());
  }
}

AlgorithmDescriptor iterativeAlgorithm(IterativeMethod method) {
  AlgorithmDescriptor d;
  d.id = iterative::toString(method);
  d.label = upper(d.id);
  d.summary = method == IterativeMethod::Sirt ? "SIRT: simultaneous iterative reconstruction"
              : method == IterativeMethod::OsSirt
                  ? "OS-SIRT: SIRT over ordered subsets of the views"
              : method == IterativeMethod::Sart
                  ? "SART: one view at a time"
                  : "CGLS: conjugate gradients for least squares (unconstrained; use a matched "
                    "pair)";
  d.modalities = {Modality::ElectronTomography};
  d.gridPolicy = GridPolicy::Tomogram;
  d.iterative = true;
  d.acceptsInitialVolume = true;
  d.acceptsMask = true;
  d.projectors = {{VariantRole::ForwardProjector, "forwardVariant"},
                  {VariantRole::Backprojector, "backVariant"}};
  if (method == IterativeMethod::Cgls) d.metrics = {"gradient norm", "step"};
  d.parameters = iterativeParameters(method);
  d.validate = [specs = d.parameters, id = d.id](const nlohmann::json& parameters) {
    nlohmann::json out = applyParameterSpecs(specs, parameters);
    if (out.contains("method") && out["method"] != id)
      throw ParameterError("method", "is " + out["method"].dump() + " in parameters of " + id);
    out["method"] = id;
    gridFromJson(out.value("volume", nlohmann::json()));
    const VariantRegistry& registry = VariantRegistry::builtins();
    if (!out.contains("forwardVariant") || !out["forwardVariant"].is_string())
      out["forwardVariant"] =
          registry.defaultFor(VariantRole::ForwardProjector, VariantDevice::Cpu, false).name;
    if (!out.contains("backVariant") || !out["backVariant"].is_string())
      out["backVariant"] =
          registry.defaultFor(VariantRole::Backprojector, VariantDevice::Cpu, false).name;
    const iterative::IterativeParams p = iterativeParamsFromJson(out);
    if (p.lowerBound && p.upperBound && *p.lowerBound > *p.upperBound)
      throw ParameterError("lowerBound", "exceeds the upper bound");
    return out;
  };
  d.makeJob = [](const ProjectionStack& projections, const nlohmann::json& parameters,
                 JobInputs inputs) -> std::unique_ptr<ReconstructionJob> {
    iterative::IterativeParams p = iterativeParamsFromJson(parameters);
    p.initialVolume = std::move(inputs.initialVolume);
    p.mask = std::move(inputs.mask);
    return std::make_unique<IterativeReconstructionJob>(projections, std::move(p));
  };
  d.hostMemoryBytes = [](const ProjectionStack& projections, const nlohmann::json& parameters) {
    return iterative::hostMemoryBytes(projections, iterativeParamsFromJson(parameters));
  };
  return d;
}

}  // namespace tomowb::catalog
