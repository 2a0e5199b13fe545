// Statistical weights read from a file of photon counts (or of weights themselves), for PWLS:
// the file holds one value per projection pixel, as float32 [view][row][col]. Any format
// readProjections() reads (raw + JSON projections, whose geometry must then have the data's
// shape) or readVolume() reads as a 3-D array (.npy of shape (views, rows, cols), TIFF, MetaImage,
// MRC, raw + JSON volume: x = col, y = row, z = view). The values are taken as they are (w = N,
// docs of recon/preprocess/StatisticalWeights.h); every error names the file: a shape that is
// not the data's, a negative or non-finite value (with its view, row and column).
#pragma once

#include <filesystem>

#include "recon/data/ProjectionStack.h"

namespace tomowb::io {

// The weights, with the geometry of `data` (the post-log projections they weight). FormatError
// naming the file for a shape mismatch or a bad value; the readers' errors for unreadable files.
ProjectionStack readCountsAsWeights(const std::filesystem::path& path, const ProjectionStack& data);

}  // namespace tomowb::io
