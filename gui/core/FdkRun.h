// FdkRun: turns FDK parameters and the workspace's projections into a RunSpec for the run
// controller (the FDK core job on the worker thread, its report in the run record).
#pragma once

#include <memory>

#include "gui/core/RunController.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"

namespace tomowb::gui {

// The projections are shared, not copied: they stay alive while the run needs them. If
// `geometry` is given it replaces the projections' own (the geometry editor's edit).
// `cpuThreads` > 0 limits the CPU threads of the run (OpenMP), 0 uses them all.
RunSpec makeFdkRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry = nullptr, int cpuThreads = 0);

// The parameters as the run record and the algorithm panel's presets store them, and back.
nlohmann::json fdkParamsToJson(const fdk::FdkParams& params);
fdk::FdkParams fdkParamsFromJson(const nlohmann::json& json);  // throws ParameterError

}  // namespace tomowb::gui
