// JSON of the iterative algorithms' report and of the GPU run options, one definition for the
// CLI's --json summary and the GUI's run records (the RunRecord of DESIGN.md).
#pragma once

#include <nlohmann/json.hpp>

#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"

namespace tomowb::iterative {

// Every field of the report, the projectors' G updates/s, and one object per iteration.
nlohmann::json toJson(const IterativeReport& report);

}  // namespace tomowb::iterative

namespace tomowb::fdk {

nlohmann::json toJson(const GpuRunOptions& gpu);
// The inverse; absent fields keep their defaults. Throws nlohmann::json::exception on bad types.
GpuRunOptions gpuRunOptionsFromJson(const nlohmann::json& json);

}  // namespace tomowb::fdk
