// How `recon <id>` reads its projections and chooses its grid, by the algorithm's grid policy
// (catalog::GridPolicy): FieldOfViewInput (`recon fdk`: any projection file, the field-of-view
// grid) and TomogramInput (the ET algorithms: a tilt series with its companion files and
// preprocessing, the tomogram grid of --thickness). Both own -i, -o and the grid options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "CliSupport.h"
#include "Commands.h"
#include "ProjectionInput.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/io/OutputSet.h"
#include "recon/io/VolumeFiles.h"
#include "recon/scale/ProjectionRowSource.h"

namespace tomowb::cli {

class ReconInput {
 public:
  virtual ~ReconInput() = default;
  virtual void addTo(CLI::App& app) = 0;
  // Every file load() reads (for OutputSet's checks and the run record).
  virtual void addInputsTo(io::OutputSet& files) const = 0;
  virtual ProjectionStack load(JobContext& context, std::vector<std::string>& warnings,
                               const GlobalOptions& global) = 0;
  // The grid the options ask for, or the policy's default for the geometry.
  virtual VolumeGrid grid(const Geometry& geometry) const = 0;
  virtual io::VolumeWriteOptions writeOptions() const { return {}; }
  // A reader of the projections' detector rows a band at a time, without loading them (an .npy
  // with --geometry), for slab runs; null when they must be loaded whole.
  virtual std::unique_ptr<scale::ProjectionRowSource> openRowsOnDisk(const GlobalOptions&) {
    return nullptr;
  }
  // Fields the --json summary adds ("geometryFile", "layout").
  virtual nlohmann::json summaryFields() const { return nlohmann::json::object(); }

  std::string in, out;
};

std::unique_ptr<ReconInput> makeReconInput(catalog::GridPolicy policy);

}  // namespace tomowb::cli
