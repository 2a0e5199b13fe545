// FdkRun: see the header.
#include "gui/core/FdkRun.h"

#include "gui/core/CatalogRun.h"
#include "recon/catalog/BuiltinAlgorithms.h"

namespace tomowb::gui {

nlohmann::json fdkParamsToJson(const fdk::FdkParams& params) {
  return catalog::fdkParamsToJson(params);
}

fdk::FdkParams fdkParamsFromJson(const nlohmann::json& json) {
  return catalog::fdkParamsFromJson(json);
}

RunSpec makeFdkRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry, int cpuThreads) {
  return makeCatalogRun(catalog::AlgorithmCatalog::builtins().require("fdk"),
                        std::move(projections), catalog::fdkParamsToJson(params), {}, geometry,
                        cpuThreads);
}

}  // namespace tomowb::gui
