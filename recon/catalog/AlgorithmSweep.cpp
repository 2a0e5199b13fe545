// AlgorithmSweep: see the header.
#include "recon/catalog/AlgorithmSweep.h"

#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"

namespace tomowb::catalog {

std::string whyNotSweepable(const AlgorithmDescriptor& d) {
  if (d.accepts(VariantRole::FdkBackprojector)) return {};
  if (d.accepts(VariantRole::ForwardProjector) && d.accepts(VariantRole::Backprojector) &&
      d.iterative)
    return {};
  return d.label + " runs on no registered kernel variants: there is nothing to sweep";
}

qa::SweepResult sweepAlgorithm(const AlgorithmDescriptor& d, const ProjectionStack& projections,
                               const nlohmann::json& parameters, const qa::SweepOptions& options,
                               JobContext& context) {
  if (const std::string why = whyNotSweepable(d); !why.empty())
    throw ParameterError("algorithm", why);
  const nlohmann::json valid = d.validate(parameters);
  if (d.accepts(VariantRole::FdkBackprojector))
    return qa::sweepFdk(projections, fdkParamsFromJson(valid), options, context);
  return qa::sweepSirt(projections, iterativeParamsFromJson(valid), options, context);
}

}  // namespace tomowb::catalog
