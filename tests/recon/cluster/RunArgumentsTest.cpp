#include <gtest/gtest.h>

#include "cli/CliRun.h"
#include "recon/cluster/RunArguments.h"
#include "recon/cluster/ShellQuote.h"
#include "recon/core/Error.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb::cluster {
namespace {

// The arguments, run by the built tomowb-cli: exit 0 and the grid asked for.
void expectTheCliRunsThem(const std::string& id, nlohmann::json parameters, std::int64_t slabs) {
  test::TempDir dir;
  const std::string scan = (dir / "scan.json").string();
  ASSERT_EQ(test::runCli("-q phantom -o " + scan + " --cols 24 --rows 24 --views 30").exitCode, 0);
  const catalog::AlgorithmDescriptor& d = catalog::AlgorithmCatalog::builtins().require(id);
  const VolumeGrid grid = VolumeGrid::centred({20, 18, 16}, Eigen::Vector3d::Constant(0.7));
  parameters["volume"] = catalog::gridToJson(grid);
  parameters = d.validate(parameters);
  RunArgumentsOptions o;
  o.input = scan;
  o.output = (dir / "out volume.mhd").string();
  o.slabSlices = slabs;
  if (slabs >= 0) o.output = (dir / "out volume.raw").string();
  std::vector<std::string> args = {"-q", "--no-record"};
  const std::vector<std::string> recon = reconArguments(d, parameters, o);
  args.insert(args.end(), recon.begin(), recon.end());
  const test::CliResult r = test::runCli(shellCommand(args));
  ASSERT_EQ(r.exitCode, 0) << shellCommand(args) << "\n" << r.output;
  const Volume v = io::readVolume(o.output);
  EXPECT_EQ(v.shape().nx, 20);
  EXPECT_EQ(v.shape().nz, 16);
  EXPECT_EQ(v.voxelSizeMm().x(), 0.7);
  EXPECT_EQ(v.originMm().y(), grid.originMm.y());
}

TEST(RunArguments, AnFdkOfTheWindowRunsOnTheCommandLineWithItsGridAndSlabs) {
  expectTheCliRunsThem("fdk", {{"filter", {{"window", "hann"}}}, {"variant", "fdk.bp.cpu"}}, 4);
}

TEST(RunArguments, AnIterativeRunCarriesItsParametersAndProjectors) {
  expectTheCliRunsThem("pwls", nlohmann::json::object(), -1);
}

TEST(RunArguments, SaysWhatTheCommandLineCannotTake) {
  const catalog::AlgorithmDescriptor& fdk = catalog::AlgorithmCatalog::builtins().require("fdk");
  VolumeGrid grid = VolumeGrid::centred({8, 8, 8}, Eigen::Vector3d(1, 1, 2));
  const nlohmann::json p = fdk.validate({{"volume", catalog::gridToJson(grid)}});
  RunArgumentsOptions o;
  o.input = "scan.json";
  o.output = "v.raw";
  EXPECT_THROW(reconArguments(fdk, p, o), ParameterError);  // voxels that are not cubes
  o.input.clear();
  EXPECT_THROW(reconArguments(fdk, p, o), ParameterError);  // projections only in memory
  // A tilt series' tomogram grid (--thickness) goes from the command line.
  const catalog::AlgorithmDescriptor& sirt = catalog::AlgorithmCatalog::builtins().require("sirt");
  o.input = "tilts.mrc";
  EXPECT_THROW(reconArguments(sirt, p, o), ParameterError);
}

}  // namespace
}  // namespace tomowb::cluster
