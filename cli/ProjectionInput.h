// The options that say how a recon command (and `convert`) reads its projections: any format we
// read, with --geometry FILE (our geometry JSON, ASTRA cone_vec / parallel3d_vec text, 3x4
// matrices, IMOD .tlt; recognised by content), --geometry-format to override the recognition,
// --layout for the order of the stack's axes and --matrix-pitch-mm for matrices. The core's
// io::loadProjectionsWithGeometry does the work (docs/astra-users.md).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/qa/RunRecord.h"

namespace tomowb::cli {

struct ProjectionInputOptions {
  std::string geometry;        // --geometry FILE; empty: the projection file's own
  std::string geometryFormat;  // --geometry-format; empty: by content
  std::string layout = "auto";
  double matrixPitchMm = 1.0;

  void addTo(CLI::App& app);
  // The attachment the options describe (ParameterError naming a bad option); the caller may
  // add tilt-series settings.
  io::GeometryAttachment attachment() const;
  // Loads `input`; warnings (and a note on a replaced geometry) go to `warnings`.
  io::LoadedProjections load(const std::string& input, const io::GeometryAttachment& attachment,
                             std::vector<std::string>& warnings) const;
  // Adds the geometry file to a run record's inputs (role "geometry"), when one was given.
  void addToRecord(qa::RunRecord& record) const;
};

// The summary line of a load ("proj.npy: 360 views of 320 x 240 (ASTRA layout ...) with ...")
// on stdout, unless quiet or JSON.
void printLoadSummary(const io::LoadedProjections& loaded, bool quiet, bool json);

}  // namespace tomowb::cli
