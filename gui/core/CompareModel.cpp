// CompareModel: see the header. The worker thread holds at most one job: a newer pair replaces a
// job not yet started, and a result whose generation is no longer the model's is dropped, so
// switching pairs quickly never queues stale work behind the one the user looks at.
#include "gui/core/CompareModel.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QSettings>
#include <QThread>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include "gui/core/CatalogRun.h"
#include "gui/core/FdkRun.h"
#include "gui/core/IterativeRun.h"
#include "recon/core/Error.h"
#include "recon/metrics/ImageMetrics.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Percentiles of larger volumes come from an evenly strided sample of this many voxels.
constexpr std::int64_t kPercentileSample = std::int64_t{1} << 22;

std::string stringField(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>()
                                                                : std::string();
}

QString figure(double v, int digits = 4) {
  if (std::isnan(v)) return QStringLiteral("n/a");
  if (std::isinf(v)) return v > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
  return QString::number(v, 'g', digits);
}

QString shapeText(const Volume& v) {
  return QStringLiteral("%1x%2x%3").arg(v.nx()).arg(v.ny()).arg(v.nz());
}

}  // namespace

// --- accuracy classes ---------------------------------------------------------------------------

qa::AccuracyClass accuracyClassOfVariant(const std::string& name) {
  const KernelVariant* variant = VariantRegistry::builtins().find(name);
  return variant != nullptr ? variant->accuracyClass : qa::AccuracyClass::Exact;
}

qa::AccuracyClass accuracyClassOfRun(const nlohmann::json& parameters) {
  // The enum runs from the tightest class to the loosest: a pair promises its looser member's.
  qa::AccuracyClass c = qa::AccuracyClass::Exact;
  for (const char* key : {"variant", "forwardVariant", "backVariant"}) {
    const std::string name = stringField(parameters, key);
    if (!name.empty()) c = std::max(c, accuracyClassOfVariant(name));
  }
  return c;
}

QString accuracyClassLabel(qa::AccuracyClass c) {
  switch (c) {
    case qa::AccuracyClass::Exact:
      return QStringLiteral("exact");
    case qa::AccuracyClass::HardwareInterpolation:
      return QStringLiteral("hardware interpolation");
    case qa::AccuracyClass::HalfPrecision:
      return QStringLiteral("half precision");
  }
  return QStringLiteral("?");
}

namespace {

// The registry's float64 reference of a role within a projector model (the Siddon pair for a
// Siddon run: a pair is judged against its own model), or "" when this build has none.
std::string referenceName(VariantRole role, const std::string& model = {}) {
  const VariantRegistry& registry = VariantRegistry::builtins();
  try {
    return registry.referenceFor(role, model).name;
  } catch (const ParameterError&) {
    return {};
  }
}

// The model of the forward projector a run's parameters name ("joseph", "siddon"), or "".
std::string projectorModel(const nlohmann::json& parameters) {
  const KernelVariant* forward =
      VariantRegistry::builtins().find(stringField(parameters, "forwardVariant"));
  return forward ? forward->model : std::string();
}

}  // namespace

bool isFloat64ReferenceRun(const nlohmann::json& parameters) {
  const std::string fdk = referenceName(VariantRole::FdkBackprojector);
  if (!fdk.empty() && stringField(parameters, "variant") == fdk) return true;
  const std::string model = projectorModel(parameters);
  const std::string forward = referenceName(VariantRole::ForwardProjector, model);
  const std::string back = referenceName(VariantRole::Backprojector, model);
  return !forward.empty() && stringField(parameters, "forwardVariant") == forward &&
         stringField(parameters, "backVariant") == back;
}

// --- tolerances ---------------------------------------------------------------------------------

qa::ToleranceTable loadToleranceTable(QSettings& settings) {
  const QString text = settings.value(QStringLiteral("compare/tolerances")).toString();
  if (text.isEmpty()) return {};
  try {
    return qa::ToleranceTable::fromJson(nlohmann::json::parse(text.toStdString()));
  } catch (const std::exception&) {
    return {};  // an unreadable entry (edited by hand) falls back to the defaults
  }
}

void saveToleranceTable(QSettings& settings, const qa::ToleranceTable& table) {
  settings.setValue(QStringLiteral("compare/tolerances"),
                    QString::fromStdString(table.toJson().dump()));
}

// --- pass / fail --------------------------------------------------------------------------------

CompareVerdict judgeComparison(const qa::RunComparison& comparison, qa::AccuracyClass c,
                               const qa::Tolerance& tolerance) {
  qa::RunComparison judged = comparison;
  qa::judge(judged, c, tolerance);  // the core's rule and text, with this tolerance
  return {*judged.passed, QString::fromStdString(judged.verdict)};
}

// --- difference, window, profiles ---------------------------------------------------------------

std::shared_ptr<Volume> differenceVolume(const Volume& a, const Volume& b) {
  metrics::requireSameShape(a, b);
  auto d = std::make_shared<Volume>(a.shape(), a.voxelSizeMm(), a.originMm());
  const float* pa = a.data();
  const float* pb = b.data();
  float* pd = d->data();
  const std::int64_t n = a.voxelCount();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) pd[i] = pa[i] - pb[i];
  return d;
}

double absolutePercentile(const Volume& volume, double percent) {
  const std::int64_t n = volume.voxelCount();
  const std::int64_t stride = std::max<std::int64_t>(1, n / kPercentileSample);
  std::vector<float> values;
  values.reserve(static_cast<std::size_t>(n / stride + 1));
  const float* p = volume.data();
  for (std::int64_t i = 0; i < n; i += stride)
    if (std::isfinite(p[i])) values.push_back(std::abs(p[i]));
  if (values.empty()) return 0.0;
  const double rank = std::clamp(percent, 0.0, 100.0) / 100.0 * (values.size() - 1);
  const auto k = static_cast<std::size_t>(std::llround(rank));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

double defaultDifferenceHalfWindow(const Volume& difference) {
  const double p = absolutePercentile(difference, 99.9);
  if (p > 0) return p;
  const double largest = absolutePercentile(difference, 100.0);
  return largest > 0 ? largest : 1e-6;
}

std::vector<double> sampleLine(const Volume& volume, const Eigen::Vector3d& from,
                               const Eigen::Vector3d& to, int count) {
  count = std::max(count, 2);
  std::vector<double> samples(static_cast<std::size_t>(count), kNaN);
  const std::int64_t n[3] = {volume.nx(), volume.ny(), volume.nz()};
  constexpr double kSlack = 1e-6;  // voxel units: end points on the outer centres count as in
  for (int s = 0; s < count; ++s) {
    const Eigen::Vector3d p = from + (to - from) * (static_cast<double>(s) / (count - 1));
    const Eigen::Vector3d u = (p - volume.originMm()).cwiseQuotient(volume.voxelSizeMm());
    std::int64_t i0[3];
    double f[3];
    bool inside = true;
    for (int a = 0; a < 3 && inside; ++a) {
      double c = u[a];
      if (c < -kSlack || c > n[a] - 1 + kSlack) inside = false;
      c = std::clamp(c, 0.0, static_cast<double>(n[a] - 1));
      i0[a] = std::min<std::int64_t>(static_cast<std::int64_t>(std::floor(c)), n[a] - 1);
      f[a] = c - i0[a];
      if (i0[a] == n[a] - 1) f[a] = 0.0;  // on the last centre (or a single-slice axis)
    }
    if (!inside) continue;
    double value = 0;
    for (int corner = 0; corner < 8; ++corner) {
      const int dx = corner & 1, dy = (corner >> 1) & 1, dz = (corner >> 2) & 1;
      const double w = (dx ? f[0] : 1 - f[0]) * (dy ? f[1] : 1 - f[1]) * (dz ? f[2] : 1 - f[2]);
      if (w == 0) continue;
      value += w * volume.at(i0[0] + dx, i0[1] + dy, i0[2] + dz);
    }
    samples[static_cast<std::size_t>(s)] = value;
  }
  return samples;
}

LineProfile lineProfile(const Volume& a, const Volume& b, const Eigen::Vector3d& from,
                        const Eigen::Vector3d& to) {
  const double length = (to - from).norm();
  const double step = a.voxelSizeMm().minCoeff();
  const int count =
      std::clamp(static_cast<int>(std::llround(length / std::max(step, 1e-12))) + 1, 2, 4096);
  LineProfile p;
  p.a = sampleLine(a, from, to, count);
  p.b = sampleLine(b, from, to, count);
  p.distanceMm.resize(p.a.size());
  p.difference.resize(p.a.size());
  for (std::size_t i = 0; i < p.a.size(); ++i) {
    p.distanceMm[i] = length * static_cast<double>(i) / (count - 1);
    p.difference[i] = p.a[i] - p.b[i];
  }
  return p;
}

// --- golden reference ---------------------------------------------------------------------------

QString goldenReferenceUnavailable(const RunInfo& run) {
  if (run.state != RunState::Finished || !run.result)
    return QObject::tr("run %1 has not finished: a golden reference needs a finished run")
        .arg(run.id);
  const QString algorithm = run.spec.algorithm;
  const nlohmann::json& p = run.spec.parameters;
  const catalog::AlgorithmDescriptor* descriptor = algorithmDescriptor(algorithm);
  if (descriptor == nullptr || descriptor->projectors.empty())
    return QObject::tr(
               "no float64 reference path exists for %1 runs (algorithms that run on "
               "registered kernel variants have one)")
        .arg(algorithm.isEmpty() ? QObject::tr("these") : algorithm.toUpper());
  if (isFloat64ReferenceRun(p))
    return QObject::tr("run %1 is itself the CPU float64 reference").arg(run.id);
  for (const catalog::ProjectorSlot& slot : descriptor->projectors)
    if (referenceName(slot.role).empty())
      return QObject::tr("this build has no float64 reference %1")
          .arg(QString::fromStdString(toString(slot.role)));
  if (p.value("mask", false))
    return QObject::tr("run %1 used a reconstruction mask, which its record does not keep")
        .arg(run.id);
  if (p.value("weighted", false))
    return QObject::tr("run %1 used statistical weights, which its record does not keep")
        .arg(run.id);
  return {};
}

RunSpec makeGoldenReferenceRun(const RunInfo& run,
                               std::shared_ptr<const ProjectionStack> projections,
                               const Geometry* geometry, std::shared_ptr<const Volume> warmStart) {
  const QString why = goldenReferenceUnavailable(run);
  if (!why.isEmpty()) throw ParameterError("golden reference", why.toStdString());
  const nlohmann::json& p = run.spec.parameters;
  const int threads = p.value("cpuThreads", 0);
  // The run's own parameters with the float64 reference of every projector role it uses.
  const catalog::AlgorithmDescriptor& descriptor = *algorithmDescriptor(run.spec.algorithm);
  nlohmann::json parameters = p;
  const std::string model = projectorModel(p);
  for (const catalog::ProjectorSlot& slot : descriptor.projectors)
    parameters[slot.field] = referenceName(slot.role, model);
  for (const char* key : {"input", "cpuThreads", "warmStartRun", "warmStart", "mask", "rois",
                          "goldenReferenceFor", "openedRecord", "run", "title"})
    parameters.erase(key);
  catalog::JobInputs inputs;
  const int warmStartRun = p.value("warmStartRun", -1);
  if (p.value("warmStart", false)) {
    if (!warmStart)
      throw ParameterError("golden reference",
                           QObject::tr("run %1 started from run %2, whose result is gone")
                               .arg(run.id)
                               .arg(warmStartRun)
                               .toStdString());
    inputs.initialVolume = std::move(warmStart);
  }
  RunSpec spec = makeCatalogRun(descriptor, std::move(projections), std::move(parameters),
                                std::move(inputs), geometry, threads, warmStartRun);
  // The run's provenance (file, geometry hash) and ROIs, so its record reads like the run's.
  if (p.contains("input") && p["input"].is_object())
    for (const auto& [key, value] : p["input"].items())
      if (!spec.parameters["input"].contains(key)) spec.parameters["input"][key] = value;
  if (p.contains("rois")) spec.parameters["rois"] = p["rois"];
  spec.parameters["goldenReferenceFor"] = run.id;
  spec.title += QObject::tr(" (reference for run %1)").arg(run.id);
  return spec;
}

// --- the comparison of a pair -------------------------------------------------------------------

CompareModel::CompareModel(QObject* parent) : QObject(parent) {
  worker_ = std::thread([this] { workerLoop(); });
}

CompareModel::~CompareModel() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
    queued_.reset();
  }
  wake_.notify_all();
  worker_.join();
}

void CompareModel::clear() {
  latestGeneration_.store(++generation_);
  {
    const std::lock_guard lock(mutex_);
    queued_.reset();
  }
  test_.reset();
  reference_.reset();
  difference_.reset();
  comparison_.reset();
  problem_.clear();
  pendingFast_ = pendingSsim_ = false;
  emit changed();
}

void CompareModel::setPair(std::shared_ptr<const Volume> test,
                           std::shared_ptr<const Volume> reference, std::vector<qa::CnrRoi> rois) {
  clear();
  test_ = std::move(test);
  reference_ = std::move(reference);
  rois_ = std::move(rois);
  if (!test_ || !reference_) return;
  if (test_->shape() != reference_->shape()) {
    problem_ = tr("A is %1 voxels, B is %2: the compare view needs two volumes of the same "
                  "shape (reconstruct both on the same grid)")
                   .arg(shapeText(*test_), shapeText(*reference_));
    emit changed();
    return;
  }
  Job job;
  job.generation = generation_;
  job.test = test_;
  job.reference = reference_;
  job.spec.histogramBins = kHistogramBins;
  job.spec.rois = rois_;
  job.spec.computeSsim = false;
  job.spec.accuracyClass = class_;
  job.spec.tolerances = tolerances_;
  pendingFast_ = pendingSsim_ = true;
  if (test_->voxelCount() < backgroundVoxels_) {
    // Small volumes: the first figures at once (tens of ms), SSIM on the worker.
    accept(compute(job));
    if (!pendingSsim_) return;
    job.firstFigures = false;
  }
  post(std::move(job));
  emit changed();
}

CompareModel::Result CompareModel::compute(const Job& job) {
  Result r;
  r.generation = job.generation;
  r.firstFigures = job.firstFigures;
  try {
    if (job.firstFigures) {
      r.comparison = qa::compareRuns(*job.test, *job.reference, job.spec);
      auto difference = differenceVolume(*job.test, *job.reference);
      r.halfWindow = defaultDifferenceHalfWindow(*difference);
      r.difference = std::move(difference);
    } else {
      metrics::CompareOptions options;
      options.computeSsim = true;
      r.ssim = metrics::compareVolumes(*job.test, *job.reference, job.spec.region, options).ssim;
    }
  } catch (const std::exception& e) {
    r.error = QString::fromStdString(e.what());
  }
  return r;
}

void CompareModel::post(Job job) {
  {
    const std::lock_guard lock(mutex_);
    queued_ = std::move(job);
  }
  wake_.notify_all();
}

void CompareModel::workerLoop() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || queued_.has_value(); });
      if (stop_) return;
      job = std::move(*queued_);
      queued_.reset();
    }
    if (job.generation != latestGeneration_.load()) continue;  // cleared or replaced meanwhile
    Result result = compute(job);
    bool superseded = false;
    {
      const std::lock_guard lock(mutex_);
      if (stop_) return;
      superseded = queued_.has_value();
      // The first figures done: SSIM next, unless a newer pair is waiting.
      if (job.firstFigures && result.error.isEmpty() && !superseded) {
        job.firstFigures = false;
        queued_ = std::move(job);
      }
    }
    // Posted to the GUI thread; dropped with the model if it is destroyed first.
    QMetaObject::invokeMethod(
        this, [this, result = std::move(result)] { accept(result); }, Qt::QueuedConnection);
  }
}

void CompareModel::accept(const Result& result) {
  if (result.generation != generation_) return;  // an older pair's
  if (!result.error.isEmpty()) {
    problem_ = result.error;
    comparison_.reset();
    difference_.reset();
    pendingFast_ = pendingSsim_ = false;
    emit changed();
    return;
  }
  if (result.firstFigures) {
    comparison_ = result.comparison;
    difference_ = result.difference;
    defaultHalfWindow_ = result.halfWindow;
    pendingFast_ = false;
  } else {
    if (comparison_) comparison_->metrics.ssim = result.ssim;
    pendingSsim_ = false;
  }
  emit changed();
}

void CompareModel::setAccuracyClass(qa::AccuracyClass c) {
  if (c == class_) return;
  class_ = c;
  emit changed();
}

void CompareModel::setTolerance(qa::AccuracyClass c, const qa::Tolerance& tolerance) {
  tolerances_.set(c, tolerance);
  emit changed();
}

void CompareModel::setTolerances(const qa::ToleranceTable& table) {
  tolerances_ = table;
  emit changed();
}

void CompareModel::setInformative(const QString& why) {
  if (why == informative_) return;
  informative_ = why;
  emit changed();
}

std::optional<CompareVerdict> CompareModel::verdict() const {
  if (!comparison_) return std::nullopt;
  if (!informative_.isEmpty())
    return CompareVerdict{false, QStringLiteral("informative (%1)").arg(informative_), true};
  return judgeComparison(*comparison_, class_, tolerances_[class_]);
}

bool CompareModel::waitUntilDone(int timeoutMs) {
  QElapsedTimer clock;
  clock.start();
  while (busy()) {
    if (clock.elapsed() > timeoutMs) return false;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(2);
  }
  return true;
}

// --- the exported report ------------------------------------------------------------------------

QString compareReportMarkdown(const CompareReportInfo& info, const qa::RunComparison& comparison,
                              qa::AccuracyClass c, const qa::Tolerance& tolerance,
                              const QString& informative) {
  const metrics::ComparisonMetrics& m = comparison.metrics;
  const bool judged = informative.isEmpty();
  const CompareVerdict verdict =
      judged ? judgeComparison(comparison, c, tolerance)
             : CompareVerdict{false, QStringLiteral("informative (%1)").arg(informative), true};
  const auto escape = [](QString text) { return text.replace(QLatin1Char('|'), "\\|"); };
  QString md;
  md += QStringLiteral("# Run comparison: A against B\n\n");
  md += QStringLiteral("| | |\n|---|---|\n");
  md += QStringLiteral("| A (test) | %1 |\n").arg(escape(info.testName));
  if (!info.testDetails.isEmpty()) md += QStringLiteral("| | %1 |\n").arg(escape(info.testDetails));
  md += QStringLiteral("| B (reference) | %1 |\n").arg(escape(info.referenceName));
  if (!info.referenceDetails.isEmpty())
    md += QStringLiteral("| | %1 |\n").arg(escape(info.referenceDetails));
  md += QStringLiteral("| voxels compared | %1 (whole volume) |\n").arg(m.voxelCount);
  md += QStringLiteral("| B's range | %1 .. %2 |\n")
            .arg(figure(m.referenceMin, 6), figure(m.referenceMax, 6));
  md += QStringLiteral("| accuracy class of A | %1 |\n").arg(accuracyClassLabel(c));
  if (judged)
    md += QStringLiteral("| verdict | **%1** %2 |\n\n")
              .arg(verdict.passed ? QStringLiteral("PASS") : QStringLiteral("FAIL"),
                   escape(verdict.text));
  else
    md += QStringLiteral("| verdict | %1: no pass or fail, the metrics are for information |\n\n")
              .arg(escape(verdict.text));
  md += QStringLiteral(
      "## Metrics\n\nd = A - B; NRMSE and max-abs relative are over B's range; "
      "SSIM is the mean per-slice 2-D SSIM.\n\n");
  md += QStringLiteral("| figure | value | limit | result |\n|---|---|---|---|\n");
  const auto row = [&md](const QString& name, const QString& value, const QString& limit = {},
                         const QString& result = {}) {
    md += QStringLiteral("| %1 | %2 | %3 | %4 |\n").arg(name, value, limit, result);
  };
  row(QStringLiteral("max \\|d\\|"), figure(m.maxAbsDifference));
  const auto result = [judged](bool ok) {
    return !judged ? QString() : ok ? QStringLiteral("pass") : QStringLiteral("**fail**");
  };
  const auto limit = [judged](double value) {
    return judged ? QStringLiteral("<= %1").arg(figure(value)) : QString();
  };
  row(QStringLiteral("NRMSE"), figure(m.nrmse), limit(tolerance.maxNrmse),
      result(m.nrmse <= tolerance.maxNrmse));
  row(QStringLiteral("max \\|d\\| / range(B)"), figure(comparison.maxAbsRelative),
      limit(tolerance.maxAbsRelative),
      result(comparison.maxAbsRelative <= tolerance.maxAbsRelative));
  row(QStringLiteral("PSNR"), QStringLiteral("%1 dB").arg(figure(m.psnrDb)));
  row(QStringLiteral("SSIM"), m.ssim ? figure(*m.ssim, 6) : QStringLiteral("not computed"));
  row(QStringLiteral("mean bias (mean d)"), figure(m.meanDifference));
  row(QStringLiteral("RMSE"), figure(m.rmse));
  if (m.nonFiniteCount > 0)
    row(QStringLiteral("non-finite differences"), QString::number(m.nonFiniteCount), {},
        result(false));
  if (!comparison.cnr.empty()) {
    md += QStringLiteral(
        "\n## Contrast-to-noise of the saved ROIs\n\n"
        "| ROI | CNR in A | CNR in B |\n|---|---|---|\n");
    for (const qa::RoiCnr& r : comparison.cnr)
      md += QStringLiteral("| %1 | %2 | %3 |\n")
                .arg(escape(QString::fromStdString(r.name)), figure(r.cnrTest),
                     figure(r.cnrReference));
  }
  const auto& counts = comparison.histogram.counts;
  md += QStringLiteral(
            "\n## Difference histogram\n\n%1 bins over +-%2, %3 voxels; the fullest "
            "bin holds %4.\n")
            .arg(counts.size())
            .arg(figure(comparison.histogram.halfRange))
            .arg(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}))
            .arg(counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end()));
  if (!info.pictures.empty()) {
    md += QStringLiteral("\n## Pictures\n\n");
    if (!info.viewText.isEmpty()) md += info.viewText + QStringLiteral("\n\n");
    for (const auto& [file, caption] : info.pictures)
      md += QStringLiteral("![%1](%2)\n\n").arg(caption, file);
  }
  md +=
      QStringLiteral("\nWritten by Tomo Workbench %1 on %2; comparison.json holds every figure.\n")
          .arg(QStringLiteral(TOMOWB_VERSION), QDateTime::currentDateTime().toString(Qt::ISODate));
  return md;
}

}  // namespace tomowb::gui
