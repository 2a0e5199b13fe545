// DIRECT reconstruction on the ordered-subset solver (DirectReconstruction.h).
#include "recon/pet/DirectReconstruction.h"

#include <cmath>
#include <numeric>
#include <string>

#include "recon/core/Error.h"
#include "recon/iterative/EmRule.h"
#include "recon/iterative/IterationLog.h"
#include "recon/iterative/OrderedSubsetSolver.h"
#include "recon/pet/DirectPair.h"

namespace tomowb::pet {

namespace {

void checkLayout(const HistoImages& data, const HistoImages& other, const char* what) {
  const VolumeGrid &a = data.grid(), &b = other.grid();
  if (!(a.shape == b.shape) || a.voxelSizeMm != b.voxelSizeMm || a.originMm != b.originMm)
    throw ParameterError(what, "its grid differs from the data's");
  if (data.views().azimuths != other.views().azimuths ||
      data.views().tilts != other.views().tilts ||
      data.views().maxTiltRad != other.views().maxTiltRad)
    throw ParameterError(what, "its view binning differs from the data's");
}

void checkFiniteNonNegative(const HistoImages& h, const char* what) {
  for (const float v : h.values())
    if (!std::isfinite(v) || v < 0)
      throw ParameterError(what, "holds a negative or non-finite value");
}

double sumOf(std::span<const float> values) {
  double s = 0;
  for (const float v : values) s += v;
  return s;
}

constexpr const char* kCpuForward = "direct.fp.cpu";
constexpr const char* kCpuBack = "direct.bp.cpu";

std::unique_ptr<DirectPair> bindPair(const VariantRegistry& registry, const std::string& forward,
                                     const std::string& back, const DirectProblem& problem) {
  if (forward == kCpuForward && back == kCpuBack && !registry.find(forward) && !registry.find(back))
    return makeCpuDirectPair(problem, std::make_shared<const DirectKernels>(
                                          problem.grid, problem.views, problem.kernel));
  return bindDirectPair(registry, forward, back, problem);
}

}  // namespace

std::string toString(EmAlgorithm algorithm) {
  switch (algorithm) {
    case EmAlgorithm::Mlem:
      return "mlem";
    case EmAlgorithm::Osem:
      return "osem";
    case EmAlgorithm::Ramla:
      return "ramla";
  }
  return "?";
}

EmAlgorithm parseEmAlgorithm(std::string_view text, std::string_view parameter) {
  for (EmAlgorithm a : {EmAlgorithm::Mlem, EmAlgorithm::Osem, EmAlgorithm::Ramla})
    if (text == toString(a)) return a;
  throw ParameterError(parameter,
                       "must be one of mlem, osem, ramla, got '" + std::string(text) + "'");
}

void DirectReconParams::validate() const {
  if (iterations < 1 || iterations > 100000)
    throw ParameterError("iterations",
                         "must be from 1 to 100000, got " + std::to_string(iterations));
  if (algorithm != EmAlgorithm::Mlem && subsets < 1)
    throw ParameterError("subsets", "must be >= 1, got " + std::to_string(subsets));
  if (algorithm == EmAlgorithm::Ramla) {
    if (!(lambda0 > 0 && lambda0 <= 2 && std::isfinite(lambda0)))
      throw ParameterError("lambda0", "must be in (0, 2]");
    if (!(betaPasses > 0 && std::isfinite(betaPasses)))
      throw ParameterError("beta", "must be > 0 (passes)");
  }
  if (publishEvery < 0) throw ParameterError("publishEvery", "must be >= 0");
  kernel.validate();
}

std::vector<std::vector<std::int64_t>> directViewSubsets(const ViewBinning& views, int subsets) {
  const int n = views.count();
  if (subsets < 1 || subsets > n)
    throw ParameterError("subsets", "must be from 1 to the number of views (" + std::to_string(n) +
                                        "), got " + std::to_string(subsets));
  // Rank views azimuth-major with the tilts interleaved; subset s takes ranks s, s + S, ...
  std::vector<std::vector<std::int64_t>> out(static_cast<std::size_t>(subsets));
  int rank = 0;
  for (int a = 0; a < views.azimuths; ++a)
    for (int t = 0; t < views.tilts; ++t, ++rank)
      out[static_cast<std::size_t>(rank % subsets)].push_back(views.view(a, t));
  return out;
}

std::pair<std::string, std::string> directProjectorNames(const DirectReconParams& params,
                                                         const VariantRegistry& registry) {
  std::string forward = params.forwardVariant, back = params.backVariant;
  // A registry without the CPU pair (before its registration) still runs it (bindPair below).
  const bool cpuUnregistered = params.device == VariantDevice::Cpu && !registry.find(kCpuForward) &&
                               !registry.find(kCpuBack);
  if (forward.empty())
    forward = cpuUnregistered
                  ? kCpuForward
                  : registry.defaultFor(VariantRole::PetForwardProjector, params.device).name;
  if (back.empty())
    back = cpuUnregistered ? kCpuBack
                           : registry.defaultFor(VariantRole::PetBackprojector, params.device).name;
  return {forward, back};
}

Volume reconstructDirect(const HistoImages& data, const HistoImages* multiplicative,
                         const HistoImages* additive, const DirectReconParams& params,
                         JobContext& context, iterative::IterativeReport* reportOut,
                         const DirectMetricsFn& metrics, const VariantRegistry* registry) {
  params.validate();
  if (data.empty()) throw ParameterError("data", "the histo-images are empty");
  checkFiniteNonNegative(data, "data");
  if (multiplicative) {
    checkLayout(data, *multiplicative, "multiplicative factors");
    checkFiniteNonNegative(*multiplicative, "multiplicative factors");
  }
  if (additive) {
    checkLayout(data, *additive, "additive background");
    checkFiniteNonNegative(*additive, "additive background");
  }
  const VolumeGrid& grid = data.grid();
  if (params.initialVolume && !(params.initialVolume->shape() == grid.shape))
    throw ParameterError("initial volume", "its shape differs from the histo-images' grid");
  const int subsetCount = params.algorithm == EmAlgorithm::Mlem ? 1 : params.subsets;
  std::vector<std::vector<std::int64_t>> subsets = directViewSubsets(data.views(), subsetCount);

  const auto started = iterative::Clock::now();
  const VariantRegistry& reg = registry ? *registry : VariantRegistry::builtins();
  const auto [forwardName, backName] = directProjectorNames(params, reg);
  DirectProblem problem;
  problem.grid = grid;
  problem.views = data.views();
  problem.kernel = params.kernel;
  problem.gpu = params.gpu;
  std::unique_ptr<DirectPair> pair = bindPair(reg, forwardName, backName, problem);

  iterative::IterativeReport report;
  report.method = "direct-" + toString(params.algorithm);
  report.forwardVariant = forwardName;
  report.backVariant = backName;
  report.device = pair->device();
  if (!pair->matched())
    report.warnings.push_back(backName + " is not the transpose of " + forwardName +
                              ": EM's sensitivity and update assume a matched pair");

  const op::ArrayOps& ops = pair->ops();
  const std::unique_ptr<const op::Array> d = pair->useHistoImages(data);
  std::unique_ptr<const op::Array> m, b;
  if (multiplicative) m = pair->useHistoImages(*multiplicative);
  if (additive) b = pair->useHistoImages(*additive);
  std::unique_ptr<op::Array> x = pair->makeVolume();
  if (params.initialVolume) {
    for (const float v : params.initialVolume->voxels())
      if (!std::isfinite(v) || v < 0)
        throw ParameterError("initial volume", "holds a negative or non-finite value");
    ops.upload(params.initialVolume->voxels(), *x);
  } else {
    // Columns of K_v sum to about 1, so sum(S) ~ sum(m): this start predicts about the measured
    // counts.
    const double counts = data.total();
    const double sensitivity = multiplicative
                                   ? multiplicative->total()
                                   : double(data.viewCount()) * double(grid.shape.voxelCount());
    const double start = sensitivity > 0 && counts > 0 ? counts / sensitivity : 1.0;
    ops.fill(*x, static_cast<float>(start));
  }

  iterative::EmOptions options;
  options.ramla = params.algorithm == EmAlgorithm::Ramla;
  options.lambda0 = params.lambda0;
  options.betaPasses = params.betaPasses;
  options.multiplicative = m.get();
  options.additive = b.get();
  options.metrics = metrics;
  iterative::EmRule rule(std::move(options));
  iterative::SubsetProblem subsetProblem{*pair, *d, nullptr, 0.0f, INFINITY, std::move(subsets)};
  iterative::IterativeParams solverParams;
  solverParams.iterations = params.iterations;
  solverParams.publishEvery = params.publishEvery;
  solverParams.stopRelativeChange = 0.0;
  solverParams.subsets = subsetCount;
  solverParams.volume = grid;
  solverParams.forwardVariant = forwardName;
  solverParams.backVariant = backName;
  double dataNorm = 0;
  for (const float v : data.values()) dataNorm += double(v) * double(v);
  iterative::runOrderedSubsets(subsetProblem, rule, *x, solverParams, std::sqrt(dataNorm), report,
                               context);
  report.totalSeconds = iterative::secondsSince(started);
  Volume image = pair->takeVolume(std::move(x));
  context.throwIfCancelled();
  if (reportOut) *reportOut = std::move(report);
  return image;
}

void ActivityUnits::validate() const {
  if (!(acquisitionSeconds > 0 && std::isfinite(acquisitionSeconds)))
    throw ParameterError("acquisitionSeconds", "must be > 0");
  if (!(positronFraction > 0 && positronFraction <= 1))
    throw ParameterError("positronFraction", "must be in (0, 1]");
  if (!(decayFactor > 0 && std::isfinite(decayFactor)))
    throw ParameterError("decayFactor", "must be > 0");
}

double emissionsToBqPerMlFactor(const VolumeGrid& grid, const ActivityUnits& units) {
  units.validate();
  const double voxelMl = grid.voxelSizeMm.prod() / 1000.0;
  return units.decayFactor / (units.acquisitionSeconds * voxelMl * units.positronFraction);
}

Volume emissionsToBqPerMl(const Volume& emissions, const ActivityUnits& units) {
  const double factor = emissionsToBqPerMlFactor(VolumeGrid::of(emissions), units);
  Volume out = VolumeGrid::of(emissions).makeVolume();
  std::span<const float> in = emissions.voxels();
  std::span<float> o = out.voxels();
  for (std::size_t i = 0; i < in.size(); ++i) o[i] = static_cast<float>(double(in[i]) * factor);
  return out;
}

double decayCorrectionFactor(double acquisitionSeconds, double halfLifeS) {
  if (!(halfLifeS > 0) || !(acquisitionSeconds > 0)) return 1.0;
  const double lambdaT = std::log(2.0) * acquisitionSeconds / halfLifeS;
  return lambdaT / (1.0 - std::exp(-lambdaT));
}

}  // namespace tomowb::pet
