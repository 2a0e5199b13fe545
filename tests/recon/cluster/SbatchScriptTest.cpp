#include <gtest/gtest.h>

#include "recon/cluster/SbatchScript.h"
#include "recon/core/Error.h"

namespace tomowb::cluster {
namespace {

ClusterProfile profile() {
  ClusterProfile p;
  p.name = "pool";
  p.partition = "gpu";
  p.nodes = 2;
  p.tasksPerNode = 4;
  p.gpusPerNode = 4;
  p.timeLimit = "02:00:00";
  p.workFolder = "/scratch/jobs";
  p.cliPath = "/opt/tomowb cli/tomowb-cli";
  p.setupLines = {"module load cuda"};
  return p;
}

TEST(SbatchScript, AsksForTheProfilesResourcesAndStartsOneRankPerTaskWithAProgressFile) {
  ClusterRun run;
  run.name = "fdk-2048";
  run.jobFolder = "/scratch/jobs/fdk-2048-1";
  run.workFolder = "/data";
  run.arguments = {"recon", "fdk", "-i", "my scan.json", "-o", "vol.raw", "--slab-slices", "64"};
  const std::string s = sbatchScript(profile(), run);
  for (const char* line :
       {"#SBATCH --job-name=fdk-2048\n", "#SBATCH --partition=gpu\n", "#SBATCH --nodes=2\n",
        "#SBATCH --ntasks-per-node=4\n", "#SBATCH --gpus-per-node=4\n", "#SBATCH --time=02:00:00\n",
        "#SBATCH --chdir=/data\n", "#SBATCH --output=/scratch/jobs/fdk-2048-1/slurm-%j.out\n",
        "module load cuda\n",
        "srun --kill-on-bad-exit=1 '/opt/tomowb cli/tomowb-cli' --progress-file "
        "/scratch/jobs/fdk-2048-1/progress.json recon fdk -i 'my scan.json' -o vol.raw "
        "--slab-slices 64\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\nnot in\n" << s;
  EXPECT_EQ(s.find("--account"), std::string::npos);
  EXPECT_EQ(s.find("--cpus-per-task"), std::string::npos);
}

TEST(SbatchScript, RefusesAJobFolderAnSbatchLineCannotCarry) {
  ClusterRun run;
  run.jobFolder = "/scratch/my jobs";
  run.workFolder = "/data";
  run.arguments = {"recon", "fdk"};
  EXPECT_THROW(sbatchScript(profile(), run), ParameterError);
}

TEST(SbatchScript, FindsTheOutputTheArgumentsName) {
  EXPECT_EQ(outputOf({"recon", "fdk", "-o", "v.raw"}, "/data"), "/data/v.raw");
  EXPECT_EQ(outputOf({"recon", "fdk", "--out=/abs/v.raw"}, "/data"), "/abs/v.raw");
  EXPECT_EQ(outputOf({"recon", "fdk", "-ov.raw"}, "/data/"), "/data/v.raw");
  EXPECT_EQ(outputOf({"recon", "fdk", "--origin-mm", "0", "0", "0"}, "/data"), "");
}

}  // namespace
}  // namespace tomowb::cluster
