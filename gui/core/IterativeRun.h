// IterativeRun: turns iterative parameters (SIRT, OS-SIRT, SART; recon/iterative) and the
// workspace's projections into a RunSpec for the run controller, as FdkRun does for FDK: the core
// IterativeJob on the worker thread, whose per-iteration residuals reach the GUI through the
// controller's IterationSink (RunController::runIteration) and whose iterates come as previews;
// the report (with every iteration's residuals) goes into the run record. Weighted
// backprojection (WBP) of a tilt series is FBP on the tomogram grid: makeWbpRun.
#pragma once

#include <QString>
#include <memory>

#include "gui/core/RunController.h"
#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"

namespace tomowb::gui {

// "SIRT", "OS-SIRT", "SART": how the window names the methods.
QString iterativeMethodLabel(iterative::IterativeMethod method);

// The projections are shared, not copied. If `geometry` is given it replaces the projections' own
// (the geometry editor's edit). `cpuThreads` > 0 limits the CPU threads of the run (OpenMP), 0
// uses them all. `warmStartRunId` >= 0 names the run params.initialVolume came from (recorded in
// the run's parameters). Throws ParameterError without projections.
RunSpec makeIterativeRun(std::shared_ptr<const ProjectionStack> projections,
                         iterative::IterativeParams params, const Geometry* geometry = nullptr,
                         int cpuThreads = 0, int warmStartRunId = -1);

// Weighted backprojection of a tilt series: FDK/FBP (makeFdkRun) titled and recorded as "wbp".
RunSpec makeWbpRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry = nullptr, int cpuThreads = 0);

// The parameters as the run record stores them, and back; the initial volume and the mask are
// volumes, not parameters, and are left out (the record names the warm-start run instead).
nlohmann::json iterativeParamsToJson(const iterative::IterativeParams& params);
iterative::IterativeParams iterativeParamsFromJson(const nlohmann::json& json);  // ParameterError

// The iteration a preview label names ("iteration 12" -> 12), or -1 for any other label.
int iterationOfPreviewLabel(const QString& label);

}  // namespace tomowb::gui
