#include "recon/qa/VariantSweep.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>

#include "recon/core/Error.h"
#include "recon/device/GpuDevices.h"
#include "recon/metrics/MetricsJson.h"
#include "recon/operator/ProjectorPair.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::qa {

namespace {

// One run of a candidate: its volume, the kernel seconds, the whole run's seconds, voxel
// updates and the device it ran on.
struct RunOutput {
  Volume volume;
  double kernelSeconds = 0, totalSeconds = 0, voxelUpdates = 0;
  std::string device;
};
using RunFn = std::function<RunOutput(JobContext&)>;

struct Candidate {
  SweepRow row;
  bool needsGpu = false;
  RunFn run;
  std::size_t reference = 0;  // index into the sweep's references
  std::string unsupported;    // why this variant cannot take the input (skipped, not failed)
};

struct Reference {
  std::string label;
  RunFn run;
};

// The progress of one run inside the sweep: its stage behind "variant k of n: label", its
// fraction mapped into the row's share of the whole sweep.
class RowProgress : public ProgressSink {
 public:
  explicit RowProgress(const JobContext& outer) : outer_(outer) {}
  void set(std::string prefix, double begin, double end) {
    prefix_ = std::move(prefix);
    begin_ = begin;
    end_ = end;
    position_ = begin;
    outer_.reportProgress(prefix_, begin_);
  }
  void report(std::string_view stage, double fraction) override {
    const double f = std::clamp(fraction, 0.0, 1.0);
    position_ = begin_ + (end_ - begin_) * f;
    outer_.reportProgress(prefix_ + " · " + std::string(stage), position_);
  }
  double position() const { return position_; }

 private:
  const JobContext& outer_;
  std::string prefix_;
  double begin_ = 0, end_ = 1, position_ = 0;
};

bool kept(const SweepOptions& options, const std::string& name) {
  if (options.only.empty()) return true;
  return std::any_of(options.only.begin(), options.only.end(),
                     [&](const std::string& p) { return name.rfind(p, 0) == 0; });
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void markParetoFront(std::vector<SweepRow>& rows) {
  // Among the rows that pass: a failing variant is no candidate, however fast, and a reference
  // row's accuracy is not measured (it is compared with itself).
  const auto candidate = [](const SweepRow& r) {
    return r.ran && !r.isReference && r.comparison && r.comparison->passed.value_or(true);
  };
  for (SweepRow& a : rows) {
    if (!candidate(a)) continue;
    a.onParetoFront = true;
    for (const SweepRow& b : rows) {
      if (&a == &b || !candidate(b)) continue;
      const bool fasterOrSame = b.medianSeconds <= a.medianSeconds;
      const bool betterOrSame = b.comparison->metrics.nrmse <= a.comparison->metrics.nrmse;
      const bool strictly = b.medianSeconds < a.medianSeconds ||
                            b.comparison->metrics.nrmse < a.comparison->metrics.nrmse;
      if (fasterOrSame && betterOrSame && strictly) {
        a.onParetoFront = false;
        break;
      }
    }
  }
}

SweepResult runSweep(std::string algorithm, std::vector<Candidate> candidates,
                     const std::vector<Reference>& references, const SweepOptions& options,
                     JobContext& context,
                     const std::function<void(SweepRow&, JobContext&)>& extraChecks) {
  if (options.repeats < 1) throw ParameterError("repeats", "must be >= 1");
  if (options.warmups < 0) throw ParameterError("warmups", "must be >= 0");
  SweepResult result;
  result.algorithm = std::move(algorithm);
  result.reference = references.front().label;
  const bool haveGpu = !cuda::listGpuDevices().empty();
  const std::size_t total = candidates.size();
  RowProgress rowProgress(context);
  JobContext rowContext(context.cancelToken(), &rowProgress);
  double rowBegin = 0, rowEnd = 1;  // the current row's share of the sweep
  // Each reference runs once, when a row first needs it (the first one always).
  std::vector<std::optional<Volume>> referenceVolumes(references.size());
  const auto referenceVolume = [&](std::size_t i) -> const Volume& {
    if (!referenceVolumes[i]) {
      const double at = rowProgress.position();  // a reference takes no share of its own
      rowProgress.set("reference " + references[i].label, at, at);
      RunOutput ref = references[i].run(rowContext);
      if (i == 0) result.referenceSeconds = ref.kernelSeconds;
      referenceVolumes[i] = std::move(ref.volume);
    }
    return *referenceVolumes[i];
  };
  referenceVolume(0);
  CompareSpec spec;
  spec.region = options.region;
  spec.computeSsim = options.computeSsim;
  spec.tolerances = options.tolerances;
  for (std::size_t c = 0; c < total; ++c) {
    Candidate& candidate = candidates[c];
    SweepRow& row = candidate.row;
    rowBegin = static_cast<double>(c) / std::max<std::size_t>(total, 1);
    rowEnd = static_cast<double>(c + 1) / std::max<std::size_t>(total, 1);
    const std::string stage = sweepStage(c, total, row.label);
    context.reportProgress(stage, rowBegin);
    if (!candidate.unsupported.empty()) {
      row.skipped = candidate.unsupported;
    } else if (candidate.needsGpu && !haveGpu) {
      row.skipped = "no GPU (" + cuda::gpuStatus() + ")";
    } else if (candidate.needsGpu && !options.gpu) {
      row.skipped = "GPU variants not asked for";
    } else if (!candidate.needsGpu && !options.cpu) {
      row.skipped = "CPU variants not asked for";
    }
    if (!row.skipped.empty()) {
      result.rows.push_back(std::move(row));
      continue;
    }
    try {
      const int runs = options.warmups + options.repeats;
      const auto runShare = [&](int r, const std::string& what) {
        const double step = (rowEnd - rowBegin) / runs;
        rowProgress.set(stage + " (" + what + ")", rowBegin + r * step, rowBegin + (r + 1) * step);
      };
      for (int w = 0; w < options.warmups; ++w) {
        runShare(w, "warm-up " + std::to_string(w + 1) + " of " + std::to_string(options.warmups));
        candidate.run(rowContext);
      }
      DeterminismCheck determinism;
      std::vector<double> totals;
      RunOutput last;
      for (int r = 0; r < options.repeats; ++r) {
        runShare(options.warmups + r,
                 "run " + std::to_string(r + 1) + " of " + std::to_string(options.repeats));
        last = candidate.run(rowContext);
        row.seconds.push_back(last.kernelSeconds);
        totals.push_back(last.totalSeconds);
        determinism.add(last.volume);
      }
      row.ran = true;
      row.device = last.device;
      row.medianSeconds = median(row.seconds);
      row.medianTotalSeconds = median(totals);
      row.gups = row.medianSeconds > 0 ? last.voxelUpdates / row.medianSeconds / 1e9 : 0;
      row.determinism = determinism.report();
      spec.accuracyClass = row.accuracyClass;
      row.reference = references[candidate.reference].label;
      row.isReference = row.label == row.reference;
      row.comparison = compareRuns(last.volume, referenceVolume(candidate.reference), spec);
      if (row.isReference) {
        row.comparison->passed.reset();
        row.comparison->accuracyClass.reset();
        row.comparison->tolerance.reset();
        row.comparison->verdict = "reference";
      }
      row.centralSlice = centralSlice(last.volume);
      if (extraChecks) extraChecks(row, rowContext);
    } catch (const Cancelled&) {
      throw;
    } catch (const Error& e) {
      row.ran = false;
      row.failed = e.what();
    }
    result.rows.push_back(std::move(row));
  }
  markParetoFront(result.rows);
  result.referenceVolume = std::move(*referenceVolumes[0]);
  context.reportProgress("sweep", 1.0);
  return result;
}

}  // namespace

std::string rowVerdict(const SweepRow& row) {
  if (!row.ran) return row.skipped.empty() ? "failed: " + row.failed : "skipped: " + row.skipped;
  if (row.isReference) return "reference";
  if (!row.comparison || !row.comparison->passed) return "informative";
  return *row.comparison->passed ? "pass" : "FAIL";
}

std::string sweepStage(std::size_t index, std::size_t count, const std::string& label) {
  return "variant " + std::to_string(index + 1) + " of " + std::to_string(count) + ": " + label;
}

Volume centralSlice(const Volume& volume) {
  const std::int64_t z = volume.nz() / 2;
  Volume slice(VolumeShape{volume.nx(), volume.ny(), 1}, volume.voxelSizeMm(),
               volume.worldPosition(0, 0, static_cast<double>(z)));
  std::memcpy(slice.data(), volume.data() + volume.index(0, 0, z),
              sizeof(float) * static_cast<std::size_t>(volume.nx() * volume.ny()));
  return slice;
}

SweepResult sweepFdk(const ProjectionStack& projections, const fdk::FdkParams& base,
                     const SweepOptions& options, JobContext& context) {
  const auto runWith = [&projections, base](const std::string& variant) {
    return [&projections, base, variant](JobContext& context) {
      fdk::FdkParams params = base;
      params.variant = variant;
      fdk::FdkReport report;
      RunOutput out;
      out.volume = fdk::reconstructFdk(projections, params, context, &report);
      out.kernelSeconds = report.backprojectSeconds;
      out.totalSeconds = report.totalSeconds;
      out.voxelUpdates = report.voxelUpdates;
      out.device = report.device;
      return out;
    };
  };
  std::vector<Candidate> candidates;
  for (const KernelVariant* v :
       VariantRegistry::builtins().withRole(VariantRole::FdkBackprojector)) {
    if (!kept(options, v->name)) continue;
    Candidate c;
    c.row.label = v->name;
    c.row.variant = v->name;
    c.row.accuracyClass = v->accuracyClass;
    c.needsGpu = v->needsGpu;
    c.run = runWith(v->name);
    candidates.push_back(std::move(c));
  }
  const std::string reference =
      VariantRegistry::builtins().referenceFor(VariantRole::FdkBackprojector).name;
  return runSweep("FDK", std::move(candidates), {{reference, runWith(reference)}}, options, context,
                  {});
}

SweepResult sweepSirt(const ProjectionStack& projections, const iterative::IterativeParams& base,
                      const SweepOptions& options, JobContext& context) {
  const auto runWith = [&projections, base](const std::string& fp, const std::string& bp) {
    return [&projections, base, fp, bp](JobContext& context) {
      iterative::IterativeParams params = base;
      params.forwardVariant = fp;
      params.backVariant = bp;
      iterative::IterativeReport report;
      RunOutput out;
      out.volume = iterative::reconstructIterative(projections, params, context, &report);
      const double iterations = std::max<std::size_t>(report.iterations.size(), 1);
      out.kernelSeconds = (report.forwardSeconds + report.backprojectSeconds) / iterations;
      out.totalSeconds = report.totalSeconds;
      out.voxelUpdates = report.voxelUpdates / iterations;
      out.device = report.device;
      return out;
    };
  };
  const VariantRegistry& registry = VariantRegistry::builtins();
  // References: the float64 matched pair, for unmatched rows the CPU default pair (its forward
  // projector with the default unmatched backprojector), and for a matched pair of another model
  // (Siddon's, say) that model's own CPU matched pair: a different discretisation is judged
  // against its own model, not against Joseph's.
  const std::string fpReference = registry.referenceFor(VariantRole::ForwardProjector).name;
  const std::string bpReference = registry.referenceFor(VariantRole::Backprojector).name;
  const std::string unmatched =
      registry.defaultFor(VariantRole::Backprojector, VariantDevice::Cpu).name;
  std::vector<Reference> references{
      {fpReference + " + " + bpReference, runWith(fpReference, bpReference)},
      {fpReference + " + " + unmatched, runWith(fpReference, unmatched)}};
  const auto referenceOf = [&](const KernelVariant& fp, const KernelVariant& bp) -> std::size_t {
    if (bp.adjointOf.empty()) return 1;
    const std::string modelFp = registry.referenceFor(VariantRole::ForwardProjector, fp.model).name;
    const std::string modelBp = registry.referenceFor(VariantRole::Backprojector, fp.model).name;
    const std::string label = modelFp + " + " + modelBp;
    for (std::size_t i = 0; i < references.size(); ++i)
      if (references[i].label == label) return i;
    references.push_back({label, runWith(modelFp, modelBp)});
    return references.size() - 1;
  };
  std::vector<Candidate> candidates;
  const auto add = [&](const KernelVariant& fp, const KernelVariant& bp,
                       const KernelVariant& swept) {
    Candidate c;
    c.row.label = fp.name + " + " + bp.name;
    c.row.forwardVariant = fp.name;
    c.row.variant = bp.name;
    c.row.accuracyClass = std::max(fp.accuracyClass, bp.accuracyClass);
    c.needsGpu = fp.needsGpu || bp.needsGpu;
    c.run = runWith(fp.name, bp.name);
    c.reference = referenceOf(fp, bp);
    // A pair made for other geometries (the SF pairs take cone beams only) is skipped with its
    // reason, not run into a failure.
    if (const std::optional<std::string> why = op::whyNotSupported(
            registry, fp.name, bp.name, {&projections.geometry(), base.volume, base.gpu}))
      c.unsupported = *why;
    (void)swept;
    candidates.push_back(std::move(c));
  };
  // The partner of each swept projector: its matched twin when it has one, else the device's
  // default (GPU: et.bp.fast / et.fp.fast; CPU: et.bp.cpu-voxel / et.fp.cpu).
  const auto deviceOf = [](const KernelVariant& v) {
    return v.needsGpu ? VariantDevice::Gpu : VariantDevice::Cpu;
  };
  for (const KernelVariant* fp : registry.withRole(VariantRole::ForwardProjector)) {
    if (!kept(options, fp->name)) continue;
    const KernelVariant* bp = nullptr;
    for (const KernelVariant* b : registry.withRole(VariantRole::Backprojector))
      if (b->adjointOf == fp->name) bp = b;
    if (!bp) bp = &registry.defaultFor(VariantRole::Backprojector, deviceOf(*fp));
    add(*fp, *bp, *fp);
  }
  for (const KernelVariant* bp : registry.withRole(VariantRole::Backprojector)) {
    if (!kept(options, bp->name) || !bp->adjointOf.empty()) continue;  // matched: above
    add(registry.defaultFor(VariantRole::ForwardProjector, deviceOf(*bp)), *bp, *bp);
  }
  // Drop duplicate pairs (a default partner that was also swept on its own).
  std::vector<Candidate> unique;
  for (Candidate& c : candidates)
    if (std::none_of(unique.begin(), unique.end(),
                     [&](const Candidate& u) { return u.row.label == c.row.label; }))
      unique.push_back(std::move(c));
  const Geometry geometry = projections.geometry();
  const fdk::VolumeGrid grid = base.volume;
  const auto adjoint = [&options, geometry, grid](SweepRow& row, JobContext& context) {
    if (!options.adjointTests) return;
    const Volume shape(grid.shape, grid.voxelSizeMm, grid.originMm);
    row.adjoint = adjointTest(row.forwardVariant, row.variant, geometry, shape, 20261123, context);
  };
  std::string label = iterative::toString(base.method);  // "os-sirt" -> "OS-SIRT"
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return runSweep(std::move(label), std::move(unique), references, options, context, adjoint);
}

nlohmann::json toJson(const SweepResult& result) {
  nlohmann::json rows = nlohmann::json::array();
  for (const SweepRow& r : result.rows) {
    nlohmann::json j{{"label", r.label},
                     {"variant", r.variant},
                     {"accuracyClass", toString(r.accuracyClass)},
                     {"ran", r.ran}};
    if (!r.forwardVariant.empty()) j["forwardVariant"] = r.forwardVariant;
    if (!r.skipped.empty()) j["skipped"] = r.skipped;
    if (!r.failed.empty()) j["failed"] = r.failed;
    j["verdict"] = rowVerdict(r);
    if (r.ran) {
      j["reference"] = r.reference;
      j["isReference"] = r.isReference;
      j["seconds"] = r.seconds;
      j["medianSeconds"] = r.medianSeconds;            // kernel time
      j["medianTotalSeconds"] = r.medianTotalSeconds;  // wall time of the whole run
      j["gups"] = r.gups;
      j["device"] = r.device;
      j["determinism"] = toJson(r.determinism);
      j["onParetoFront"] = r.onParetoFront;
      if (r.comparison) j["comparison"] = toJson(*r.comparison);
      if (r.adjoint) j["adjoint"] = toJson(*r.adjoint);
    }
    rows.push_back(j);
  }
  return {{"algorithm", result.algorithm},
          {"input", result.input},
          {"reference", result.reference},
          {"referenceSeconds", result.referenceSeconds},
          {"rows", rows}};
}

}  // namespace tomowb::qa
