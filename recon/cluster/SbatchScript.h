// SbatchScript: the batch script of one cluster run. The profile's resources become #SBATCH
// lines; the profile's setup lines run next; then srun starts nodes x tasksPerNode ranks of
// tomowb-cli, each with --progress-file (rank K of several writes progress.rank<K>.json) and the
// run's own arguments, every word shell-quoted. A slab run of `recon fdk` shares its slabs over
// the ranks (SLURM_PROCID/SLURM_NTASKS; docs/scale.md).
#pragma once

#include <string>
#include <vector>

#include "recon/cluster/ClusterProfile.h"

namespace tomowb::cluster {

struct ClusterRun {
  std::string name = "tomowb";         // job name: letters, digits, . _ -
  std::vector<std::string> arguments;  // tomowb-cli's arguments: {"recon", "fdk", "-i", ...}
  std::string jobFolder;               // on the cluster: the script, log and progress files
  std::string workFolder;  // on the cluster: where the run starts (relative paths in arguments)
};

// "<jobFolder>/progress.json", "<jobFolder>/job.sbatch", "<jobFolder>/slurm-<id>.out".
std::string progressPathIn(const std::string& jobFolder);
std::string scriptPathIn(const std::string& jobFolder);
std::string logPathIn(const std::string& jobFolder, const std::string& jobId);

// ParameterError naming the field for a name or folder an #SBATCH line cannot carry.
std::string sbatchScript(const ClusterProfile& profile, const ClusterRun& run);

// The output a run's arguments name (-o X, -oX, --out X, --out=X), resolved against
// `workFolder` when relative; empty when they name none.
std::string outputOf(const std::vector<std::string>& arguments, const std::string& workFolder);

}  // namespace tomowb::cluster
