// IterativeRun: see the header.
#include "gui/core/IterativeRun.h"

#include <omp.h>

#include <QRegularExpression>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "gui/core/FdkRun.h"
#include "recon/core/Error.h"
#include "recon/iterative/IterativeJson.h"

namespace tomowb::gui {

namespace {

nlohmann::json gridToJson(const fdk::VolumeGrid& g) {
  return {{"shape", {g.shape.nx, g.shape.ny, g.shape.nz}},
          {"voxelSizeMm", {g.voxelSizeMm.x(), g.voxelSizeMm.y(), g.voxelSizeMm.z()}},
          {"originMm", {g.originMm.x(), g.originMm.y(), g.originMm.z()}}};
}

fdk::VolumeGrid gridFromJson(const nlohmann::json& v) {
  fdk::VolumeGrid g;
  const auto& shape = v.at("shape");
  g.shape = {shape.at(0).get<std::int64_t>(), shape.at(1).get<std::int64_t>(),
             shape.at(2).get<std::int64_t>()};
  const auto& size = v.at("voxelSizeMm");
  g.voxelSizeMm = {size.at(0).get<double>(), size.at(1).get<double>(), size.at(2).get<double>()};
  const auto& origin = v.at("originMm");
  g.originMm = {origin.at(0).get<double>(), origin.at(1).get<double>(), origin.at(2).get<double>()};
  return g;
}

// The projections the run sees: the edited geometry (if any) on the shared pixels, copied once so
// that later edits never reach the worker.
std::shared_ptr<const ProjectionStack> relabelled(
    std::shared_ptr<const ProjectionStack> projections, const Geometry* geometry) {
  if (geometry == nullptr || *geometry == projections->geometry()) return projections;
  auto copy = std::make_shared<ProjectionStack>(*projections);
  copy->geometry() = *geometry;
  return copy;
}

}  // namespace

QString iterativeMethodLabel(iterative::IterativeMethod method) {
  switch (method) {
    case iterative::IterativeMethod::Sirt:
      return QStringLiteral("SIRT");
    case iterative::IterativeMethod::OsSirt:
      return QStringLiteral("OS-SIRT");
    case iterative::IterativeMethod::Sart:
      return QStringLiteral("SART");
    case iterative::IterativeMethod::Cgls:
      return QStringLiteral("CGLS");
  }
  return QStringLiteral("?");
}

nlohmann::json iterativeParamsToJson(const iterative::IterativeParams& p) {
  nlohmann::json j = {
      {"method", iterative::toString(p.method)},
      {"volume", gridToJson(p.volume)},
      {"iterations", p.iterations},
      {"relaxation", p.relaxation},
      {"subsets", p.subsets},
      {"lowerBound", p.lowerBound ? nlohmann::json(*p.lowerBound) : nlohmann::json()},
      {"upperBound", p.upperBound ? nlohmann::json(*p.upperBound) : nlohmann::json()},
      {"stopRelativeChange", p.stopRelativeChange},
      {"forwardVariant", p.forwardVariant},
      {"backVariant", p.backVariant},
      {"publishEvery", p.publishEvery},
      {"gpu", fdk::toJson(p.gpu)},
      {"warmStart", p.initialVolume != nullptr},
      {"mask", p.mask != nullptr},
  };
  return j;
}

iterative::IterativeParams iterativeParamsFromJson(const nlohmann::json& json) {
  try {
    iterative::IterativeParams p;
    p.method = iterative::iterativeMethodFromString(json.at("method").get<std::string>());
    p.volume = gridFromJson(json.at("volume"));
    p.iterations = json.value("iterations", p.iterations);
    p.relaxation = json.value("relaxation", p.relaxation);
    p.subsets = json.value("subsets", p.subsets);
    if (json.contains("lowerBound") && !json["lowerBound"].is_null())
      p.lowerBound = json["lowerBound"].get<double>();
    if (json.contains("upperBound") && !json["upperBound"].is_null())
      p.upperBound = json["upperBound"].get<double>();
    p.stopRelativeChange = json.value("stopRelativeChange", p.stopRelativeChange);
    p.forwardVariant = json.value("forwardVariant", p.forwardVariant);
    p.backVariant = json.value("backVariant", p.backVariant);
    p.publishEvery = json.value("publishEvery", p.publishEvery);
    if (json.contains("gpu")) p.gpu = fdk::gpuRunOptionsFromJson(json["gpu"]);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw ParameterError("iterative parameters", e.what());
  }
}

RunSpec makeIterativeRun(std::shared_ptr<const ProjectionStack> projections,
                         iterative::IterativeParams params, const Geometry* geometry,
                         int cpuThreads, int warmStartRunId) {
  if (!projections)
    throw ParameterError("projections",
                         "an iterative reconstruction needs projections: open a file or the demo");
  std::shared_ptr<const ProjectionStack> input = relabelled(std::move(projections), geometry);
  const auto& s = params.volume.shape;
  RunSpec spec;
  spec.algorithm = QString::fromStdString(iterative::toString(params.method));
  spec.title = QStringLiteral("%1 %2x%3x%4 %5 + %6")
                   .arg(iterativeMethodLabel(params.method))
                   .arg(s.nx)
                   .arg(s.ny)
                   .arg(s.nz)
                   .arg(QString::fromStdString(params.forwardVariant),
                        QString::fromStdString(params.backVariant));
  spec.parameters = iterativeParamsToJson(params);
  spec.parameters["input"] = {
      {"views", input->viewCount()}, {"rows", input->rows()}, {"cols", input->cols()}};
  spec.parameters["cpuThreads"] = cpuThreads;
  if (warmStartRunId >= 0) spec.parameters["warmStartRun"] = warmStartRunId;
  spec.execute = [input, params = std::move(params), cpuThreads](JobContext& context,
                                                                 nlohmann::json& report) {
    // The thread count is per calling thread in OpenMP: this sets it for the run's worker only.
    if (cpuThreads > 0) omp_set_num_threads(cpuThreads);
    iterative::IterativeJob job(*input, params);
    job.run(context);
    report = iterative::toJson(job.report());
    report["hostThreads"] = std::thread::hardware_concurrency();
    report["cpuThreadsUsed"] = omp_get_max_threads();
    return std::make_shared<Volume>(std::move(job.result()));
  };
  return spec;
}

RunSpec makeWbpRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry, int cpuThreads) {
  if (!projections)
    throw ParameterError("projections", "WBP needs a tilt series: open a file or the ET demo");
  const auto& s = params.volume.shape;
  const QString variant = QString::fromStdString(params.variant);
  RunSpec spec = makeFdkRun(std::move(projections), std::move(params), geometry, cpuThreads);
  spec.algorithm = QStringLiteral("wbp");
  spec.title = QStringLiteral("WBP %1x%2x%3 %4").arg(s.nx).arg(s.ny).arg(s.nz).arg(variant);
  spec.parameters["algorithm"] = "wbp";
  return spec;
}

int iterationOfPreviewLabel(const QString& label) {
  static const QRegularExpression pattern(QStringLiteral("\\biteration (\\d+)\\b"));
  const QRegularExpressionMatch match = pattern.match(label);
  return match.hasMatch() ? match.captured(1).toInt() : -1;
}

}  // namespace tomowb::gui
