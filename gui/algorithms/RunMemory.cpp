// RunMemory: see the header.
#include "gui/algorithms/RunMemory.h"

#include <QCoreApplication>

#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"
#include "recon/device/GpuDevices.h"

namespace tomowb::gui {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("AlgorithmPanel", text);
}

QString bytesText(std::uint64_t bytes) {
  return QString::fromStdString(formatBytes(bytes));
}

RunMemory fdkMemory(const Geometry& geometry, const nlohmann::json& parameters,
                    const fdk::FdkMemoryOptions& options) {
  RunMemory out;
  fdk::FdkMemoryEstimate e;
  try {
    e = fdk::estimateFdkMemory(geometry, catalog::fdkParamsFromJson(parameters), options);
  } catch (const Error& error) {
    e.warnings.push_back(error.what());
  }
  out.fits = e.hostFits && (!e.onGpu || e.plan.fits);
  for (const std::string& w : e.warnings)
    if (w.rfind("FDK cannot run", 0) == 0 && out.problem.isEmpty())
      out.problem = QString::fromStdString(w) + '.';
  if (out.problem.isEmpty() && !e.hostFits)
    out.problem = tr("Not enough host memory: the run needs %1 more, %2 is available.")
                      .arg(bytesText(e.hostNewBytes), bytesText(e.availableHostBytes));
  if (out.problem.isEmpty() && e.onGpu && !e.plan.fits)
    out.problem = tr("GPU run: %1.").arg(QString::fromStdString(e.plan.message));
  if (e.summary.empty()) return out;
  // Two short lines in the box (the panel must fit a 1080-pixel screen, issue #21); the parts in
  // its tooltip.
  out.text = tr("Host: %1 peak, %2 available")
                 .arg(bytesText(e.hostPeakBytes),
                      e.availableHostBytes ? bytesText(e.availableHostBytes) : tr("unknown"));
  out.details =
      tr("Host: %1 peak, %2 of it new: projections %3, filtered %4, volume %5, "
         "previews %6")
          .arg(bytesText(e.hostPeakBytes), bytesText(e.hostNewBytes), bytesText(e.projectionBytes),
               bytesText(e.filteredBytes), bytesText(e.volumeBytes), bytesText(e.previewBytes));
  if (e.onGpu) {
    out.text += tr("\nGPU: %1").arg(QString::fromStdString(e.gpuSummary));
    out.details += tr("\nGPU: %1").arg(QString::fromStdString(e.gpuSummary));
  }
  return out;
}

}  // namespace

RunMemory estimateRunMemory(const catalog::AlgorithmDescriptor& d,
                            const ProjectionStack& projections, const Geometry& geometry,
                            const nlohmann::json& parameters, int cpuThreads, int gpuIndex,
                            const QString& what) {
  fdk::FdkMemoryOptions options;
  options.hostThreads = cpuThreads;
  options.availableHostBytes = availableHostMemoryBytes();
  options.previewCopies = 2;  // the live preview: one shown, one in flight (RunController)
  if (gpuIndex >= 0)
    for (const cuda::GpuDevice& g : cuda::listGpuDevices())
      if (g.index == gpuIndex)  // the run plans with the free memory, as it is now
        options.deviceMemoryBytes = g.freeMemoryBytes > 0 ? g.freeMemoryBytes : g.totalMemoryBytes;
  options.gpus = 1;  // the limit comes with the parameters' "gpu"
  if (d.accepts(VariantRole::FdkBackprojector)) return fdkMemory(geometry, parameters, options);
  RunMemory out;
  std::uint64_t bytes = 0;
  try {
    if (d.hostMemoryBytes) bytes = d.hostMemoryBytes(projections, d.validate(parameters));
  } catch (const Error& e) {
    out.text = tr("No estimate: %1").arg(QString::fromStdString(e.what()));
    return out;
  }
  const std::uint64_t available = options.availableHostBytes;
  out.fits = available == 0 || bytes <= available;
  if (!out.fits)
    out.problem = tr("Not enough host memory: the run needs %1, %2 is available.")
                      .arg(bytesText(bytes), bytesText(available));
  out.text = tr("Host: %1 new (%2 available)")
                 .arg(bytesText(bytes), available ? bytesText(available) : tr("unknown"));
  if (!what.isEmpty()) out.text += QStringLiteral(": ") + what;
  if (gpuIndex >= 0) out.text += tr("\nGPU: the projectors hold the volume and the views they use");
  return out;
}

}  // namespace tomowb::gui
