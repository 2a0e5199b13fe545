// CatalogRun: any algorithm of the catalogue (recon/catalog) as a RunSpec for the run controller:
// its descriptor validates the parameters and makes the job that runs on the worker thread; the
// report goes into the run record, iterations reach the convergence plot through the controller's
// IterationSink. The window, the compare view's golden re-run and the sweeps start runs here and
// nowhere else, so a new algorithm needs no run code of its own.
#pragma once

#include <QString>
#include <memory>
#include <nlohmann/json.hpp>

#include "gui/core/RunController.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/data/ProjectionStack.h"

namespace tomowb::gui {

// The descriptor of an algorithm id ("fdk", "sirt"), or nullptr when this build has none.
const catalog::AlgorithmDescriptor* algorithmDescriptor(const QString& id);
// Whether the algorithm reports iterations (the convergence panel plots it).
bool isIterativeAlgorithm(const QString& id);

// The projections are shared, not copied. If `geometry` is given it replaces the projections' own
// (the geometry editor's edit; copied once, so later edits never reach the worker). `cpuThreads`
// > 0 limits the CPU threads of the run (OpenMP), 0 uses them all. `warmStartRunId` >= 0 names
// the run inputs.initialVolume came from (recorded in the parameters). Throws ParameterError
// without projections or for parameters the descriptor refuses.
RunSpec makeCatalogRun(const catalog::AlgorithmDescriptor& descriptor,
                       std::shared_ptr<const ProjectionStack> projections,
                       nlohmann::json parameters, catalog::JobInputs inputs = {},
                       const Geometry* geometry = nullptr, int cpuThreads = 0,
                       int warmStartRunId = -1);

}  // namespace tomowb::gui
