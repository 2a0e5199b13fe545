// IterativeRun: see the header.
#include "gui/core/IterativeRun.h"

#include <QRegularExpression>
#include <string>

#include "gui/core/CatalogRun.h"
#include "gui/core/FdkRun.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"

namespace tomowb::gui {

QString iterativeMethodLabel(iterative::IterativeMethod method) {
  return QString::fromStdString(
      catalog::AlgorithmCatalog::builtins().require(iterative::toString(method)).label);
}

nlohmann::json iterativeParamsToJson(const iterative::IterativeParams& params) {
  return catalog::iterativeParamsToJson(params);
}

iterative::IterativeParams iterativeParamsFromJson(const nlohmann::json& json) {
  return catalog::iterativeParamsFromJson(json);
}

RunSpec makeIterativeRun(std::shared_ptr<const ProjectionStack> projections,
                         iterative::IterativeParams params, const Geometry* geometry,
                         int cpuThreads, int warmStartRunId) {
  catalog::JobInputs inputs{params.initialVolume, params.mask};
  return makeCatalogRun(
      catalog::AlgorithmCatalog::builtins().require(iterative::toString(params.method)),
      std::move(projections), catalog::iterativeParamsToJson(params), std::move(inputs), geometry,
      cpuThreads, warmStartRunId);
}

RunSpec makeWbpRun(std::shared_ptr<const ProjectionStack> projections, fdk::FdkParams params,
                   const Geometry* geometry, int cpuThreads) {
  return makeCatalogRun(catalog::AlgorithmCatalog::builtins().require("wbp"),
                        std::move(projections), catalog::fdkParamsToJson(params), {}, geometry,
                        cpuThreads);
}

int iterationOfPreviewLabel(const QString& label) {
  static const QRegularExpression pattern(QStringLiteral("\\biteration (\\d+)\\b"));
  const QRegularExpressionMatch match = pattern.match(label);
  return match.hasMatch() ? match.captured(1).toInt() : -1;
}

}  // namespace tomowb::gui
