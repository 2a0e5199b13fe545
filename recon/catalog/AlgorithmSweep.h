// Variant sweeps by algorithm (qa/VariantSweep.h): every registered variant of the projector roles
// an algorithm's descriptor accepts, on its parameters. The CLI's `qa sweep --algorithm ID` and the
// window's sweep dialog ask here, so an algorithm the catalogue gains is swept without an edit.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/qa/VariantSweep.h"

namespace tomowb::catalog {

// Why the algorithm cannot be swept (empty: it can): it uses no registered variants.
std::string whyNotSweepable(const AlgorithmDescriptor& descriptor);

// Sweeps the variants of the descriptor's roles: FDK backprojectors one by one, projector pairs
// (forward projectors with the default backprojector of their device and back) on the iterative
// parameters. `parameters` are validated first. Throws ParameterError for an algorithm
// whyNotSweepable refuses.
qa::SweepResult sweepAlgorithm(const AlgorithmDescriptor& descriptor,
                               const ProjectionStack& projections, const nlohmann::json& parameters,
                               const qa::SweepOptions& options, JobContext& context);

}  // namespace tomowb::catalog
