// Run records from the command line (recon/qa/RunRecord.h; docs/qa.md): every reconstruction
// command writes "<output>.run.json" beside its output (or "run.json" in the demo's folder) with
// the command line that repeats it, its inputs and outputs with their SHA-256, the geometry, the
// parameters, the variant, the device, timings and metrics. --no-record skips it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/fdk/Fdk.h"
#include "recon/io/OutputSet.h"
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
// Every file the run reads (the inputs of `files`, each with the data file it names: role
// "projections" and "projections data" for -i, "tilt angles", "mask", ...), so a rerun can refuse
// when any of them changed.
void addInputs(qa::RunRecord& record, const io::OutputSet& files);
void addGeometry(qa::RunRecord& record, const Geometry& geometry);
// The files a reconstruction reads for `-i in`: the projections (with the data file a sidecar
// names) and, for a tilt series (MRC, or any file with --tilt-angles), the tilt angles,
// alignment and x-axis tilts, given or found beside the stack. Shared by the recon commands
// and rerun, which refuses a record that does not list them all.
void addProjectionInputs(io::OutputSet& files, const std::string& in, bool tiltSeries,
                         const std::string& tiltFile, const std::string& xfFile,
                         const std::string& xtiltFile);
// Hashes the outputs where they are staged in `files` (recorded under their final names, with
// the data file of a .mhd or .json as "output data"), and writes the record there too, so that
// files.commit() puts it in place together with the outputs.
void finishRunRecord(qa::RunRecord& record, io::OutputSet& files,
                     const std::filesystem::path& recordPath,
                     const std::vector<std::filesystem::path>& outputs);
// What decides whether two demo runs are comparable (qa::checkComparability) beyond the grid and
// variant: the ramp filter (window, cutoff) and the redundancy weighting. Added to
// record.parameters. (`recon <id>` records the catalogue's parameter JSON whole.)
void addFdkParameters(qa::RunRecord& record, const fdk::FdkParams& params);

}  // namespace tomowb::cli
