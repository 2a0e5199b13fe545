// FdkRun: see the header.
#include "gui/core/FdkRun.h"

#include <omp.h>

#include <map>
#include <string>
#include <thread>
#include <vector>

#include "recon/core/Error.h"
#include "recon/iterative/IterativeJson.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {

nlohmann::json fdkParamsToJson(const fdk::FdkParams& params) {
  const auto& g = params.volume;
  return {
      {"volume",
       {{"shape", {g.shape.nx, g.shape.ny, g.shape.nz}},
        {"voxelSizeMm", {g.voxelSizeMm.x(), g.voxelSizeMm.y(), g.voxelSizeMm.z()}},
        {"originMm", {g.originMm.x(), g.originMm.y(), g.originMm.z()}}}},
      {"filter",
       {{"window", std::string(fdk::toString(params.filter.window))},
        {"cutoff", params.filter.cutoff}}},
      {"redundancy", std::string(fdk::toString(params.redundancy))},
      {"fieldOfViewMask", params.fieldOfViewMask},
      {"allowIncomplete", params.allowIncomplete},
      {"variant", params.variant},
      {"gpu", fdk::toJson(params.gpu)},
  };
}

fdk::FdkParams fdkParamsFromJson(const nlohmann::json& json) {
  try {
    fdk::FdkParams p;
    const auto& v = json.at("volume");
    const auto& shape = v.at("shape");
    p.volume.shape = {shape.at(0).get<std::int64_t>(), shape.at(1).get<std::int64_t>(),
                      shape.at(2).get<std::int64_t>()};
    const auto& size = v.at("voxelSizeMm");
    p.volume.voxelSizeMm = {size.at(0).get<double>(), size.at(1).get<double>(),
                            size.at(2).get<double>()};
    const auto& origin = v.at("originMm");
    p.volume.originMm = {origin.at(0).get<double>(), origin.at(1).get<double>(),
                         origin.at(2).get<double>()};
    if (json.contains("filter")) {
      p.filter.window = fdk::rampWindowFromString(json["filter"].value("window", "ram-lak"));
      p.filter.cutoff = json["filter"].value("cutoff", 1.0);
    }
    p.redundancy = fdk::redundancyModeFromString(json.value("redundancy", "auto"));
    p.fieldOfViewMask = json.value("fieldOfViewMask", false);
    p.allowIncomplete = json.value("allowIncomplete", false);
    p.variant = json.value("variant", "fdk.bp.cpu");
    if (json.contains("gpu")) p.gpu = fdk::gpuRunOptionsFromJson(json["gpu"]);
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw ParameterError("FDK parameters", e.what());
  }
}

RunSpec makeFdkRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry, int cpuThreads) {
  if (!projections)
    throw ParameterError("projections", "FDK needs projections: open a file or the demo");
  // An edited geometry becomes a shallow re-labelling: the pixels are shared when it is the
  // projections' own, copied once otherwise (the worker must not see later edits).
  std::shared_ptr<const ProjectionStack> input = projections;
  if (geometry != nullptr && !(*geometry == projections->geometry())) {
    auto relabelled = std::make_shared<ProjectionStack>(*projections);
    relabelled->geometry() = *geometry;
    input = std::move(relabelled);
  }
  const auto& s = params.volume.shape;
  RunSpec spec;
  spec.algorithm = QStringLiteral("fdk");
  spec.title = QStringLiteral("FDK %1x%2x%3 %4")
                   .arg(s.nx)
                   .arg(s.ny)
                   .arg(s.nz)
                   .arg(QString::fromStdString(params.variant));
  spec.parameters = fdkParamsToJson(params);
  spec.parameters["input"] = {
      {"views", input->viewCount()}, {"rows", input->rows()}, {"cols", input->cols()}};
  spec.parameters["cpuThreads"] = cpuThreads;
  spec.execute = [input, params, cpuThreads](JobContext& context, nlohmann::json& report) {
    // The thread count is per calling thread in OpenMP: this sets it for the run's worker only.
    if (cpuThreads > 0) omp_set_num_threads(cpuThreads);
    fdk::FdkJob job(*input, params);
    job.run(context);
    const fdk::FdkReport& r = job.report();
    report = {
        {"variant", r.variant},
        {"kernel", r.kernel},
        {"device", r.device},
        {"plan", r.plan},
        {"weighting", r.weighting},
        {"warnings", r.warnings},
        {"filterSeconds", r.filterSeconds},
        {"backprojectSeconds", r.backprojectSeconds},
        {"voxelUpdates", r.voxelUpdates},
        {"backprojectGups", r.backprojectGups()},
        {"uploadSeconds", r.uploadSeconds},
        {"uploadBytes", r.uploadBytes},
        {"downloadSeconds", r.downloadSeconds},
        {"downloadBytes", r.downloadBytes},
        {"totalSeconds", r.totalSeconds},
        {"hostThreads", std::thread::hardware_concurrency()},
        {"cpuThreadsUsed", omp_get_max_threads()},
    };
    return std::make_shared<Volume>(std::move(job.result()));
  };
  return spec;
}

}  // namespace tomowb::gui
