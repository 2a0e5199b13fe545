// The algorithms of this build as catalogue descriptors (AlgorithmCatalog.h): filtered
// backprojection (FDK for cone beams, FBP for parallel beams; WBP, the same on the tomogram grid of
// a tilt series) and the iterative methods over a projector pair (SIRT, OS-SIRT, SART, CGLS; PWLS
// for CT). Each file defines its descriptors and their parameter codecs; registerAlgorithms.cpp
// lists them.
#pragma once

#include <nlohmann/json.hpp>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/fdk/Fdk.h"
#include "recon/iterative/IterativeReconstruction.h"

namespace tomowb::catalog {

AlgorithmDescriptor fdkAlgorithm();  // "fdk"
AlgorithmDescriptor wbpAlgorithm();  // "wbp"
// "sirt", "os-sirt", "sart", "cgls"
AlgorithmDescriptor iterativeAlgorithm(iterative::IterativeMethod method);
AlgorithmDescriptor pwlsAlgorithm();  // "pwls" (PwlsAlgorithm.cpp)

// FDK / WBP parameters as JSON ({"volume", "filter": {"window", "cutoff"}, "redundancy",
// "fieldOfViewMask", "allowIncomplete", "variant", "gpu"}), and back from validated JSON.
nlohmann::json fdkParamsToJson(const fdk::FdkParams& params);
fdk::FdkParams fdkParamsFromJson(const nlohmann::json& json);  // throws ParameterError
nlohmann::json fdkReportToJson(const fdk::FdkReport& report);
// "upload 1.20 GiB in 0.10 s (12.9 GB/s), download 256 MiB in 0.02 s (13.4 GB/s)", or empty when
// the run moved nothing between host and device (a CPU run).
std::string transferSummary(const fdk::FdkReport& report);

// Iterative parameters as JSON ({"method", "volume", "iterations", "relaxation", "subsets",
// "lowerBound", "upperBound", "stopRelativeChange", "forwardVariant", "backVariant",
// "publishEvery", "gpu", "warmStart", "mask"}); the initial volume and the mask are volumes, not
// parameters, and come back empty.
nlohmann::json iterativeParamsToJson(const iterative::IterativeParams& params);
iterative::IterativeParams iterativeParamsFromJson(const nlohmann::json& json);  // ParameterError

}  // namespace tomowb::catalog
