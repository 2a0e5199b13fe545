// PWLS in the catalogue: penalised weighted least squares by ordered subsets and separable
// quadratic surrogates (recon/iterative/PwlsSqs.h) for transmission CT on the field-of-view grid,
// over any projector pair (the separable-footprint pairs of issue #19 first). It starts from zero
// or from the catalogue's own FDK on the same grid ("init": "fdk"), run through the "fdk"
// descriptor like any FDK run, so every orbit FDK takes (helical too, once FDK does) starts PWLS.
// Optional inputs: statistical weights (counts, JobInputs::weights) and a reference volume whose
// RMSE each iteration reports.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/IterativeJson.h"

namespace tomowb::catalog {

namespace {

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

const char* const kStartChoices[] = {"zero", "fdk"};

struct PwlsRun {
  iterative::IterativeParams params;
  std::string init = "fdk";
};

PwlsRun pwlsRunFromJson(const nlohmann::json& json) {
  PwlsRun run;
  run.params = iterativeParamsFromJson(json);
  try {
    iterative::PwlsOptions& o = run.params.pwls;
    o.beta = json.value("beta", o.beta);
    o.delta = json.value("delta", o.delta);
    o.momentum = json.value("momentum", o.momentum);
    o.stopChange = json.value("stopChange", o.stopChange);
    run.init = json.value("init", run.init);
  } catch (const nlohmann::json::exception& e) {
    throw ParameterError("PWLS parameters", e.what());
  }
  return run;
}

// The lines the CLI prints: the pair, the start and the stop reason, about ten iterations with
// their cost (and RMSE against the reference), the timings.
std::vector<std::string> summaryOf(const iterative::IterativeReport& r, const std::string& start) {
  std::vector<std::string> lines;
  lines.push_back("pwls with " + r.forwardVariant + " + " + r.backVariant + " on " + r.device +
                  ", from " + start + ": " + r.stopReason);
  const std::size_t n = r.iterations.size();
  char text[240];
  for (std::size_t i = 0; i < n; ++i) {
    const IterationRecord& it = r.iterations[i];
    if (n > 12 && i != 0 && i + 1 != n && (i + 1) % std::max<std::size_t>(1, n / 10) != 0) continue;
    std::snprintf(text, sizeof text, "  iteration %4d: cost %.6g, relative residual %.4g",
                  it.iteration, it.objective, it.relativeResidual);
    std::string line = text;
    for (const auto& [name, value] : it.metrics) {
      std::snprintf(text, sizeof text, ", %s %.4g", name.c_str(), value);
      line += text;
    }
    lines.push_back(line);
  }
  const double compute = r.forwardSeconds + r.backprojectSeconds;
  std::snprintf(
      text, sizeof text, "denominator %s, forward %s, back %s (%.2f G updates/s), total %s",
      seconds(r.setupSeconds).c_str(), seconds(r.forwardSeconds).c_str(),
      seconds(r.backprojectSeconds).c_str(), compute > 0 ? r.voxelUpdates / compute / 1e9 : 0.0,
      seconds(r.totalSeconds).c_str());
  lines.push_back(text);
  return lines;
}

class PwlsReconstructionJob : public ReconstructionJob {
 public:
  PwlsReconstructionJob(const ProjectionStack& projections, PwlsRun run)
      : projections_(projections), run_(std::move(run)) {}
  std::string_view name() const override { return "pwls"; }

  void run(JobContext& context) override {
    iterative::IterativeParams& p = run_.params;
    std::string start = p.initialVolume ? "the given volume" : "zero";
    double fdkSeconds = 0;
    if (run_.init == "fdk") {
      const auto started = iterative::Clock::now();
      p.initialVolume = fdkStart(context);
      fdkSeconds = iterative::secondsSince(started);
      start = "FDK (" + seconds(fdkSeconds) + ")";
    }
    iterative::IterativeReport r;
    result_ = iterative::reconstructIterative(projections_, p, context, &r);
    RunReport& out = report_;
    out.algorithm = "pwls";
    out.variant = r.backVariant;
    out.forwardVariant = r.forwardVariant;
    out.device = r.device;
    out.details = iterative::toJson(r);
    out.details["init"] = run_.init;
    out.timings = {{"totalSeconds", r.totalSeconds + fdkSeconds},
                   {"initSeconds", fdkSeconds},
                   {"forwardSeconds", r.forwardSeconds},
                   {"backprojectSeconds", r.backprojectSeconds}};
    if (!r.iterations.empty()) {
      const IterationRecord& last = r.iterations.back();
      out.metrics = {{"finalRelativeResidual", last.relativeResidual},
                     {"finalCost", last.objective}};
      for (const auto& [name, value] : last.metrics)
        if (name == "RMSE") out.metrics["finalRmse"] = value;
    }
    out.recordParameters = {{"stopReason", r.stopReason}};
    out.iterations = r.iterations;
    out.warnings = r.warnings;
    out.summary = summaryOf(r, start);
    const VariantRegistry& registry = VariantRegistry::builtins();
    const KernelVariant* fp = registry.find(r.forwardVariant);
    const KernelVariant* bp = registry.find(r.backVariant);
    out.ranOnGpu = (fp != nullptr && fp->needsGpu) || (bp != nullptr && bp->needsGpu);
  }

 private:
  // FDK on the run's grid through the catalogue's "fdk" descriptor, on the GPU when the pair
  // runs there. ParameterError naming "init" when FDK cannot take the geometry.
  std::shared_ptr<const Volume> fdkStart(JobContext& context) const {
    const iterative::IterativeParams& p = run_.params;
    if (p.initialVolume)
      throw ParameterError("init", "fdk, and an initial volume is given too: choose one");
    const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
    const auto refused = [](const std::string& why) {
      return ParameterError("init", "FDK cannot start PWLS on this geometry (" + why +
                                        "); start from zero instead (init zero, --start zero)");
    };
    if (fdk.refuses)
      if (const std::string why = fdk.refuses(projections_.geometry()); !why.empty())
        throw refused(why);
    const VariantRegistry& registry = VariantRegistry::builtins();
    const KernelVariant* fp = registry.find(p.forwardVariant);
    const bool gpu = fp != nullptr && fp->needsGpu;
    GpuRunOptions options = p.gpu;
    options.tunables.clear();  // the projectors' tunables, not FDK's
    nlohmann::json parameters = {
        {"volume", gridToJson(p.volume)},
        {"variant", registry
                        .defaultFor(VariantRole::FdkBackprojector,
                                    gpu ? VariantDevice::Gpu : VariantDevice::Cpu)
                        .name},
        {"gpu", fdk::toJson(options)}};
    std::unique_ptr<ReconstructionJob> job;
    try {
      job = fdk.makeJob(projections_, fdk.validate(parameters), {});
      job->run(context);
    } catch (const ParameterError& e) {
      throw refused(e.what());
    }
    return std::make_shared<const Volume>(std::move(job->result()));
  }

  const ProjectionStack& projections_;
  PwlsRun run_;
};

std::vector<ParameterSpec> pwlsParameters() {
  std::vector<ParameterSpec> specs;
  specs.push_back(integerParameter("iterations", "--iterations", "Iterations",
                                   "iterations (sweeps over all views)", 1, 1000000, 20));
  specs.push_back(integerParameter("subsets", "--subsets", "Subsets",
                                   "ordered subsets of interleaved views (1: monotone)", 1, 1 << 20,
                                   8));
  specs.push_back(realParameter("beta", "--beta", "Penalty strength (beta)",
                                "beta of the cost 1/2 ||y - Ax||_W^2 + beta R(x) (0: no penalty)",
                                0, 1e12, 1.0));
  specs.push_back(realParameter("delta", "--delta", "Edge threshold (delta)",
                                "hyperbola delta in the volume's units (1/mm): differences "
                                "above it count as edges",
                                0, 10, 0.001, true));
  specs.push_back(flagParameter("momentum", "--momentum", "Nesterov momentum",
                                "Nesterov momentum per subset (faster; not guaranteed to converge "
                                "with several subsets)"));
  ParameterSpec lower = optionalRealParameter("lowerBound", "--min", "Lower bound",
                                              "lower bound of the voxel values");
  lower.aliasFlag = "--nonneg";
  lower.aliasHelp = "non-negativity: clamp voxels below 0 (= --min 0)";
  lower.aliasValue = 0.0;
  specs.push_back(std::move(lower));
  specs.push_back(optionalRealParameter("upperBound", "--max", "Upper bound",
                                        "upper bound of the voxel values"));
  specs.push_back(choiceParameter("init", "--start", "Start from",
                                  "the first iterate: zero, or FDK on the same grid",
                                  {std::begin(kStartChoices), std::end(kStartChoices)}, "fdk"));
  specs.push_back(realParameter("stopChange", "--stop-change", "Stop on change of x",
                                "stop when RMS(x_k - x_k-1) / RMS(x_k) falls below this "
                                "(0: run every iteration)",
                                0, 0.999, 0.0));
  return specs;
}

}  // namespace

AlgorithmDescriptor pwlsAlgorithm() {
  AlgorithmDescriptor d;
  d.id = "pwls";
  d.label = "PWLS";
  d.summary =
      "PWLS-OS-SQS: penalised weighted least squares with an edge-preserving penalty, ordered "
      "subsets (use a matched pair)";
  d.modalities = {Modality::TransmissionCt};
  d.gridPolicy = GridPolicy::IlluminatedVolume;
  d.iterative = true;
  d.acceptsInitialVolume = true;
  d.acceptsMask = true;
  d.acceptsReference = true;
  d.acceptsWeights = true;
  d.projectors = {{VariantRole::ForwardProjector, "forwardVariant"},
                  {VariantRole::Backprojector, "backVariant"}};
  d.metrics = {"relative change", "RMSE"};
  d.parameters = pwlsParameters();
  d.validate = [specs = d.parameters](const nlohmann::json& parameters) {
    nlohmann::json out = applyParameterSpecs(specs, parameters);
    if (out.contains("method") && out["method"] != "pwls")
      throw ParameterError("method", "is " + out["method"].dump() + " in parameters of pwls");
    out["method"] = "pwls";
    gridFromJson(out.value("volume", nlohmann::json()));
    // PWLS-SQS wants a matched pair: the defaults are the matched CPU pair.
    const VariantRegistry& registry = VariantRegistry::builtins();
    if (!out.contains("forwardVariant") || !out["forwardVariant"].is_string())
      out["forwardVariant"] =
          registry.defaultFor(VariantRole::ForwardProjector, VariantDevice::Cpu, true).name;
    if (!out.contains("backVariant") || !out["backVariant"].is_string())
      out["backVariant"] =
          registry.defaultFor(VariantRole::Backprojector, VariantDevice::Cpu, true).name;
    const PwlsRun run = pwlsRunFromJson(out);
    if (run.params.lowerBound && run.params.upperBound &&
        *run.params.lowerBound > *run.params.upperBound)
      throw ParameterError("lowerBound", "exceeds the upper bound");
    return out;
  };
  d.makeJob = [](const ProjectionStack& projections, const nlohmann::json& parameters,
                 JobInputs inputs) -> std::unique_ptr<ReconstructionJob> {
    PwlsRun run = pwlsRunFromJson(parameters);
    run.params.initialVolume = std::move(inputs.initialVolume);
    run.params.mask = std::move(inputs.mask);
    run.params.reference = std::move(inputs.reference);
    run.params.weights = std::move(inputs.weights);
    return std::make_unique<PwlsReconstructionJob>(projections, std::move(run));
  };
  d.hostMemoryBytes = [](const ProjectionStack& projections, const nlohmann::json& parameters) {
    const PwlsRun run = pwlsRunFromJson(parameters);
    std::uint64_t bytes = iterative::hostMemoryBytes(projections, run.params);
    if (run.init == "fdk") {
      // FDK runs first and its volume is kept as the start: the larger of FDK's own peak and
      // PWLS's, plus that volume.
      const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
      const nlohmann::json fdkParameters =
          fdk.validate({{"volume", gridToJson(run.params.volume)}});
      const std::uint64_t start =
          static_cast<std::uint64_t>(run.params.volume.shape.voxelCount()) * 4;
      bytes = std::max(bytes, fdk.hostMemoryBytes(projections, fdkParameters)) + start;
    }
    return bytes;
  };
  return d;
}

}  // namespace tomowb::catalog
