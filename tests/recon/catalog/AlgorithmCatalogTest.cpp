#include <gtest/gtest.h>

#include <cstring>
#include <numbers>
#include <set>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/catalog/AlgorithmSweep.h"
#include "recon/catalog/BuiltinAlgorithms.h"
#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/phantom/AnalyticProjector.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::catalog {
namespace {

constexpr double kDeg = std::numbers::pi / 180.0;

// The message of the ParameterError `f` throws ("" when it throws none).
template <typename F>
std::string parameterError(F&& f) {
  try {
    f();
  } catch (const ParameterError& e) {
    return e.what();
  }
  return "";
}

bool sameVoxels(const Volume& a, const Volume& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.voxels().data(), b.voxels().data(), a.voxels().size() * sizeof(float)) == 0;
}

ProjectionStack smallConeScan() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 200;
  p.sourceToDetectorMm = 400;
  p.detector.cols = 24;
  p.detector.rows = 20;
  p.detector.pitchUMm = p.detector.pitchVMm = 4;
  p.anglesRad = fullScanAnglesRad(36);
  return phantom::projectPhantom(phantom::modifiedSheppLogan3d(30), circularConeBeam(p));
}

ProjectionStack smallTiltSeries() {
  TiltSeriesParams p;
  p.cols = 24;
  p.rows = 4;
  p.pixelSizeMm = 1;
  p.tiltAnglesRad = arcAnglesRad(21, 120 * kDeg, -60 * kDeg);
  return phantom::projectPhantom(phantom::etSpecimenPhantom(18, 6, 4), tiltSeries(p));
}

TEST(AlgorithmCatalog, BuiltinsDescribeEveryAlgorithmOnce) {
  const AlgorithmCatalog& c = AlgorithmCatalog::builtins();
  EXPECT_EQ(c.idList(), "fdk, wbp, sirt, os-sirt, sart, cgls, pwls");
  std::set<std::string> options;
  for (const AlgorithmDescriptor& d : c.all()) {
    EXPECT_FALSE(d.label.empty()) << d.id;
    EXPECT_FALSE(d.summary.empty()) << d.id;
    EXPECT_FALSE(d.modalities.empty()) << d.id;
    EXPECT_FALSE(d.projectors.empty()) << d.id;
    EXPECT_TRUE(d.hostMemoryBytes) << d.id;
    for (const ParameterSpec& p : d.parameters) {
      EXPECT_EQ(p.option.rfind("--", 0), 0u) << d.id << " " << p.field;
      EXPECT_NO_THROW(p.check(p.defaultValue)) << d.id << " " << p.field;
    }
  }
  EXPECT_TRUE(c.require("sirt").iterative);
  EXPECT_FALSE(c.require("fdk").iterative);
  EXPECT_EQ(c.require("os-sirt").label, "OS-SIRT");
  EXPECT_EQ(c.require("sart").parameter("relaxation")->defaultValue, 0.5);
  EXPECT_EQ(c.require("cgls").parameter("relaxation"), nullptr);
  EXPECT_EQ(c.require("os-sirt").parameter("subsets")->defaultValue, 5);
  const std::string unknown = parameterError([&] { c.require("em", "--algorithm"); });
  EXPECT_NE(unknown.find("--algorithm"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("fdk, wbp"), std::string::npos) << unknown;
}

TEST(AlgorithmCatalog, AddRefusesDuplicatesAndIncompleteDescriptors) {
  AlgorithmCatalog c;
  c.add(fdkAlgorithm());
  EXPECT_THROW(c.add(fdkAlgorithm()), std::logic_error);
  AlgorithmDescriptor empty;
  empty.id = "nothing";
  EXPECT_THROW(c.add(empty), std::logic_error);
  EXPECT_EQ(c.ids(), std::vector<std::string>{"fdk"});
}

TEST(AlgorithmCatalog, ValidateFillsDefaultsAndNamesTheBadField) {
  const AlgorithmDescriptor& sirt = AlgorithmCatalog::builtins().require("sirt");
  const nlohmann::json grid = gridToJson(VolumeGrid::centred({8, 4, 2}, {1, 1, 1}));
  const nlohmann::json p = sirt.validate({{"volume", grid}});
  EXPECT_EQ(p["iterations"], 50);
  EXPECT_EQ(p["relaxation"], 1.0);
  EXPECT_TRUE(p["lowerBound"].is_null());
  EXPECT_EQ(p["method"], "sirt");
  EXPECT_EQ(p["forwardVariant"], "et.fp.cpu");
  EXPECT_EQ(p["backVariant"], "et.bp.cpu-voxel");
  EXPECT_EQ(sirt.validate({{"volume", grid}, {"iterations", 7.0}})["iterations"], 7);

  const auto refused = [&](const AlgorithmDescriptor& d, nlohmann::json j) {
    j["volume"] = grid;
    return parameterError([&] { d.validate(j); });
  };
  std::string why = refused(sirt, {{"iterations", 0}});
  EXPECT_NE(why.find("iterations"), std::string::npos) << why;
  EXPECT_NE(why.find("an integer from 1 to 1000000"), std::string::npos) << why;
  why = refused(sirt, {{"relaxation", 2.0}});
  EXPECT_NE(why.find("relaxation"), std::string::npos) << why;
  why = refused(sirt, {{"iterations", "many"}});
  EXPECT_NE(why.find("iterations"), std::string::npos) << why;
  why = refused(sirt, {{"lowerBound", 2.0}, {"upperBound", 1.0}});
  EXPECT_NE(why.find("lowerBound"), std::string::npos) << why;
  why = refused(sirt, {{"method", "sart"}});
  EXPECT_NE(why.find("method"), std::string::npos) << why;

  const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
  why = refused(fdk, {{"filter", {{"cutoff", 0.0}}}});
  EXPECT_NE(why.find("filter/cutoff"), std::string::npos) << why;
  why = refused(fdk, {{"filter", "hann"}});
  EXPECT_NE(why.find("'filter': must be an object"), std::string::npos) << why;
  why = refused(fdk, {{"filter", {{"window", "gauss"}}}});
  EXPECT_NE(why.find("one of ram-lak"), std::string::npos) << why;
  why = refused(fdk, {{"fieldOfViewMask", 1}});
  EXPECT_NE(why.find("fieldOfViewMask"), std::string::npos) << why;
  why = parameterError([&] { fdk.validate({{"volume", {{"shape", {8, 0, 1}}}}}); });
  EXPECT_NE(why.find("volume"), std::string::npos) << why;
}

TEST(AlgorithmCatalog, ParameterCodecsRoundTrip) {
  fdk::FdkParams f;
  f.volume = VolumeGrid::centred({5, 6, 7}, {0.5, 0.5, 0.25});
  f.filter.window = fdk::RampWindow::Hann;
  f.filter.cutoff = 0.7;
  f.redundancy = fdk::RedundancyMode::Parker;
  f.fieldOfViewMask = true;
  f.variant = "fdk.bp.cpu-f64";
  f.gpu.tunables["blockX"] = "16";
  const nlohmann::json fj =
      AlgorithmCatalog::builtins().require("fdk").validate(fdkParamsToJson(f));
  EXPECT_EQ(fdkParamsToJson(fdkParamsFromJson(fj)), fdkParamsToJson(f));

  iterative::IterativeParams i;
  i.method = iterative::IterativeMethod::OsSirt;
  i.volume = f.volume;
  i.iterations = 12;
  i.relaxation = 0.8;
  i.subsets = 3;
  i.lowerBound = 0.0;
  i.upperBound = 2.5;
  i.stopRelativeChange = 0.01;
  i.forwardVariant = "et.fp.cpu";
  i.backVariant = "et.bp.cpu-matched";
  const nlohmann::json ij =
      AlgorithmCatalog::builtins().require("os-sirt").validate(iterativeParamsToJson(i));
  EXPECT_EQ(iterativeParamsToJson(iterativeParamsFromJson(ij)), iterativeParamsToJson(i));
}

// The catalogue's jobs are the algorithms themselves: the same voxels as calling them directly.
TEST(AlgorithmCatalog, JobsComputeWhatTheAlgorithmsCompute) {
  const ProjectionStack cone = smallConeScan();
  fdk::FdkParams f;
  f.volume = VolumeGrid::centred({16, 16, 8}, Eigen::Vector3d::Constant(2.0));
  f.filter.window = fdk::RampWindow::Hann;
  JobContext context;
  const Volume direct = fdk::reconstructFdk(cone, f, context);
  const AlgorithmDescriptor& fdk = AlgorithmCatalog::builtins().require("fdk");
  auto job = fdk.makeJob(cone, fdk.validate(fdkParamsToJson(f)), {});
  job->run(context);
  EXPECT_TRUE(sameVoxels(job->result(), direct));
  EXPECT_EQ(job->report().variant, "fdk.bp.cpu");
  EXPECT_FALSE(job->report().summary.empty());
  EXPECT_GT(fdk.hostMemoryBytes(cone, fdk.validate(fdkParamsToJson(f))), 16u * 16u * 8u * 4u);

  const ProjectionStack tilts = smallTiltSeries();
  for (const char* id : {"sirt", "os-sirt", "sart", "cgls"}) {
    const AlgorithmDescriptor& d = AlgorithmCatalog::builtins().require(id);
    iterative::IterativeParams p = iterativeParamsFromJson(d.validate(
        {{"volume", gridToJson(iterative::tomogramGrid(tilts.geometry(), 8))}, {"iterations", 4}}));
    const Volume expected = iterative::reconstructIterative(tilts, p, context);
    auto viaCatalogue = d.makeJob(tilts, iterativeParamsToJson(p), {});
    viaCatalogue->run(context);
    EXPECT_TRUE(sameVoxels(viaCatalogue->result(), expected)) << id;
    EXPECT_EQ(viaCatalogue->report().iterations.size(), 4u) << id;
    EXPECT_EQ(viaCatalogue->report().algorithm, id);
  }
}

TEST(AlgorithmCatalog, WbpRefusesConeBeamsAndFilteredBackprojectionRefusesAWarmStart) {
  const AlgorithmDescriptor& wbp = AlgorithmCatalog::builtins().require("wbp");
  ASSERT_TRUE(wbp.refuses);
  EXPECT_NE(wbp.refuses(smallConeScan().geometry()).find("parallel-beam"), std::string::npos);
  EXPECT_EQ(wbp.refuses(smallTiltSeries().geometry()), "");
  const ProjectionStack tilts = smallTiltSeries();
  const nlohmann::json p =
      wbp.validate({{"volume", gridToJson(iterative::tomogramGrid(tilts.geometry(), 8))}});
  JobInputs inputs;
  inputs.initialVolume = std::make_shared<Volume>();
  EXPECT_THROW(wbp.makeJob(tilts, p, inputs), ParameterError);
}

// A new algorithm is one descriptor: registered in a catalogue of its own (a test builds its own,
// as tests build their own variant registries), it is validated, run and swept-or-refused by the
// same code as the built-in ones.
TEST(AlgorithmCatalog, ANewAlgorithmIsOneDescriptor) {
  class ScaledBackprojectionJob : public ReconstructionJob {
   public:
    ScaledBackprojectionJob(const ProjectionStack& projections, nlohmann::json parameters)
        : projections_(projections), parameters_(std::move(parameters)) {}
    std::string_view name() const override { return "scaled-backprojection"; }
    void run(JobContext& context) override {
      const VolumeGrid grid = gridFromJson(parameters_["volume"]);
      result_ = grid.makeVolume();
      VariantRegistry::builtins()
          .require(parameters_["backVariant"].get<std::string>())
          .backprojectViews(projections_, result_, {}, context);
      for (float& v : result_.voxels()) v *= parameters_["scale"].get<float>();
      report_.algorithm = "scaled-backprojection";
      report_.variant = parameters_["backVariant"].get<std::string>();
    }

   private:
    const ProjectionStack& projections_;
    nlohmann::json parameters_;
  };
  AlgorithmDescriptor d;
  d.id = "scaled-backprojection";
  d.label = "Scaled BP";
  d.summary = "an unfiltered backprojection times a factor (a test algorithm)";
  d.modalities = {Modality::ElectronTomography};
  d.gridPolicy = GridPolicy::Tomogram;
  d.projectors = {{VariantRole::Backprojector, "backVariant"}};
  d.parameters = {realParameter("scale", "--scale", "Scale", "factor", 0, 10, 1.0, true)};
  d.validate = [specs = d.parameters](const nlohmann::json& j) {
    nlohmann::json out = applyParameterSpecs(specs, j);
    gridFromJson(out.value("volume", nlohmann::json()));
    if (!out.contains("backVariant")) out["backVariant"] = "et.bp.cpu-voxel";
    return out;
  };
  d.makeJob = [](const ProjectionStack& projections, const nlohmann::json& parameters,
                 JobInputs) -> std::unique_ptr<ReconstructionJob> {
    return std::make_unique<ScaledBackprojectionJob>(projections, parameters);
  };
  AlgorithmCatalog catalog;
  registerAlgorithms(catalog);
  catalog.add(d);
  const AlgorithmDescriptor& added = catalog.require("scaled-backprojection");
  const ProjectionStack tilts = smallTiltSeries();
  const nlohmann::json grid = gridToJson(iterative::tomogramGrid(tilts.geometry(), 8));
  EXPECT_NE(parameterError([&] {
              added.validate({{"volume", grid}, {"scale", -1.0}});
            }).find("scale"),
            std::string::npos);
  JobContext context;
  auto one = added.makeJob(tilts, added.validate({{"volume", grid}}), {});
  auto two = added.makeJob(tilts, added.validate({{"volume", grid}, {"scale", 2.0}}), {});
  one->run(context);
  two->run(context);
  ASSERT_EQ(one->result().voxels().size(), two->result().voxels().size());
  double sum = 0;
  for (std::size_t k = 0; k < one->result().voxels().size(); ++k) {
    EXPECT_FLOAT_EQ(two->result().voxels()[k], 2.0f * one->result().voxels()[k]);
    sum += one->result().voxels()[k];
  }
  EXPECT_GT(sum, 0.0);
  // Not iterative and on a backprojector alone: the sweep says why it has nothing to sweep.
  EXPECT_NE(whyNotSweepable(added).find("nothing to sweep"), std::string::npos);
  EXPECT_EQ(whyNotSweepable(catalog.require("fdk")), "");
  EXPECT_EQ(whyNotSweepable(catalog.require("cgls")), "");
}

}  // namespace
}  // namespace tomowb::catalog
