// PWLS in the catalogue (recon/catalog/PwlsAlgorithm.cpp): its descriptor (CT, field of view, a
// matched pair by default), the FDK start through the "fdk" descriptor, a geometry FDK refuses
// named as the start's problem, the weights and reference inputs, the summary's cost and RMSE,
// the memory estimate.
#include <gtest/gtest.h>

#include <numbers>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/fdk/Fdk.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"
#include "recon/phantom/Voxelise.h"

namespace tomowb::catalog {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

ProjectionStack coneScan(double rangeDeg = 360) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 200;
  p.sourceToDetectorMm = 400;
  p.detector.cols = 24;
  p.detector.rows = 16;
  p.detector.pitchUMm = p.detector.pitchVMm = 2;
  p.anglesRad = rangeDeg >= 360 ? fullScanAnglesRad(24) : arcAnglesRad(24, rangeDeg * kDeg);
  return phantom::projectPhantom(phantom::modifiedSheppLogan3d(14), circularConeBeam(p));
}

const VolumeGrid kGrid = VolumeGrid::centred({16, 16, 10}, {1, 1, 1});

std::string parameterError(const std::function<void()>& f) {
  try {
    f();
  } catch (const ParameterError& e) {
    return e.what();
  }
  return "";
}

TEST(PwlsAlgorithm, DescribesPwlsForCtWithAMatchedPairByDefault) {
  const AlgorithmDescriptor& d = AlgorithmCatalog::builtins().require("pwls");
  EXPECT_EQ(d.label, "PWLS");
  EXPECT_EQ(d.modalities, std::vector<Modality>{Modality::TransmissionCt});
  EXPECT_EQ(d.gridPolicy, GridPolicy::IlluminatedVolume);
  EXPECT_TRUE(d.iterative && d.acceptsWeights && d.acceptsReference && d.acceptsMask);
  for (const char* field :
       {"iterations", "subsets", "beta", "delta", "momentum", "lowerBound", "init", "stopChange"})
    EXPECT_NE(d.parameter(field), nullptr) << field;
  EXPECT_EQ(d.parameter("init")->defaultValue, "fdk");
  const nlohmann::json p = d.validate({{"volume", gridToJson(kGrid)}});
  EXPECT_EQ(p["method"], "pwls");
  const KernelVariant& back =
      VariantRegistry::builtins().require(p["backVariant"].get<std::string>());
  EXPECT_EQ(back.adjointOf, p["forwardVariant"].get<std::string>());
  EXPECT_NE(parameterError([&] {
              d.validate({{"volume", gridToJson(kGrid)}, {"delta", 0}});
            }).find("delta"),
            std::string::npos);
}

TEST(PwlsAlgorithm, StartsFromFdkAndReportsCostAndRmse) {
  const AlgorithmDescriptor& d = AlgorithmCatalog::builtins().require("pwls");
  const ProjectionStack scan = coneScan();
  nlohmann::json p = d.validate({{"volume", gridToJson(kGrid)},
                                 {"forwardVariant", "sf.fp.cpu-tr"},
                                 {"backVariant", "sf.bp.cpu-tr"},
                                 {"iterations", 2},
                                 {"subsets", 4},
                                 {"beta", 0.5}});
  JobInputs inputs;
  inputs.reference = std::make_shared<const Volume>(phantom::voxelisePhantom(
      phantom::modifiedSheppLogan3d(14), kGrid.shape, kGrid.voxelSizeMm, kGrid.originMm, 2));
  std::unique_ptr<ReconstructionJob> job = d.makeJob(scan, p, inputs);
  JobContext context;
  job->run(context);
  const RunReport& r = job->report();
  ASSERT_EQ(r.iterations.size(), 2u);
  EXPECT_NE(r.summary.front().find("from FDK"), std::string::npos) << r.summary.front();
  EXPECT_NE(r.summary[1].find("cost"), std::string::npos) << r.summary[1];
  EXPECT_NE(r.summary[1].find("RMSE"), std::string::npos) << r.summary[1];
  EXPECT_TRUE(r.metrics.contains("finalCost"));
  EXPECT_TRUE(r.metrics.contains("finalRmse"));
  EXPECT_GT(r.timings["initSeconds"].get<double>(), 0.0);
  EXPECT_EQ(job->result().shape(), kGrid.shape);

  // A start volume and init fdk at once: refused, naming init.
  inputs.initialVolume = std::make_shared<const Volume>(kGrid.makeVolume());
  job = d.makeJob(scan, p, inputs);
  EXPECT_NE(parameterError([&] { job->run(context); }).find("'init'"), std::string::npos);
}

TEST(PwlsAlgorithm, AGeometryFdkRefusesIsNamedAsTheStartsProblem) {
  const AlgorithmDescriptor& d = AlgorithmCatalog::builtins().require("pwls");
  const ProjectionStack arc = coneScan(100);  // far less than a short scan: FDK refuses it
  nlohmann::json p = d.validate({{"volume", gridToJson(kGrid)}, {"iterations", 1}});
  std::unique_ptr<ReconstructionJob> job = d.makeJob(arc, p, {});
  JobContext context;
  const std::string message = parameterError([&] { job->run(context); });
  EXPECT_NE(message.find("FDK cannot start PWLS"), std::string::npos) << message;
  EXPECT_NE(message.find("start from zero"), std::string::npos) << message;
  // From zero it runs.
  p["init"] = "zero";
  job = d.makeJob(arc, d.validate(p), {});
  EXPECT_NO_THROW(job->run(context));
}

TEST(PwlsAlgorithm, MemoryEstimateCountsTheRulesArraysAndTheFdkStart) {
  const AlgorithmDescriptor& d = AlgorithmCatalog::builtins().require("pwls");
  const ProjectionStack scan = coneScan();
  const std::uint64_t volume = std::uint64_t(kGrid.shape.voxelCount()) * 4;
  const auto bytes = [&](nlohmann::json p) {
    p["volume"] = gridToJson(kGrid);
    return d.hostMemoryBytes(scan, d.validate(p));
  };
  const std::uint64_t plain = bytes({{"init", "zero"}, {"beta", 0}});
  EXPECT_EQ(bytes({{"init", "zero"}, {"beta", 1}}), plain + 2 * volume);
  EXPECT_EQ(bytes({{"init", "zero"}, {"beta", 0}, {"momentum", true}}), plain + volume);
  EXPECT_GE(bytes({{"init", "fdk"}, {"beta", 0}}), plain + volume);
}

}  // namespace
}  // namespace tomowb::catalog
