// Geometry <-> versioned JSON (nlohmann-json). The file holds every view in vector form, so any
// geometry round-trips exactly; it may instead hold a parametric "builder" block (circular,
// helical, parallel, tilt series) that is expanded on load. Errors name the file, the field
// (JSON pointer style, e.g. "views[3].u") and the value. A view may say "detector_surface":
// "flat" (the default when absent) or "cylinder" (an arc detector, ArcFrame.h); a builder's
// "detector" block may too.
#pragma once

#include <filesystem>
#include <nlohmann/json_fwd.hpp>

#include "recon/geometry/Geometry.h"

namespace tomowb {

inline constexpr int kGeometryFormatVersion = 1;

nlohmann::json geometryToJson(const Geometry& geometry);
// `source` names the file (or "<string>") in error messages.
Geometry geometryFromJson(const nlohmann::json& json, const std::filesystem::path& source);

void saveGeometry(const std::filesystem::path& path, const Geometry& geometry);  // atomic
Geometry loadGeometry(const std::filesystem::path& path);

}  // namespace tomowb
