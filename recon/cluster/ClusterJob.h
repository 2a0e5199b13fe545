// ClusterJob: what the client keeps of a submitted job (its SLURM id, the profile it went with,
// its folder, output and arguments), saved as JSON in the user's config folder
// (clusterConfigFolder()/jobs/<profile>-<id>.json) so that `tomowb-cli cluster status|cancel|wait`
// and the window's job list find jobs whoever submitted them; and its status as the client sees
// it (JobStatus: SLURM's state, the progress file, the slab manifests, whether the output is
// there).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/cluster/ClusterProfile.h"
#include "recon/io/ProgressFile.h"

namespace tomowb::cluster {

struct ClusterJob {
  std::string jobId;  // SLURM's
  std::string name;
  ClusterProfile profile;
  std::string jobFolder;  // on the cluster
  std::string workFolder;
  std::string output;  // on the cluster; empty when the arguments name none
  std::vector<std::string> arguments;
  std::string submitted;  // UTC, ISO 8601

  nlohmann::json toJson() const;
  static ClusterJob fromJson(const nlohmann::json& json, const std::filesystem::path& origin);
};

std::filesystem::path jobFolderOfRecords();  // clusterConfigFolder()/jobs
std::filesystem::path jobRecordPath(const ClusterJob& job);
void saveJobRecord(const ClusterJob& job);
void removeJobRecord(const ClusterJob& job);
// Every job record, newest first; unreadable files are skipped.
std::vector<ClusterJob> listJobRecords();
// The job with SLURM id `jobId` (of profile `profileName` when not empty). ParameterError naming
// `option` for none, or for an id that several profiles' clusters gave.
ClusterJob findJobRecord(const std::string& jobId, const std::string& profileName,
                         const std::string& option);

enum class JobState { Pending, Running, Done, Failed, Cancelled, Unknown };
std::string_view jobStateName(JobState state);  // "pending", "running", "done", ...
bool isFinal(JobState state);                   // done, failed or cancelled

// The state SLURM gives ("PENDING", "RUNNING", "COMPLETED", "CANCELLED by 0", "TIMEOUT"...).
JobState jobStateFromSlurm(std::string_view slurmState);

struct JobStatus {
  JobState state = JobState::Unknown;
  std::string slurmState;  // as squeue or sacct said it; empty when neither knows the job
  std::string reason;      // squeue's reason for a pending job, or why the state is what it is
  std::string source;      // "squeue", "sacct" or "progress file"
  std::optional<io::ProgressSnapshot> progress;  // the ranks' progress files combined
  int slabsDone = -1, slabsTotal = -1;           // from the slab manifests, when a slab run
  double fraction = 0;                           // the best figure of all of the above
  bool outputPresent = false;                    // the result has landed
  std::string message;                           // what went wrong, for a failed job
  std::string logTail;                           // the last lines of the job's log (failed)

  nlohmann::json toJson() const;
  std::string summary() const;  // "running 42% (slabs 5/12)", "done: /work/out.raw"
};

}  // namespace tomowb::cluster
