// `tomowb-cli recon <id>`: one subcommand per algorithm of the catalogue (recon/catalog), made from
// its descriptor: the input and grid options of its grid policy (ReconInputs.h), its parameters
// and projector roles as options (AlgorithmOptions.h), --mask/--init/--reference/--weights for the
// algorithms that take them, --residuals for iterative ones, --telemetry FILE. The descriptor
// validates the parameters and makes the job; this file only reads, runs, writes (all outputs or
// none) and reports.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "AlgorithmOptions.h"
#include "CliSupport.h"
#include "Commands.h"
#include "ReconInputs.h"
#include "RunRecords.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/VolumeFiles.h"
#include "recon/io/WeightsFile.h"

namespace tomowb::cli {
namespace {

void writeResidualCsv(const std::string& path, const std::vector<IterationRecord>& iterations) {
  std::string text = "iteration,relative_residual,residual_norm,weighted_residual_norm,seconds\n";
  char line[200];
  for (const IterationRecord& r : iterations) {
    std::snprintf(line, sizeof line, "%d,%.9g,%.9g,%.9g,%.6f\n", r.iteration, r.relativeResidual,
                  r.residualNorm, r.weightedResidualNorm, r.seconds);
    text += line;
  }
  io::AtomicFileWriter out(path);
  out.write(text);
  out.commit();
}

class CatalogReconCommand : public Command {
 public:
  CatalogReconCommand(CLI::App& recon, const catalog::AlgorithmDescriptor& descriptor)
      : descriptor_(descriptor), input_(makeReconInput(descriptor.gridPolicy)) {
    sub_ = recon.add_subcommand(descriptor.id, descriptor.summary);
    input_->addTo(*sub_);
    parameters_.addTo(*sub_, descriptor);
    if (descriptor.acceptsMask)
      sub_->add_option("--mask", maskFile_, "volume file: reconstruct only its non-zero voxels")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsInitialVolume)
      sub_->add_option("--init", initFile_,
                       "volume file to start from (warm start; the grid must match)")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsReference)
      sub_->add_option("--reference", referenceFile_,
                       "volume file on the same grid: the RMSE of every iterate against it")
          ->check(CLI::ExistingFile);
    if (descriptor.acceptsWeights)
      sub_->add_option("--weights", weightsFile_,
                       "statistical weights: photon counts per projection pixel, in any "
                       "projection or volume format (default: 1 for every ray)")
          ->check(CLI::ExistingFile);
    if (descriptor.iterative)
      sub_->add_option("--residuals", residualCsv_, "write the residual of every iteration as CSV");
    variants_.addTo(*sub_, descriptor);
    telemetryFile_.addTo(*sub_);
  }
  CLI::App* subcommand() const override { return sub_; }

  int run(const GlobalOptions& global) override {
    // Every file read and written, checked against each other before any work (OutputSet.h).
    io::OutputSet files(&interruptToken());
    input_->addInputsTo(files);
    files.addInput(maskFile_, "--mask", "mask");
    files.addInput(initFile_, "--init", "initial volume");
    files.addInput(referenceFile_, "--reference", "reference volume");
    files.addInput(weightsFile_, "--weights", "statistical weights");
    files.addOutput(input_->out, "-o");
    files.addOutput(residualCsv_, "--residuals");
    files.addOutput(telemetryFile_.path, "--telemetry");
    if (!global.noRecord) files.addOutput(qa::runRecordPathFor(input_->out), "run record");
    files.check();
    // The options first: a bad value, device or variant fails before the data is read.
    nlohmann::json parameters = nlohmann::json::object();
    parameters_.apply(parameters);
    variants_.apply(parameters);
    const bool gpu = VariantOptions::onGpu(descriptor_, parameters);

    ProgressBar bar(progressWanted(global.progress, global.quiet));
    TelemetryLog telemetry;
    JobContext context(interruptToken(), &bar, &telemetry);
    std::vector<std::string> inputWarnings;
    const ProjectionStack projections = input_->load(context, inputWarnings, global);
    for (const std::string& w : inputWarnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (descriptor_.refuses)
      if (const std::string why = descriptor_.refuses(projections.geometry()); !why.empty())
        throw ParameterError(input_->in, why);
    const VolumeGrid grid = input_->grid(projections.geometry());
    parameters["volume"] = catalog::gridToJson(grid);
    parameters = descriptor_.validate(parameters);
    catalog::JobInputs inputs;
    if (!maskFile_.empty()) inputs.mask = std::make_shared<Volume>(io::readVolume(maskFile_));
    if (!initFile_.empty())
      inputs.initialVolume = std::make_shared<Volume>(io::readVolume(initFile_));
    if (!referenceFile_.empty())
      inputs.reference = std::make_shared<Volume>(io::readVolume(referenceFile_));
    if (!weightsFile_.empty())
      inputs.weights =
          std::make_shared<ProjectionStack>(io::readCountsAsWeights(weightsFile_, projections));
    std::unique_ptr<catalog::ReconstructionJob> job =
        descriptor_.makeJob(projections, parameters, std::move(inputs));

    if (!telemetryFile_.path.empty() && gpu)
      telemetry.startGpuSampling(
          parameters.value("gpu", nlohmann::json::object()).value("devices", std::vector<int>{}));
    job->run(context);
    telemetry.stopGpuSampling();
    io::writeVolume(files.staged(input_->out), job->result(), input_->writeOptions());
    context.throwIfCancelled();
    const catalog::RunReport& r = job->report();
    if (!residualCsv_.empty()) writeResidualCsv(files.staged(residualCsv_), r.iterations);
    if (!telemetryFile_.path.empty()) telemetry.writeFile(files.staged(telemetryFile_.path));
    bar.finish();
    if (!global.noRecord) {
      qa::RunRecord record = startRunRecord({"-o", "--out"}, input_->out, gpu);
      addInputs(record, files);
      addGeometry(record, projections.geometry());
      record.algorithm = descriptor_.label;
      record.variant = r.variant;
      record.forwardVariant = r.forwardVariant;
      record.parameters = parameters;
      record.parameters.erase("gpu");  // recorded as the tunables
      // As the window records them (gui/core/CatalogRun): whether volumes went in.
      if (descriptor_.acceptsMask) record.parameters["mask"] = !maskFile_.empty();
      if (descriptor_.acceptsInitialVolume) record.parameters["warmStart"] = !initFile_.empty();
      if (descriptor_.acceptsWeights) record.parameters["weighted"] = !weightsFile_.empty();
      for (const auto& [key, value] : r.recordParameters.items()) record.parameters[key] = value;
      record.tunables = parameters.value("gpu", nlohmann::json::object());
      record.timings = r.timings;
      if (!r.metrics.is_null()) record.metrics = r.metrics;
      record.device["report"] = r.device;
      finishRunRecord(record, files, qa::runRecordPathFor(input_->out), {input_->out});
    }
    files.commit();  // all outputs at once, or none (a cancel until here leaves nothing)
    for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    if (!global.quiet && !global.json) {
      std::printf("wrote %s: %lld x %lld x %lld voxels of %.3g mm\n", input_->out.c_str(),
                  static_cast<long long>(grid.shape.nx), static_cast<long long>(grid.shape.ny),
                  static_cast<long long>(grid.shape.nz), grid.voxelSizeMm.x());
      for (const std::string& line : r.summary) std::printf("%s\n", line.c_str());
      if (!residualCsv_.empty()) std::printf("residuals: %s\n", residualCsv_.c_str());
      if (!telemetryFile_.path.empty()) std::printf("telemetry: %s\n", telemetryFile_.path.c_str());
    }
    nlohmann::json summary = {{"command", "recon " + descriptor_.id},
                              {"input", input_->in},
                              {"output", input_->out},
                              {"grid", catalog::gridToJson(grid)},
                              {"parameters", parameters},
                              {"telemetry", telemetry.toJson()}};
    summary.update(input_->summaryFields());
    // The algorithm's own report under its family's key, as before the catalogue: "fdk" for
    // filtered backprojection, "iterative" for the iterative methods.
    summary[descriptor_.iterative ? "iterative" : "fdk"] = r.details;
    if (!descriptor_.iterative) summary["gpuOptions"] = parameters.value("gpu", nlohmann::json());
    printJson(global, summary);
    return kExitOk;
  }

 private:
  const catalog::AlgorithmDescriptor& descriptor_;
  CLI::App* sub_ = nullptr;
  std::unique_ptr<ReconInput> input_;
  ParameterOptions parameters_;
  VariantOptions variants_;
  std::string maskFile_, initFile_, referenceFile_, weightsFile_, residualCsv_;
  TelemetryFileOptions telemetryFile_;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeReconCommands(CLI::App& app) {
  std::vector<std::unique_ptr<Command>> out;
  CLI::App& recon = *app.add_subcommand("recon", "reconstruct projections");
  recon.require_subcommand(1);
  for (const catalog::AlgorithmDescriptor& d : catalog::AlgorithmCatalog::builtins().all())
    out.push_back(std::make_unique<CatalogReconCommand>(recon, d));
  return out;
}

}  // namespace tomowb::cli
