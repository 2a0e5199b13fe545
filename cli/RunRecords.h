// Run records from the command line (recon/qa/RunRecord.h; docs/qa.md): every reconstruction
// command writes "<output>.run.json" beside its output (or "run.json" in the demo's folder) with
// the command line that repeats it, its inputs and outputs with their SHA-256, the geometry, the
// parameters, the variant, the device, timings and metrics. --no-record skips it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "recon/core/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"
#include "recon/qa/RunRecord.h"

namespace tomowb::cli {

// main() stores argv here first thing.
void setCommandLine(int argc, char** argv);
const std::vector<std::string>& commandLine();

// A record with the command line (the output option's argument marked, or appended as
// `outputOption outputValue` when the default was used; --telemetry and --residuals files are
// marked as outputs too, so a rerun redirects them), the time, the working directory, the
// software version and the device.
qa::RunRecord startRunRecord(const std::vector<std::string>& outputOptions,
                             const std::string& outputValue, bool gpuRun);
// The projections' file (role "projections", and its data file for raw + JSON) and geometry.
void addProjectionInputs(qa::RunRecord& record, const std::filesystem::path& input,
                         const ProjectionStack& projections);
// What decides whether two runs are comparable (qa::checkComparability) beyond the grid and
// variant: FDK / WBP the ramp filter (window, cutoff) and the redundancy weighting; iterative runs
// the bounds and the stop rule. Added to record.parameters.
void addFdkParameters(qa::RunRecord& record, const fdk::FdkParams& params);
void addIterativeParameters(qa::RunRecord& record, const iterative::IterativeParams& params);
// Hashes the outputs, writes the record atomically, returns its path.
std::filesystem::path finishRunRecord(qa::RunRecord& record,
                                      const std::filesystem::path& recordPath,
                                      const std::vector<std::filesystem::path>& outputs);

}  // namespace tomowb::cli
