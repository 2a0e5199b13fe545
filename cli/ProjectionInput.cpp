#include "ProjectionInput.h"

#include <cstdio>

namespace tomowb::cli {

void ProjectionInputOptions::addTo(CLI::App& app) {
  auto* g = app.add_option_group("Projection geometry",
                                 "projections in any format with a geometry from another file");
  g->add_option("--geometry", geometry,
                "the projections' geometry: our geometry JSON, ASTRA cone_vec or parallel3d_vec "
                "text (12 numbers per view), 3x4 projection matrices or IMOD tilt angles (.tlt), "
                "recognised by content; replaces a geometry the projection file has "
                "(docs/astra-users.md)")
      ->check(CLI::ExistingFile);
  g->add_option("--geometry-format", geometryFormat,
                "read --geometry as this format instead of recognising it")
      ->check(CLI::IsMember({"json", "astra-cone", "astra-parallel", "matrices", "tlt"}));
  g->add_option("--layout", layout,
                "axis order of a projection stack (.npy, TIFF, MRC, MetaImage): views = "
                "[views][rows][cols] (ours, TIGRE's), astra = [rows][views][cols] (ASTRA's 3-D "
                "data), auto = by the geometry's view count")
      ->check(CLI::IsMember({"auto", "views", "astra"}))
      ->capture_default_str();
  g->add_option("--matrix-pitch-mm", matrixPitchMm,
                "detector column pitch to place the detector of 3x4 matrices at (mm; the "
                "reconstruction does not depend on it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

io::GeometryAttachment ProjectionInputOptions::attachment() const {
  io::GeometryAttachment a;
  a.geometryFile = geometry;
  if (!geometryFormat.empty())
    a.geometryFormat = geometryFileFormatFromName(geometryFormat, "--geometry-format");
  a.layout = io::projectionLayoutFromName(layout, "--layout");
  a.matrixPixelPitchMm = matrixPitchMm;
  return a;
}

io::LoadedProjections ProjectionInputOptions::load(const std::string& input,
                                                   const io::GeometryAttachment& attachment,
                                                   std::vector<std::string>& warnings) const {
  io::LoadedProjections loaded = io::loadProjectionsWithGeometry(input, attachment);
  warnings.insert(warnings.end(), loaded.warnings.begin(), loaded.warnings.end());
  return loaded;
}

void ProjectionInputOptions::addToRecord(qa::RunRecord& record) const {
  if (!geometry.empty()) record.inputs.push_back(qa::recordFile(geometry, "geometry"));
}

void printLoadSummary(const io::LoadedProjections& loaded, bool quiet, bool json) {
  if (!quiet && !json && loaded.geometryFormat) std::printf("read %s\n", loaded.summary.c_str());
}

}  // namespace tomowb::cli
