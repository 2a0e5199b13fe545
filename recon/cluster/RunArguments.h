// RunArguments: a reconstruction as the window holds it (an algorithm of the catalogue, its
// parameter JSON with the grid and the kernel variants, a projections file) written as the
// tomowb-cli arguments that run it headless: `recon <id> -i IN -o OUT --shape ... --voxel-mm ...
// --origin-mm ... <one option per parameter> --variant/--fp/--bp`. The window's "Submit to
// cluster" sends these to SlurmClient, so a job runs exactly what a script would.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "recon/catalog/AlgorithmCatalog.h"

namespace tomowb::cluster {

struct RunArgumentsOptions {
  std::string input, output;     // as the cluster sees them
  std::int64_t slabSlices = -1;  // FDK: --slab-slices N (0: from memory); -1: none
};

// ParameterError naming what cannot be expressed: a tilt-series algorithm (its grid is a
// tomogram with --thickness; use the CLI), a grid whose voxels are not cubes, slabs for an
// algorithm other than FDK, no input or output.
std::vector<std::string> reconArguments(const catalog::AlgorithmDescriptor& descriptor,
                                        const nlohmann::json& parameters,
                                        const RunArgumentsOptions& options);

}  // namespace tomowb::cluster
