// ClusterProfile: where and how a run goes to a SLURM cluster (issue #22, point 5): partition,
// nodes, ranks and GPUs per node, CPUs per task, time limit, account, the ssh host (empty: submit
// on this machine), the folder for job files on the cluster, the tomowb-cli there and shell lines
// to run first (module load ...). Stored as JSON, one file per profile, in the user's config
// folder ($XDG_CONFIG_HOME or ~/.config, then TomoWorkbench/cluster/profiles/NAME.json), shared by
// `tomowb-cli cluster` and the window's cluster dialog.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tomowb::cluster {

struct ClusterProfile {
  std::string name;                     // letters, digits, . _ - (the file's name)
  std::string partition;                // empty: the cluster's default partition
  int nodes = 1;                        // sbatch --nodes
  int tasksPerNode = 1;                 // ranks per node (srun starts nodes x tasksPerNode ranks)
  int gpusPerNode = 0;                  // sbatch --gpus-per-node; 0: none asked for
  int cpusPerTask = 0;                  // sbatch --cpus-per-task; 0: the cluster's default
  std::string timeLimit = "01:00:00";   // sbatch --time: [D-]HH:MM:SS, MM:SS or minutes
  std::string account;                  // sbatch --account; empty: none
  std::string sshHost;                  // [user@]host; empty: this machine runs sbatch
  std::string workFolder;               // on the cluster: job folders go below it
  std::string cliPath = "tomowb-cli";   // tomowb-cli on the cluster's nodes
  std::vector<std::string> setupLines;  // shell lines run before srun (module load, export)

  bool local() const noexcept { return sshHost.empty(); }
  int ranks() const noexcept { return nodes * tasksPerNode; }

  nlohmann::json toJson() const;
  // FormatError naming `origin` and the field for a wrong type or value.
  static ClusterProfile fromJson(const nlohmann::json& json, const std::filesystem::path& origin);
  // ParameterError naming the field: a name or partition with other characters, nodes < 1, a
  // time limit sbatch would not read, an ssh host starting with '-', an empty work folder...
  void validate() const;
};

// $XDG_CONFIG_HOME/TomoWorkbench/cluster (or ~/.config/TomoWorkbench/cluster).
std::filesystem::path clusterConfigFolder();
std::filesystem::path profileFolder();  // clusterConfigFolder()/profiles
std::filesystem::path profilePath(const std::string& name);

// FormatError/IoError naming the file.
ClusterProfile loadProfile(const std::filesystem::path& path);
// Validates, then writes atomically (creating the folder).
void saveProfile(const ClusterProfile& profile, const std::filesystem::path& path);
// Every profile in `folder`, by name; files that do not read are skipped (their errors in
// `problems` when given).
std::vector<ClusterProfile> listProfiles(const std::filesystem::path& folder,
                                         std::vector<std::string>* problems = nullptr);
// A profile by file path (anything ending in .json or holding a '/') or by name in
// profileFolder(); ParameterError naming `option` when there is none.
ClusterProfile findProfile(const std::string& nameOrPath, const std::string& option);

}  // namespace tomowb::cluster
