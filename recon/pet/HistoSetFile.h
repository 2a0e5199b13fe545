// HistoSetFile: a set of DIRECT histo-images on disk (docs/pet.md, "Histo-image files"): one JSON
// file and one raw float32 file per image beside it.
//
//   set.json   {"format": "tomowb-pet-histo-images", "version": 1,
//               "grid": {"shape": [nx, ny, nz], "voxelSizeMm": [...], "originMm": [...]},
//               "views": {"azimuths": 40, "tilts": 3, "maxTiltDeg": 10},
//               "images": {"data": "set.data.f32", "multiplicative": "set.multiplicative.f32",
//                          "additive": "set.additive.f32"},        (additive optional)
//               "deposition": "nearest", "scanner": {scanner file fields},
//               "acquisitionSeconds": 600, "halfLifeS": 6586.2, "attenuationCorrected": true,
//               "prompts": {...}, "delayed": {...}}                 (deposition reports)
//   *.f32      views x nz x ny x nx little-endian float32, [view][z][y][x], x fastest,
//              view = tilt x azimuths + azimuth (ViewBinning.h)
//
// Images are named by plain file names in the JSON's folder (no paths). Written atomically: the
// raw files first, the JSON last, each under a temporary name renamed into place; a failure
// removes what this write put in place. The reader checks every field, each raw file's exact
// length and every value (finite, >= 0), naming the file and the field.
#pragma once

#include <filesystem>

#include "recon/pet/PetPipeline.h"

namespace tomowb::pet {

inline constexpr int kHistoSetFormatVersion = 1;

// The raw file of image `role` ("data", "multiplicative", "additive") for a set file.
std::filesystem::path histoImagePathFor(const std::filesystem::path& setPath,
                                        const std::string& role);

// IoError when a file cannot be written; ParameterError for an empty data image.
void writeHistoSet(const std::filesystem::path& path, const PetHistoSet& set);
// IoError if a file cannot be opened, FormatError naming the file and field for anything wrong.
PetHistoSet readHistoSet(const std::filesystem::path& path);

}  // namespace tomowb::pet
