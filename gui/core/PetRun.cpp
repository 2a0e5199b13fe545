// PetRun: see the header.
#include "gui/core/PetRun.h"

#include <omp.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <utility>

#include "recon/core/Error.h"
#include "recon/pet/PetImageQuality.h"
#include "recon/pet/PetPipeline.h"

namespace tomowb::gui {

namespace {

// The run's own context: the worker's cancel token, progress and telemetry as they are, the
// iterates scaled into the result's units (Bq/mL), the iterations passed on.
class PetRunContext : public ProgressSink,
                      public TelemetrySink,
                      public IntermediateVolumeSink,
                      public IterationSink {
 public:
  PetRunContext(JobContext& outer, double previewScale)
      : outer_(outer),
        scale_(previewScale),
        inner_(outer.cancelToken(), this, this, outer.wantsIntermediates() ? this : nullptr) {
    inner_.setIterationSink(this);
  }
  JobContext& context() { return inner_; }

  void report(std::string_view stage, double fraction) override {
    outer_.reportProgress(stage, fraction);
  }
  void publish(const TelemetryEvent& event) override { outer_.publishTelemetry(event); }
  void publish(const Volume& volume, std::string_view label, double valueScale) override {
    outer_.publishIntermediate(volume, label, valueScale * scale_);
  }
  bool wantsVolumeNow() const override { return outer_.intermediateWantedNow(); }
  void iterationDone(const IterationRecord& record) override { outer_.reportIteration(record); }

 private:
  JobContext& outer_;
  double scale_;
  JobContext inner_;
};

pet::ViewBinning viewsOf(const PetDataSet& data, const PetRunSettings& s) {
  pet::ViewBinning views = pet::defaultPetViews(data.header.scanner);
  views.azimuths = s.azimuths;
  views.tilts = s.tilts;
  return views;
}

VolumeGrid gridOf(const PetDataSet& data, const PetRunSettings& s) {
  return s.grid.shape.voxelCount() > 0 ? s.grid : data.grid;
}

pet::PetReconParams reconParams(const PetDataSet& data, const PetRunSettings& s) {
  pet::PetReconParams p;
  pet::DirectReconParams& r = p.recon;
  r.algorithm = s.algorithm;
  r.iterations = s.iterations;
  r.subsets = s.algorithm == pet::EmAlgorithm::Mlem ? 1 : s.subsets;
  r.lambda0 = s.lambda0;
  r.betaPasses = s.betaPasses;
  r.kernel.profile = s.lorKernel;
  r.kernel.radialFwhmMm = s.radialFwhmMm;
  r.kernel.axialFwhmMm = s.axialFwhmMm;
  r.kernel.tofFwhmPs = s.tofFwhmPs > 0 ? s.tofFwhmPs : data.header.scanner.tofFwhmPs;
  r.device = s.device;
  if (s.device == VariantDevice::Gpu) r.gpu.devices = {s.gpuIndex};
  const auto [forward, back] = petProjectorNames(s);
  r.forwardVariant = forward;
  r.backVariant = back;
  r.publishEvery = 1;
  p.positronFraction = s.positronFraction;
  p.decayCorrection = s.decayCorrection;
  return p;
}

double acquisitionSecondsOf(const PetDataSet& data) {
  return data.header.acquisitionSeconds > 0 ? data.header.acquisitionSeconds : 1.0;
}

pet::DirectMetricsFn metricsFor(std::shared_ptr<const pet::PetPhantom> phantom,
                                std::shared_ptr<std::atomic<bool>> measureFailed) {
  if (!phantom) return {};
  return [phantom = std::move(phantom), measureFailed = std::move(measureFailed)](
             const Volume& iterate) -> std::vector<std::pair<std::string, double>> {
    try {
      const pet::PetImageQuality q = pet::measurePetImageQuality(iterate, *phantom);
      std::vector<std::pair<std::string, double>> out;
      if (!q.hot.empty()) out.emplace_back(kCrcHotMetric, q.meanHotCrc);
      if (!q.cold.empty()) out.emplace_back(kCrcColdMetric, q.meanColdCrc);
      out.emplace_back(kNoiseMetric, q.noise);
      return out;
    } catch (const Error&) {
      // An ROI outside this grid: no figures (the report says why once).
      measureFailed->store(true);
      return {};
    }
  };
}

nlohmann::json gridJson(const VolumeGrid& g) {
  return {{"shape", {g.shape.nx, g.shape.ny, g.shape.nz}},
          {"voxelMm", {g.voxelSizeMm.x(), g.voxelSizeMm.y(), g.voxelSizeMm.z()}},
          {"originMm", {g.originMm.x(), g.originMm.y(), g.originMm.z()}}};
}

nlohmann::json depositionJson(const pet::DepositionReport& r) {
  return {{"events", r.events},           {"deposited", r.deposited},
          {"outsideTilt", r.outsideTilt}, {"outsideGrid", r.outsideGrid},
          {"seconds", r.seconds},         {"device", r.device}};
}

std::string referenceName(PetReference reference) {
  switch (reference) {
    case PetReference::None:
      return "none";
    case PetReference::Simulation:
      return "simulation";
    case PetReference::DefaultPhantom:
      return "default-phantom";
  }
  return "none";
}

}  // namespace

nlohmann::json PetRunSettings::toJson() const {
  return {{"algorithm", pet::toString(algorithm)},
          {"iterations", iterations},
          {"subsets", algorithm == pet::EmAlgorithm::Mlem ? 1 : subsets},
          {"lambda0", lambda0},
          {"betaPasses", betaPasses},
          {"lorKernel", pet::toString(lorKernel)},
          {"radialFwhmMm", radialFwhmMm},
          {"axialFwhmMm", axialFwhmMm},
          {"tofFwhmPs", tofFwhmPs},
          {"deposition", pet::toString(deposition)},
          {"attenuationCorrection", attenuationCorrection},
          {"randomsCorrection", randomsCorrection},
          {"azimuths", azimuths},
          {"tilts", tilts},
          {"device", device == VariantDevice::Gpu ? "gpu" : "cpu"},
          {"positronFraction", positronFraction},
          {"decayCorrection", decayCorrection},
          {"reference", referenceName(reference)},
          {"units", bqPerMl ? "BQML" : "emissions per voxel"}};
}

std::shared_ptr<const Volume> petAttenuationMap(const PetDataSet& data,
                                                const PetRunSettings& settings) {
  if (!settings.attenuationCorrection) return nullptr;
  if (data.attenuation) return data.attenuation;
  return nullptr;
}

std::shared_ptr<const pet::PetPhantom> petReferencePhantom(const PetDataSet& data,
                                                           const PetRunSettings& settings) {
  switch (settings.reference) {
    case PetReference::None:
      return nullptr;
    case PetReference::Simulation:
      return data.phantom;
    case PetReference::DefaultPhantom:
      return data.phantom ? data.phantom : std::make_shared<const pet::PetPhantom>();
  }
  return nullptr;
}

std::pair<std::string, std::string> petProjectorNames(const PetRunSettings& settings) {
  pet::DirectReconParams p;
  p.device = settings.device;
  p.forwardVariant = settings.forwardVariant;
  p.backVariant = settings.backVariant;
  return pet::directProjectorNames(p, VariantRegistry::builtins());
}

double petRunHostBytes(const PetDataSet& data, const PetRunSettings& settings) {
  const VolumeGrid grid = gridOf(data, settings);
  const double voxels = double(grid.shape.voxelCount());
  const double views = double(settings.azimuths) * double(settings.tilts);
  const int histoSets = 2 + (settings.randomsCorrection && data.delayedCount() > 0 ? 1 : 0);
  // The histo-images, then the solver's volumes (iterate, sensitivity, update, result copies)
  // and one view's scratch per thread.
  return 4.0 * (views * voxels * histoSets + 8.0 * voxels);
}

void validatePetRun(const PetDataSet& data, const PetRunSettings& s) {
  if (!data.events || data.promptCount() == 0)
    throw ParameterError("data", "the PET data hold no prompt");
  if (s.iterations < 1 || s.iterations > 10000)
    throw ParameterError("iterations", "must be from 1 to 10000");
  const VolumeGrid grid = gridOf(data, s);
  if (grid.shape.voxelCount() <= 0) throw ParameterError("grid", "the image grid is empty");
  if (std::abs(grid.voxelSizeMm.x() - grid.voxelSizeMm.y()) > 1e-9 * grid.voxelSizeMm.x())
    throw ParameterError("grid", "DIRECT needs square voxels in x and y");
  const pet::ViewBinning views = viewsOf(data, s);
  views.validate();
  if (s.algorithm != pet::EmAlgorithm::Mlem && (s.subsets < 1 || s.subsets > views.count()))
    throw ParameterError(
        "subsets", "must be from 1 to the number of views (" + std::to_string(views.count()) + ")");
  if (s.tofFwhmPs < 0 || s.tofFwhmPs > 1e5)
    throw ParameterError("tofFwhmPs", "must be in (0, 100000) ps, or 0 for the scanner's");
  if (!(s.positronFraction > 0 && s.positronFraction <= 1))
    throw ParameterError("positronFraction", "must be in (0, 1]");
  const pet::PetReconParams params = reconParams(data, s);
  params.recon.validate();
  params.recon.kernel.validate();
  for (const std::string& name : {params.recon.forwardVariant, params.recon.backVariant}) {
    const KernelVariant& v = VariantRegistry::builtins().require(name);
    if (v.role != VariantRole::PetForwardProjector && v.role != VariantRole::PetBackprojector)
      throw ParameterError("projector", name + " is not a DIRECT projector");
  }
}

RunSpec makePetRun(std::shared_ptr<const PetDataSet> data, const PetRunSettings& settings) {
  if (!data) throw ParameterError("data", "open or simulate PET data first");
  validatePetRun(*data, settings);
  const VolumeGrid grid = gridOf(*data, settings);
  const pet::PetReconParams params = reconParams(*data, settings);
  pet::HistoImagingParams histo;
  histo.grid = grid;
  histo.views = viewsOf(*data, settings);
  histo.deposition = settings.deposition;
  histo.randomsCorrection = settings.randomsCorrection;
  std::shared_ptr<const Volume> mu = petAttenuationMap(*data, settings);
  std::shared_ptr<const pet::PetPhantom> phantom = petReferencePhantom(*data, settings);

  RunSpec spec;
  spec.algorithm = kPetAlgorithmId;
  spec.iterative = true;  // ML-EM, OSEM, RAMLA: EM passes (EmRule)
  QString label = QString::fromStdString(pet::toString(settings.algorithm)).toUpper();
  if (label == QStringLiteral("MLEM")) label = QStringLiteral("ML-EM");
  spec.title = QStringLiteral("DIRECT %1 %2x%3x%4 %5 + %6")
                   .arg(label)
                   .arg(grid.shape.nx)
                   .arg(grid.shape.ny)
                   .arg(grid.shape.nz)
                   .arg(QString::fromStdString(params.recon.forwardVariant),
                        QString::fromStdString(params.recon.backVariant));
  nlohmann::json& p = spec.parameters;
  p = settings.toJson();
  p["tofFwhmPs"] = params.recon.kernel.tofFwhmPs;
  p["forwardVariant"] = params.recon.forwardVariant;
  p["backVariant"] = params.recon.backVariant;
  p["volume"] = gridJson(grid);
  p["views"] = histo.views->count();
  p["attenuationCorrection"] = mu != nullptr;
  p["randomsCorrection"] = settings.randomsCorrection && data->delayedCount() > 0;
  p["cpuThreads"] = settings.cpuThreads;
  if (settings.device == VariantDevice::Gpu) p["gpu"] = {{"devices", {settings.gpuIndex}}};
  // What the PET DICOM export and the run record need of the acquisition.
  p["input"] = {{"name", data->name.toStdString()},
                {"path", data->sourcePath.toStdString()},
                {"scanner", data->header.scanner.name},
                {"prompts", data->promptCount()},
                {"delayed", data->delayedCount()},
                {"acquisitionSeconds", data->header.acquisitionSeconds},
                {"isotope", data->header.isotope},
                {"halfLifeS", data->header.halfLifeS},
                {"scanStart", data->header.scanStart}};
  if (data->phantom && data->simulation) {
    // The activity simulated (the phantom within the image grid) at the scan start, and the mass
    // of the water it fills at the background concentration (1 g/mL): the dose and weight a PET
    // viewer's SUV needs (PetDicomExport.h), which then reads about 1 in the background.
    const double activityBq = data->simulation->activityBq;
    p["input"]["phantomActivityBq"] = activityBq;
    // The window's simulator lets nothing decay: the values are the activity at the scan start.
    p["input"]["decayFree"] = true;
    p["input"]["phantomMassKg"] = activityBq / data->phantom->params().backgroundBqPerMl * 1e-3;
  }

  pet::ActivityUnits units;
  units.acquisitionSeconds = acquisitionSecondsOf(*data);
  units.positronFraction = settings.positronFraction;
  units.decayFactor =
      settings.decayCorrection
          ? pet::decayCorrectionFactor(units.acquisitionSeconds, data->header.halfLifeS)
          : 1.0;
  const double previewScale = settings.bqPerMl ? pet::emissionsToBqPerMlFactor(grid, units) : 1.0;
  const bool bqPerMl = settings.bqPerMl;
  const int cpuThreads = settings.cpuThreads;
  spec.execute = [data = std::move(data), histo, params, mu = std::move(mu),
                  phantom = std::move(phantom), previewScale, bqPerMl,
                  cpuThreads](JobContext& outer, nlohmann::json& report) {
    if (cpuThreads > 0) omp_set_num_threads(cpuThreads);
    PetRunContext run(outer, previewScale);
    JobContext& context = run.context();
    auto measureFailed = std::make_shared<std::atomic<bool>>(false);
    const std::span<const pet::ListModeEvent> events(*data->events);
    const pet::PetHistoSet set = pet::makeHistoSet(data->header, events, mu.get(), histo, context);
    pet::PetReconResult r =
        pet::reconstructHistoSet(set, params, context, metricsFor(phantom, measureFailed));
    context.throwIfCancelled();
    const iterative::IterativeReport& it = r.report;
    report = {{"forwardVariant", it.forwardVariant},
              {"backVariant", it.backVariant},
              {"device", it.device},
              {"iterationsDone", it.iterations.size()},
              {"totalSeconds", it.totalSeconds},
              {"forwardSeconds", it.forwardSeconds},
              {"backprojectSeconds", it.backprojectSeconds},
              {"histoSeconds", set.seconds},
              {"stopReason", it.stopReason},
              {"prompts", depositionJson(set.prompts)},
              {"delayed", depositionJson(set.delayed)},
              {"bqPerMlPerEmission", r.bqPerMlPerEmission},
              {"units", bqPerMl ? "BQML" : "emissions per voxel"},
              {"hostThreads", std::thread::hardware_concurrency()},
              {"cpuThreadsUsed", omp_get_max_threads()}};
    nlohmann::json iterations = nlohmann::json::array();
    for (const IterationRecord& rec : it.iterations) {
      nlohmann::json j = {
          {"iteration", rec.iteration}, {"objective", rec.objective}, {"seconds", rec.seconds}};
      for (const auto& [name, value] : rec.metrics) j[name] = value;
      iterations.push_back(j);
    }
    report["iterations"] = iterations;
    nlohmann::json warnings = nlohmann::json::array();
    for (const std::string& w : it.warnings) warnings.push_back(w);
    if (measureFailed->load())
      warnings.push_back(
          "contrast recovery was not measured: the phantom's ROIs do not fit the image grid");
    report["warnings"] = warnings;
    return std::make_shared<Volume>(bqPerMl ? std::move(r.activityBqPerMl)
                                            : std::move(r.emissions));
  };
  return spec;
}

QString petResultUnits(const nlohmann::json& parameters) {
  return parameters.value("units", std::string("BQML")) == "BQML"
             ? QStringLiteral("Bq/mL")
             : QStringLiteral("emissions per voxel");
}

}  // namespace tomowb::gui
