// The algorithm catalogue (issue #18; reference/architecture-next.md, seam 4): one descriptor per
// reconstruction algorithm with everything a front end needs to offer, check and run it without
// knowing it. The CLI's `recon <id>` commands, the window's algorithm choice, `qa rerun` and the
// sweeps ask the catalogue; a new algorithm is one descriptor (and its window form) registered in
// registerAlgorithms.cpp.
//
// Parameters travel as JSON, the form the run records keep: {"volume": grid, "iterations": 50,
// "filter": {"window": "hann", "cutoff": 0.8}, "variant": "fdk.bp.cpu", "gpu": {...}, ...}.
// `validate` completes them with the defaults and refuses what does not fit, naming the field
// ("iterations: must be an integer from 1 to 1000000, got 0").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/job/IterationSink.h"
#include "recon/job/JobContext.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::catalog {

// What data an algorithm reconstructs.
enum class Modality { TransmissionCt, ElectronTomography, Pet };
std::string toString(Modality modality);  // "CT", "ET", "PET"

// The grid an algorithm reconstructs when the user gives none: the field of view every view sees
// (FDK), or the ET tomogram of a tilt series (detector width x thickness x detector height).
// IlluminatedVolume: the field of view, and for a helical scan every slice a ray reaches
// (fdk::illuminatedGrid: an iterative fit needs all the object the data saw).
enum class GridPolicy { FieldOfView, Tomogram, IlluminatedVolume };

// One algorithm parameter, as the CLI's options and the window's forms offer it. `field` is a
// path into the parameter JSON ("iterations", "filter/cutoff").
struct ParameterSpec {
  enum class Kind {
    Integer,       // a whole number in [minimum, maximum]
    Real,          // a finite number in [minimum, maximum] (or (minimum, ...] when exclusive)
    OptionalReal,  // a finite number or null (unset)
    Flag,          // true or false
    Choice,        // one of `choices`
  };
  std::string field;
  std::string option;  // "--iterations"
  std::string label;   // "Iterations" (window forms)
  std::string help;    // one line (CLI help, tool tips)
  Kind kind = Kind::Real;
  double minimum = 0, maximum = 0;
  bool minimumExclusive = false, maximumExclusive = false;
  std::vector<std::string> choices;
  nlohmann::json defaultValue;  // null for an unset OptionalReal
  // A flag that sets this parameter to `aliasValue` (--nonneg: lowerBound 0); empty: none.
  std::string aliasFlag, aliasHelp;
  double aliasValue = 0;

  // "an integer from 1 to 1000000", "a number in (0, 2)", "one of ram-lak, hann": the rule in
  // words, for errors and help.
  std::string rule() const;
  // Throws ParameterError naming the field unless `value` obeys the rule.
  void check(const nlohmann::json& value) const;
};

// The specs by kind (the rest of the fields stay default).
ParameterSpec integerParameter(std::string field, std::string option, std::string label,
                               std::string help, std::int64_t minimum, std::int64_t maximum,
                               std::int64_t defaultValue);
ParameterSpec realParameter(std::string field, std::string option, std::string label,
                            std::string help, double minimum, double maximum, double defaultValue,
                            bool minimumExclusive = false, bool maximumExclusive = false);
// Any finite number, or unset (null) by default.
ParameterSpec optionalRealParameter(std::string field, std::string option, std::string label,
                                    std::string help);
ParameterSpec flagParameter(std::string field, std::string option, std::string label,
                            std::string help, bool defaultValue = false);
ParameterSpec choiceParameter(std::string field, std::string option, std::string label,
                              std::string help, std::vector<std::string> choices,
                              std::string defaultValue);

// What a finished run reports, in one shape for every algorithm: the front ends print, record and
// plot it without knowing the algorithm.
struct RunReport {
  std::string algorithm;       // the descriptor's id
  std::string variant;         // the kernel or backprojector that ran
  std::string forwardVariant;  // projector pairs: the forward projector
  std::string device;          // "CPU, 16 threads", "NVIDIA H100 80GB HBM3"
  nlohmann::json details;      // the algorithm's own report (FdkReport, IterativeReport as JSON)
  nlohmann::json timings;      // seconds by stage
  nlohmann::json metrics;      // figures of the result ("finalRelativeResidual")
  // What the run decided that a record must keep to compare it ("weighting", "stopReason").
  nlohmann::json recordParameters = nlohmann::json::object();
  std::vector<IterationRecord> iterations;  // iterative algorithms: one per iteration done
  std::vector<std::string> warnings;
  std::vector<std::string> summary;  // lines the CLI prints after "wrote FILE"
  bool ranOnGpu = false;
};

// A reconstruction as a Job: run it, then take the volume and read the report.
class ReconstructionJob : public Job {
 public:
  Volume& result() noexcept { return result_; }
  const RunReport& report() const noexcept { return report_; }

 protected:
  Volume result_;
  RunReport report_;
};

// Volumes a run may start from or be limited to (same grid as the parameters' volume), and the
// statistical weights of its projections.
struct JobInputs {
  std::shared_ptr<const Volume> initialVolume;  // warm start (acceptsInitialVolume)
  std::shared_ptr<const Volume> mask;           // voxels to reconstruct (acceptsMask)
  std::shared_ptr<const Volume> reference;      // RMSE per iteration against it (acceptsReference)
  std::shared_ptr<const ProjectionStack> weights;  // one per projection pixel (acceptsWeights)
};

// Which projector role an algorithm uses, and the parameter field that names the variant.
struct ProjectorSlot {
  VariantRole role = VariantRole::Unset;
  std::string field;  // "variant", "forwardVariant", "backVariant"
};

struct AlgorithmDescriptor {
  std::string id;       // stable: "fdk", "sirt" (CLI subcommand, run records, presets)
  std::string label;    // "FDK", "OS-SIRT"
  std::string summary;  // one line
  std::vector<Modality> modalities;
  GridPolicy gridPolicy = GridPolicy::FieldOfView;
  bool iterative = false;  // reports iterations (convergence plots, residual tables)
  bool acceptsInitialVolume = false, acceptsMask = false;
  bool acceptsReference = false, acceptsWeights = false;
  std::vector<ProjectorSlot> projectors;  // the projector roles it accepts
  // Per-iteration figures beyond the residuals ("gradient norm", "step"), for plots and tables.
  std::vector<std::string> metrics;
  std::vector<ParameterSpec> parameters;  // the algorithm's own (not grid, variants, GPU)

  // The parameters complete (defaults for what is missing) and checked; throws ParameterError
  // naming the field. The grid ("volume") must be present.
  std::function<nlohmann::json(const nlohmann::json& parameters)> validate;
  // The job for validated parameters. Throws ParameterError for inputs that do not fit.
  std::function<std::unique_ptr<ReconstructionJob>(
      const ProjectionStack& projections, const nlohmann::json& parameters, JobInputs inputs)>
      makeJob;
  // Host bytes the run allocates beyond the loaded projections, for validated parameters.
  std::function<std::uint64_t(const ProjectionStack& projections, const nlohmann::json& parameters)>
      hostMemoryBytes;
  // Why the geometry cannot be reconstructed by it (empty: it can), e.g. WBP of a cone beam.
  std::function<std::string(const Geometry& geometry)> refuses;

  bool accepts(VariantRole role) const;
  const ParameterSpec* parameter(std::string_view field) const;
  // The parameters' defaults as JSON (no grid, no variants).
  nlohmann::json defaults() const;
};

class AlgorithmCatalog {
 public:
  // Throws std::logic_error for a duplicate id, an empty id or a descriptor without validate or
  // makeJob.
  void add(AlgorithmDescriptor descriptor);
  const AlgorithmDescriptor* find(std::string_view id) const;
  // Throws ParameterError naming `what` and listing the ids for an unknown one.
  const AlgorithmDescriptor& require(std::string_view id,
                                     std::string_view what = "algorithm") const;
  const std::vector<AlgorithmDescriptor>& all() const noexcept { return descriptors_; }
  std::vector<std::string> ids() const;
  std::string idList() const;  // "fdk, wbp, sirt, ..."

  // The algorithms of this build (registerAlgorithms), made on first use.
  static const AlgorithmCatalog& builtins();

 private:
  std::vector<AlgorithmDescriptor> descriptors_;
};

// Adds every algorithm of this build (registerAlgorithms.cpp: one line each).
void registerAlgorithms(AlgorithmCatalog& catalog);

// The grid as the parameter JSON keeps it, and back (ParameterError naming `field`).
nlohmann::json gridToJson(const VolumeGrid& grid);
VolumeGrid gridFromJson(const nlohmann::json& json, std::string_view field = "volume");

// Checks `parameters` against `specs`, filling defaults: the shared part of every validate().
nlohmann::json applyParameterSpecs(const std::vector<ParameterSpec>& specs,
                                   const nlohmann::json& parameters);

}  // namespace tomowb::catalog
