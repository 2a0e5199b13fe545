// CatalogRun: see the header.
#include "gui/core/CatalogRun.h"

#include <omp.h>

#include <string>
#include <thread>

#include "recon/core/Error.h"

namespace tomowb::gui {

const catalog::AlgorithmDescriptor* algorithmDescriptor(const QString& id) {
  return catalog::AlgorithmCatalog::builtins().find(id.toStdString());
}

bool isIterativeAlgorithm(const QString& id) {
  const catalog::AlgorithmDescriptor* d = algorithmDescriptor(id);
  return d != nullptr && d->iterative;
}

RunSpec makeCatalogRun(const catalog::AlgorithmDescriptor& descriptor,
                       std::shared_ptr<const ProjectionStack> projections,
                       nlohmann::json parameters, catalog::JobInputs inputs,
                       const Geometry* geometry, int cpuThreads, int warmStartRunId) {
  if (!projections)
    throw ParameterError("projections",
                         descriptor.label + " needs projections: open a file or the demo");
  std::shared_ptr<const ProjectionStack> input = projections;
  if (geometry != nullptr && !(*geometry == projections->geometry())) {
    auto relabelled = std::make_shared<ProjectionStack>(*projections);
    relabelled->geometry() = *geometry;
    input = std::move(relabelled);
  }
  parameters = descriptor.validate(parameters);
  const VolumeShape s = catalog::gridFromJson(parameters["volume"]).shape;
  RunSpec spec;
  spec.algorithm = QString::fromStdString(descriptor.id);
  spec.title = QStringLiteral("%1 %2x%3x%4")
                   .arg(QString::fromStdString(descriptor.label))
                   .arg(s.nx)
                   .arg(s.ny)
                   .arg(s.nz);
  QString variants;
  for (const catalog::ProjectorSlot& slot : descriptor.projectors)
    variants += (variants.isEmpty() ? QString() : QStringLiteral(" + ")) +
                QString::fromStdString(parameters.value(slot.field, std::string()));
  if (!variants.isEmpty()) spec.title += QLatin1Char(' ') + variants;
  spec.parameters = parameters;
  spec.iterative = descriptor.iterative;
  if (descriptor.acceptsInitialVolume)
    spec.parameters["warmStart"] = inputs.initialVolume != nullptr;
  if (descriptor.acceptsMask) spec.parameters["mask"] = inputs.mask != nullptr;
  // Weights change the reconstruction (as the CLI records them); a reference only what is
  // reported, so it goes with the input, which comparisons leave aside.
  if (descriptor.acceptsWeights) spec.parameters["weighted"] = inputs.weights != nullptr;
  spec.parameters["input"] = {
      {"views", input->viewCount()}, {"rows", input->rows()}, {"cols", input->cols()}};
  if (descriptor.acceptsReference)
    spec.parameters["input"]["reference"] = inputs.reference != nullptr;
  spec.parameters["cpuThreads"] = cpuThreads;
  if (warmStartRunId >= 0) spec.parameters["warmStartRun"] = warmStartRunId;
  spec.execute = [descriptor, input, parameters = std::move(parameters), inputs = std::move(inputs),
                  cpuThreads](JobContext& context, nlohmann::json& report) {
    // The thread count is per calling thread in OpenMP: this sets it for the run's worker only.
    if (cpuThreads > 0) omp_set_num_threads(cpuThreads);
    std::unique_ptr<catalog::ReconstructionJob> job =
        descriptor.makeJob(*input, parameters, inputs);
    job->run(context);
    report = job->report().details;
    report["hostThreads"] = std::thread::hardware_concurrency();
    report["cpuThreadsUsed"] = omp_get_max_threads();
    return std::make_shared<Volume>(std::move(job->result()));
  };
  return spec;
}

}  // namespace tomowb::gui
