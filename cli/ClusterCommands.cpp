// `tomowb-cli cluster ...`: runs on a SLURM cluster from a script, with the same code the window's
// cluster dialog uses (recon/cluster; docs/scale.md, "Cluster"):
//   cluster profile NAME --partition P --nodes N ... --work-folder DIR   make or change a profile
//   cluster submit --profile P [--wait] -- recon fdk -i scan.json -o vol.raw --slab-slices 16
//   cluster status JOBID     SLURM's state, the progress, whether the output has landed
//   cluster wait JOBID       follow it to its end (exit 0 done, 1 failed, 130 cancelled)
//   cluster cancel JOBID     scancel
//   cluster fetch JOBID -o FOLDER   copy an ssh profile's result here (scp)
//   cluster list             the profiles and the jobs known
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "CliSupport.h"
#include "Commands.h"
#include "recon/cluster/ClusterJob.h"
#include "recon/cluster/ClusterProfile.h"
#include "recon/cluster/SlurmClient.h"
#include "recon/core/Error.h"

namespace tomowb::cli {
namespace {

using namespace tomowb::cluster;

// Exit codes of `cluster wait` and `submit --wait` besides kExitOk and kExitCancelled.
int exitCodeOf(const JobStatus& s) {
  if (s.state == JobState::Done) return kExitOk;
  if (s.state == JobState::Cancelled) return kExitCancelled;
  return kExitError;
}

// Polls until the job's state is final; a line per change of state or whole percent on stderr.
JobStatus follow(SlurmClient& client, const ClusterJob& job, double intervalSeconds,
                 double timeoutSeconds, const GlobalOptions& global) {
  const auto start = std::chrono::steady_clock::now();
  std::string last;
  while (true) {
    JobStatus s = client.status(job);
    const std::string line = s.summary();
    if (line != last && !global.quiet)
      std::fprintf(stderr, "job %s: %s\n", job.jobId.c_str(), line.c_str());
    last = line;
    if (isFinal(s.state)) return s;
    if (interruptToken().requested()) throw Cancelled();
    if (timeoutSeconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
            timeoutSeconds)
      throw Error("job " + job.jobId + " is still " + std::string(jobStateName(s.state)) +
                  " after " + formatSeconds(timeoutSeconds) + " (--timeout); it goes on");
    std::this_thread::sleep_for(std::chrono::duration<double>(intervalSeconds));
  }
}

void printStatus(const ClusterJob& job, const JobStatus& s) {
  std::printf("job %s (%s, profile %s): %s\n", job.jobId.c_str(), job.name.c_str(),
              job.profile.name.c_str(), s.summary().c_str());
  if (s.outputPresent)
    std::printf("result: %s%s\n", job.output.c_str(),
                job.profile.local() ? "" : (" on " + job.profile.sshHost).c_str());
  if (!s.logTail.empty())
    std::printf("log (%s):\n%s\n", logPathIn(job.jobFolder, job.jobId).c_str(), s.logTail.c_str());
}

class ProfileCommand : public Command {
 public:
  explicit ProfileCommand(CLI::App& cluster) {
    sub_ = cluster.add_subcommand(
        "profile", "make or change a cluster profile (saved in " + profileFolder().string() + ")");
    sub_->add_option("name", p_.name, "the profile's name")->required();
    sub_->add_option("--partition", p_.partition, "SLURM partition (default: the cluster's)");
    sub_->add_option("--nodes", p_.nodes, "nodes")->capture_default_str();
    sub_->add_option("--tasks-per-node", p_.tasksPerNode, "ranks per node")->capture_default_str();
    sub_->add_option("--gpus-per-node", p_.gpusPerNode, "GPUs per node (0: none asked for)")
        ->capture_default_str();
    sub_->add_option("--cpus-per-task", p_.cpusPerTask, "CPUs per rank (0: the cluster's default)")
        ->capture_default_str();
    sub_->add_option("--time", p_.timeLimit, "time limit (sbatch --time)")->capture_default_str();
    sub_->add_option("--account", p_.account, "SLURM account");
    sub_->add_option("--ssh", p_.sshHost, "[user@]host to submit on (default: this machine)");
    sub_->add_option("--work-folder", p_.workFolder,
                     "folder on the cluster for job files (script, log, progress)")
        ->required();
    sub_->add_option("--cli", p_.cliPath, "tomowb-cli on the cluster")->capture_default_str();
    sub_->add_option("--setup", p_.setupLines, "a shell line run before srun (repeatable)")
        ->allow_extra_args(false);
    sub_->add_option("-o,--out", file_, "write the profile here instead of the profile folder");
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions& global) override {
    const std::filesystem::path path =
        file_.empty() ? profilePath(p_.name) : std::filesystem::path(file_);
    saveProfile(p_, path);
    if (!global.quiet && !global.json)
      std::printf("profile %s: %s\n", p_.name.c_str(), path.c_str());
    printJson(global,
              {{"command", "cluster profile"}, {"path", path.string()}, {"profile", p_.toJson()}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
  ClusterProfile p_;
  std::string file_;
};

class SubmitCommand : public Command {
 public:
  explicit SubmitCommand(CLI::App& cluster) {
    sub_ = cluster.add_subcommand(
        "submit", "submit a tomowb-cli run to SLURM: cluster submit --profile P -- recon fdk ...");
    sub_->add_option("--profile", profile_, "profile name or profile file (.json)")->required();
    sub_->add_option("--name", name_, "job name")->capture_default_str();
    sub_->add_option("--work-folder", workFolder_,
                     "where the run starts, for relative paths in its arguments (default: here "
                     "for a local profile, the profile's work folder over ssh)");
    sub_->add_flag("--wait", wait_, "follow the job to its end (exit status as `cluster wait`)");
    sub_->add_option("--interval", interval_, "seconds between looks with --wait")
        ->check(CLI::Range(0.1, 3600.0))
        ->capture_default_str();
    sub_->add_option("command", arguments_, "the tomowb-cli arguments, after --")->required();
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions& global) override {
    SlurmClient client(findProfile(profile_, "--profile"));
    const ClusterJob job = client.submit(client.prepare(arguments_, name_, workFolder_));
    if (!global.json) {
      std::printf("%s\n", job.jobId.c_str());  // the job number alone, for scripts
      std::fflush(stdout);                     // before the lines on stderr
    }
    if (!global.quiet && !global.json)
      std::fprintf(stderr, "job %s submitted; its files: %s\n", job.jobId.c_str(),
                   job.jobFolder.c_str());
    if (!wait_) {
      printJson(global, {{"command", "cluster submit"}, {"job", job.toJson()}});
      return kExitOk;
    }
    const JobStatus s = follow(client, job, interval_, 0, global);
    if (!global.json) printStatus(job, s);
    printJson(global,
              {{"command", "cluster submit"}, {"job", job.toJson()}, {"status", s.toJson()}});
    return exitCodeOf(s);
  }

 private:
  CLI::App* sub_ = nullptr;
  std::string profile_, name_ = "tomowb", workFolder_;
  bool wait_ = false;
  double interval_ = 2;
  std::vector<std::string> arguments_;
};

// status, cancel, wait and fetch: a job by number (and profile when ambiguous).
class JobCommand : public Command {
 public:
  enum class Kind { Status, Cancel, Wait, Fetch };
  JobCommand(CLI::App& cluster, Kind kind) : kind_(kind) {
    const char* names[] = {"status", "cancel", "wait", "fetch"};
    const char* help[] = {"a job's state, progress and result", "cancel a job (scancel)",
                          "follow a job to its end: exit 0 done, 1 failed, 130 cancelled",
                          "copy an ssh profile's result here (scp)"};
    sub_ = cluster.add_subcommand(names[int(kind)], help[int(kind)]);
    sub_->add_option("job", jobId_, "SLURM job number")->required();
    sub_->add_option("--profile", profile_,
                     "the profile's name, when several clusters know the number");
    if (kind == Kind::Wait) {
      sub_->add_option("--interval", interval_, "seconds between looks")
          ->check(CLI::Range(0.1, 3600.0))
          ->capture_default_str();
      sub_->add_option("--timeout", timeout_, "give up after this many seconds (0: never)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str();
    }
    if (kind == Kind::Fetch) sub_->add_option("-o,--out", folder_, "folder here")->required();
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions& global) override {
    const ClusterJob job = findJobRecord(jobId_, profile_, "job");
    SlurmClient client(job.profile);
    const std::string command = std::string("cluster ") + sub_->get_name();
    switch (kind_) {
      case Kind::Status: {
        const JobStatus s = client.status(job);
        if (!global.json) printStatus(job, s);
        printJson(global, {{"command", command}, {"job", job.toJson()}, {"status", s.toJson()}});
        return kExitOk;
      }
      case Kind::Cancel:
        client.cancel(job);
        if (!global.quiet && !global.json) std::printf("job %s: cancel sent\n", job.jobId.c_str());
        printJson(global, {{"command", command}, {"job", job.toJson()}});
        return kExitOk;
      case Kind::Wait: {
        const JobStatus s = follow(client, job, interval_, timeout_, global);
        if (!global.json) printStatus(job, s);
        printJson(global, {{"command", command}, {"job", job.toJson()}, {"status", s.toJson()}});
        return exitCodeOf(s);
      }
      case Kind::Fetch: {
        const std::filesystem::path local = client.fetchResult(job, folder_);
        if (!global.quiet && !global.json) std::printf("result: %s\n", local.c_str());
        printJson(global,
                  {{"command", command}, {"job", job.toJson()}, {"result", local.string()}});
        return kExitOk;
      }
    }
    return kExitUsage;
  }

 private:
  Kind kind_;
  CLI::App* sub_ = nullptr;
  std::string jobId_, profile_, folder_;
  double interval_ = 2, timeout_ = 0;
};

class ListCommand : public Command {
 public:
  explicit ListCommand(CLI::App& cluster) {
    sub_ = cluster.add_subcommand("list", "the cluster profiles and the jobs submitted");
  }
  CLI::App* subcommand() const override { return sub_; }
  int run(const GlobalOptions& global) override {
    std::vector<std::string> problems;
    nlohmann::json profiles = nlohmann::json::array(), jobs = nlohmann::json::array();
    if (!global.json) std::printf("profiles (%s):\n", profileFolder().c_str());
    for (const ClusterProfile& p : listProfiles(profileFolder(), &problems)) {
      if (!global.json)
        std::printf("  %-16s %s, partition %s, %d node(s) x %d rank(s)\n", p.name.c_str(),
                    p.local() ? "local" : ("ssh " + p.sshHost).c_str(),
                    p.partition.empty() ? "(default)" : p.partition.c_str(), p.nodes,
                    p.tasksPerNode);
      profiles.push_back(p.toJson());
    }
    for (const std::string& why : problems) std::fprintf(stderr, "warning: %s\n", why.c_str());
    if (!global.json) std::printf("jobs (%s):\n", jobFolderOfRecords().c_str());
    for (const ClusterJob& j : listJobRecords()) {
      if (!global.json)
        std::printf("  %-8s %-12s %-20s %s\n", j.jobId.c_str(), j.profile.name.c_str(),
                    j.submitted.c_str(), j.output.c_str());
      jobs.push_back(j.toJson());
    }
    printJson(global, {{"command", "cluster list"}, {"profiles", profiles}, {"jobs", jobs}});
    return kExitOk;
  }

 private:
  CLI::App* sub_ = nullptr;
};

}  // namespace

std::vector<std::unique_ptr<Command>> makeClusterCommands(CLI::App& app) {
  CLI::App& cluster = *app.add_subcommand(
      "cluster", "run on a SLURM cluster: profiles, submit, status, wait, cancel (docs/scale.md)");
  cluster.require_subcommand(1);
  std::vector<std::unique_ptr<Command>> out;
  out.push_back(std::make_unique<ProfileCommand>(cluster));
  out.push_back(std::make_unique<SubmitCommand>(cluster));
  out.push_back(std::make_unique<JobCommand>(cluster, JobCommand::Kind::Status));
  out.push_back(std::make_unique<JobCommand>(cluster, JobCommand::Kind::Cancel));
  out.push_back(std::make_unique<JobCommand>(cluster, JobCommand::Kind::Wait));
  out.push_back(std::make_unique<JobCommand>(cluster, JobCommand::Kind::Fetch));
  out.push_back(std::make_unique<ListCommand>(cluster));
  return out;
}

}  // namespace tomowb::cli
