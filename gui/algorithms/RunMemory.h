// RunMemory: what a run of a catalogue algorithm will allocate, as the algorithm dock shows it
// and why a run that does not fit is refused. The FDK backprojectors have the detailed estimate
// with the GPU slab plan (fdk::estimateFdkMemory); every other algorithm its descriptor's
// hostMemoryBytes.
#pragma once

#include <QString>
#include <nlohmann/json.hpp>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/fdk/FdkMemoryEstimate.h"

namespace tomowb::gui {

struct RunMemory {
  QString text;     // "Host: 1.2 GiB peak, 120 GiB available": the estimate box, short
  QString problem;  // why the run does not fit, or empty
  bool fits = true;
  QString details;  // what the peak is made of: the box's tooltip
};

// `parameters` as the panel gives them (validated here), for a run on `cpuThreads` (0: all) and
// the GPU `gpuIndex` (-1: the CPU). `what` names what the host bytes hold (a look's memoryWhat).
RunMemory estimateRunMemory(const catalog::AlgorithmDescriptor& descriptor,
                            const ProjectionStack& projections, const Geometry& geometry,
                            const nlohmann::json& parameters, int cpuThreads, int gpuIndex,
                            const QString& what);

}  // namespace tomowb::gui
