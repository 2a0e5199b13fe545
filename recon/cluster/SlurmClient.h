// SlurmClient: submits, follows and cancels runs on a SLURM cluster as a ClusterProfile says
// (issue #22, point 5). Every SLURM command (sbatch --parsable, squeue, sacct, scancel) and every
// look at the job's files runs as an argument vector with a time limit (ExternalCommand), here or
// through `ssh -o BatchMode=yes HOST 'quoted words'` for a profile with an ssh host, so the same
// code serves both. Errors are Error with the program, its exit status and its stderr
// ("sbatch (exit 1): sbatch: error: invalid partition specified: nope").
//
// Status: squeue while SLURM remembers the job (MinJobAge), else sacct (which fails without
// slurmdbd: "Slurm accounting storage is disabled"), else the run's own progress file and
// whether its output exists. Progress: the ranks' progress files combined, and for a slab run the
// slabs its manifests list (recon/scale/SlabRun.h). A result has landed when SLURM (or the
// progress files) say done and the output exists; with an ssh host it is on that host, and
// fetchResult() copies it here with scp.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "recon/cluster/ClusterJob.h"
#include "recon/cluster/ClusterProfile.h"
#include "recon/cluster/ExternalCommand.h"
#include "recon/cluster/SbatchScript.h"

namespace tomowb::cluster {

class SlurmClient {
 public:
  explicit SlurmClient(ClusterProfile profile,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30));

  const ClusterProfile& profile() const noexcept { return profile_; }

  // A run of tomowb-cli `arguments`: a new job folder below the profile's work folder
  // ("<workFolder>/<name>-<UTC time>-<random>"); the run starts in `workFolder` (default: this
  // process's folder for a local profile, the profile's work folder over ssh).
  ClusterRun prepare(std::vector<std::string> arguments, std::string name = "tomowb",
                     std::string workFolder = {}) const;

  // Writes the job folder and its script, runs sbatch --parsable, saves the job record
  // (ClusterJob.h) unless `record` is false. Error naming sbatch and what it said.
  ClusterJob submit(const ClusterRun& run, bool record = true);

  // Never throws for a job SLURM has forgotten (state from the files); Error when squeue itself
  // cannot run or reach the controller.
  JobStatus status(const ClusterJob& job);

  // scancel; Error naming scancel and what it said.
  void cancel(const ClusterJob& job);

  // The job's log (slurm-<id>.out); empty when there is none yet.
  std::string log(const ClusterJob& job);

  // The output as a path here: the output itself for a local profile; for an ssh host the
  // output (and its raw sidecar and run record) copied with scp into `localFolder`. Error naming
  // scp and what it said.
  std::filesystem::path fetchResult(const ClusterJob& job,
                                    const std::filesystem::path& localFolder);

  // Runs `argv` on the cluster's login node (here, or through ssh). Exposed for tests.
  CommandResult onCluster(const std::vector<std::string>& argv, const std::string& input = {});

 private:
  // SLURM's state of the job: squeue, else sacct; Error when squeue cannot run.
  void askSlurm(const ClusterJob& job, JobStatus& status);

  ClusterProfile profile_;
  std::chrono::milliseconds timeout_;
};

// The ssh program: $TOMOWB_CLUSTER_SSH if set (tests point it at a stand-in), else "ssh".
std::string sshProgram();
// The scp program: $TOMOWB_CLUSTER_SCP if set (tests point it at scp with their ssh config), else
// "scp".
std::string scpProgram();

}  // namespace tomowb::cluster
