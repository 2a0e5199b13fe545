#include "recon/cluster/SlurmClient.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>
#include <utility>

#include "recon/cluster/ShellQuote.h"
#include "recon/core/Error.h"
#include "recon/io/ProgressFile.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/scale/SlabRun.h"

namespace tomowb::cluster {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFileMarker = "==> tomowb-file ";
constexpr const char* kLandedMarker = "==> tomowb-landed";

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  return text.substr(first);
}

std::string lastLines(const std::string& text, int count) {
  std::size_t at = text.size();
  while (at > 0 && (text[at - 1] == '\n' || text[at - 1] == '\r')) --at;
  const std::size_t end = at;
  for (int n = 0; n < count && at > 0; ++n) {
    const std::size_t newline = text.rfind('\n', at - 1);
    at = newline == std::string::npos ? 0 : newline;
    if (at == 0) break;
  }
  return trimmed(text.substr(at, end - at));
}

std::string folderName(const std::string& name) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &utc);
  std::random_device device;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "%06x", device() & 0xffffffu);
  return name + "-" + stamp + "-" + suffix;
}

std::string joinPath(const std::string& folder, const std::string& name) {
  if (folder.empty()) return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

// The prefix of a slab run's manifests: "<out base>.rank" (then "<K>.manifest.json").
std::string manifestPrefix(const std::string& output) {
  const std::string first = scale::manifestPathFor(output, 0).string();
  return first.substr(0, first.size() - std::string("0.manifest.json").size());
}

// What the client reads of a job in one go: the ranks' progress files, the slab manifests, the
// log's last lines, and whether the output is there; one shell script, run here or over ssh.
std::string lookScript(const ClusterJob& job) {
  std::string s = "for f in " + shellQuote(progressPathIn(job.jobFolder)) + " " +
                  shellQuote(joinPath(job.jobFolder, "progress.rank")) + "*.json";
  if (!job.output.empty()) s += " " + shellQuote(manifestPrefix(job.output)) + "*.manifest.json";
  s += "; do [ -f \"$f\" ] && { printf '%s%s\\n' '" + std::string(kFileMarker) +
       "' \"$f\"; cat \"$f\"; echo; }; done; ";
  s += "log=" + shellQuote(logPathIn(job.jobFolder, job.jobId)) +
       "; [ -f \"$log\" ] && { printf '%s%s\\n' '" + std::string(kFileMarker) +
       "' \"$log\"; tail -n 20 \"$log\"; echo; }; ";
  if (!job.output.empty())
    s += "[ -e " + shellQuote(job.output) + " ] && echo '" + kLandedMarker + "'; ";
  s += "exit 0";
  return s;
}

struct Look {
  std::vector<std::pair<std::string, std::string>> files;  // (path, text)
  bool landed = false;
};

Look parseLook(const std::string& text) {
  Look look;
  std::istringstream in(text);
  std::string line;
  std::pair<std::string, std::string>* current = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind(kFileMarker, 0) == 0) {
      look.files.emplace_back(line.substr(std::string(kFileMarker).size()), std::string());
      current = &look.files.back();
    } else if (line == kLandedMarker) {
      look.landed = true;
      current = nullptr;
    } else if (current != nullptr) {
      current->second += line + "\n";
    }
  }
  return look;
}

// The last line of a failed job's log that the run wrote (not srun's or the script's own words):
// the error of a run that failed before its progress file was written (a usage error).
std::string lastRunLine(const std::string& log) {
  std::istringstream in(log);
  std::string line, last;
  while (std::getline(in, line)) {
    line = trimmed(line);
    if (line.empty() || line.rfind("srun:", 0) == 0 || line.rfind("tomowb: srun ended", 0) == 0 ||
        line.rfind("Run with --help", 0) == 0 || line.rfind("slurmstepd:", 0) == 0)
      continue;
    last = line;
  }
  return last.empty() ? lastLines(log, 1) : last;
}

bool endsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string sshProgram() {
  const char* program = std::getenv("TOMOWB_CLUSTER_SSH");  // NOLINT(concurrency-mt-unsafe)
  return program != nullptr && program[0] != '\0' ? program : "ssh";
}

std::string scpProgram() {
  const char* program = std::getenv("TOMOWB_CLUSTER_SCP");  // NOLINT(concurrency-mt-unsafe)
  return program != nullptr && program[0] != '\0' ? program : "scp";
}

SlurmClient::SlurmClient(ClusterProfile profile, std::chrono::milliseconds timeout)
    : profile_(std::move(profile)), timeout_(timeout) {
  profile_.validate();
}

CommandResult SlurmClient::onCluster(const std::vector<std::string>& argv,
                                     const std::string& input) {
  CommandOptions options;
  options.timeout = timeout_;
  options.input = input;
  if (profile_.local()) return runExternalCommand(argv, options);
  // ssh hands its command to the remote login shell as one string: every word quoted.
  return runExternalCommand({sshProgram(), "-o", "BatchMode=yes", "-o", "ConnectTimeout=15",
                             profile_.sshHost, shellCommand(argv)},
                            options);
}

ClusterRun SlurmClient::prepare(std::vector<std::string> arguments, std::string name,
                                std::string workFolder) const {
  ClusterRun run;
  run.name = std::move(name);
  run.arguments = std::move(arguments);
  std::string base = profile_.workFolder;
  if (profile_.local()) {
    std::error_code ec;
    base = fs::absolute(base, ec).lexically_normal().string();
  }
  run.jobFolder = joinPath(base, folderName(run.name));
  if (!workFolder.empty())
    run.workFolder = std::move(workFolder);
  else if (profile_.local())
    run.workFolder = fs::current_path().string();
  else
    run.workFolder = profile_.workFolder;
  return run;
}

ClusterJob SlurmClient::submit(const ClusterRun& run, bool record) {
  const std::string script = sbatchScript(profile_, run);
  const std::string scriptPath = scriptPathIn(run.jobFolder);
  // The folder and the script: positional parameters, so the paths are never shell syntax.
  const CommandResult written = onCluster(
      {"sh", "-c", "mkdir -p -- \"$1\" && cat > \"$2\"", "sh", run.jobFolder, scriptPath}, script);
  if (!written.ok())
    throw IoError(scriptPath, "could not write the job script" +
                                  std::string(profile_.local() ? "" : " on " + profile_.sshHost) +
                                  ": " + written.describe());
  const CommandResult sbatch = onCluster({"sbatch", "--parsable", scriptPath});
  if (!sbatch.ok())
    throw Error("sbatch refused the job (profile '" + profile_.name + "', script " + scriptPath +
                "): " + sbatch.describe());
  // --parsable: "<id>" or "<id>;<cluster>".
  std::string id = trimmed(sbatch.out);
  id = id.substr(0, id.find(';'));
  if (id.empty() || !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw Error("sbatch gave no job number: '" + trimmed(sbatch.out) + "'");
  ClusterJob job;
  job.jobId = id;
  job.name = run.name;
  job.profile = profile_;
  job.jobFolder = run.jobFolder;
  job.workFolder = run.workFolder;
  job.output = outputOf(run.arguments, run.workFolder);
  job.arguments = run.arguments;
  job.submitted = io::utcTimestamp();
  if (record) saveJobRecord(job);
  return job;
}

void SlurmClient::askSlurm(const ClusterJob& job, JobStatus& s) {
  // squeue knows the job until MinJobAge after its end.
  const CommandResult squeue =
      onCluster({"squeue", "-h", "-j", job.jobId, "--states=all", "-o", "%T|%r"});
  if (squeue.ok() && !trimmed(squeue.out).empty()) {
    const std::string line = trimmed(squeue.out.substr(0, squeue.out.find('\n')));
    s.slurmState = line.substr(0, line.find('|'));
    if (line.find('|') != std::string::npos) s.reason = line.substr(line.find('|') + 1);
    s.source = "squeue";
    return;
  }
  const bool forgotten = squeue.started && !squeue.timedOut &&
                         (squeue.ok() || squeue.err.find("Invalid job id") != std::string::npos);
  if (!forgotten) throw Error("cannot ask SLURM about job " + job.jobId + ": " + squeue.describe());
  const CommandResult sacct =
      onCluster({"sacct", "-n", "-X", "-P", "-j", job.jobId, "-o", "State,ExitCode"});
  const std::string line = trimmed(sacct.out.substr(0, sacct.out.find('\n')));
  if (sacct.ok() && !line.empty()) {
    s.slurmState = line.substr(0, line.find('|'));
    s.source = "sacct";
    return;
  }
  s.reason = "SLURM no longer lists the job (squeue forgets finished jobs; sacct: " +
             (sacct.ok() ? std::string("no record") : sacct.describe()) + ")";
}

namespace {

// The progress files, manifests and log of a look into `s`.
void readJobFiles(const Look& look, int expectedRanks, JobStatus& s) {
  s.outputPresent = look.landed;
  std::vector<io::ProgressSnapshot> ranks;
  std::vector<int> slabs;
  int slabTotal = -1;
  for (const auto& [path, text] : look.files) {
    try {
      if (endsWith(path, ".manifest.json")) {
        const nlohmann::json m = nlohmann::json::parse(text);
        for (const nlohmann::json& i : m.value("finished", nlohmann::json::array()))
          slabs.push_back(i.get<int>());
        slabTotal = m.value("run", nlohmann::json::object()).value("slabs", slabTotal);
      } else if (endsWith(path, ".out")) {
        s.logTail = trimmed(text);
      } else {
        ranks.push_back(io::parseProgressText(text, path));
      }
    } catch (const std::exception&) {
      // A file being replaced as we read it, or another run's: the next look sees it whole.
    }
  }
  s.progress = io::combineProgress(ranks, expectedRanks);
  if (slabTotal > 0) {
    std::sort(slabs.begin(), slabs.end());
    slabs.erase(std::unique(slabs.begin(), slabs.end()), slabs.end());
    s.slabsTotal = slabTotal;
    s.slabsDone = static_cast<int>(slabs.size());
  }
}

JobState stateOfProgress(io::ProgressState state) {
  switch (state) {
    case io::ProgressState::Done:
      return JobState::Done;
    case io::ProgressState::Failed:
      return JobState::Failed;
    case io::ProgressState::Cancelled:
      return JobState::Cancelled;
    case io::ProgressState::Running:
      return JobState::Unknown;  // SLURM has forgotten it: it ended without saying how
  }
  return JobState::Unknown;
}

// The state from SLURM's word, else the progress files, else the output; the message of a
// failure; the best fraction.
void settleState(const ClusterJob& job, JobStatus& s) {
  if (!s.slurmState.empty()) {
    s.state = jobStateFromSlurm(s.slurmState);
  } else if (s.progress) {
    s.source = "progress file";
    s.state = stateOfProgress(s.progress->state);
  } else if (s.outputPresent) {
    s.source = "output";
    s.state = JobState::Done;
  }
  if (s.state == JobState::Done && !job.output.empty() && !s.outputPresent) {
    s.state = JobState::Failed;
    s.message = "the job ended but its output " + job.output + " is not there";
  }
  if (s.state == JobState::Failed && s.message.empty()) {
    if (s.progress && !s.progress->message.empty())
      s.message = s.progress->message;
    else if (!s.logTail.empty())
      s.message = lastRunLine(s.logTail);
    else
      s.message = "SLURM says " + s.slurmState;
  }
  if (s.state == JobState::Done)
    s.fraction = 1;
  else if (s.slabsTotal > 0)
    s.fraction = double(s.slabsDone) / double(s.slabsTotal);
  else if (s.progress)
    s.fraction = s.progress->fraction;
  if (s.state != JobState::Failed) s.logTail.clear();
}

}  // namespace

JobStatus SlurmClient::status(const ClusterJob& job) {
  JobStatus s;
  askSlurm(job, s);
  const CommandResult looked = onCluster({"sh", "-c", lookScript(job)});
  readJobFiles(parseLook(looked.ok() ? looked.out : std::string()), profile_.ranks(), s);
  settleState(job, s);
  return s;
}

void SlurmClient::cancel(const ClusterJob& job) {
  const CommandResult r = onCluster({"scancel", job.jobId});
  if (!r.ok()) throw Error("could not cancel job " + job.jobId + ": " + r.describe());
}

std::string SlurmClient::log(const ClusterJob& job) {
  const CommandResult r = onCluster(
      {"sh", "-c", "[ ! -f \"$1\" ] || cat \"$1\"", "sh", logPathIn(job.jobFolder, job.jobId)});
  return r.ok() ? r.out : std::string();
}

fs::path SlurmClient::fetchResult(const ClusterJob& job, const fs::path& localFolder) {
  if (job.output.empty()) throw Error("job " + job.jobId + " names no output (-o)");
  if (profile_.local()) return job.output;
  // The output and what belongs to it: a raw volume's samples and sidecar, the run record.
  std::vector<std::string> remote = {job.output};
  const fs::path out(job.output);
  if (out.extension() == ".raw" || out.extension() == ".json") {
    remote = {io::rawSidecarPathFor(out).string(), io::rawDataPathFor(out).string()};
  }
  const std::string safe = "/._-+,:=@%";
  for (const std::string& path : remote)
    if (!std::all_of(path.begin(), path.end(), [&](unsigned char c) {
          return std::isalnum(c) != 0 || safe.find(char(c)) != std::string::npos;
        }))
      throw Error("cannot copy " + path + " back with scp: give outputs without spaces or quotes");
  std::error_code ec;
  fs::create_directories(localFolder, ec);
  std::vector<std::string> argv = {scpProgram(), "-q", "-r", "-o", "BatchMode=yes"};
  for (const std::string& path : remote) argv.push_back(profile_.sshHost + ":" + path);
  argv.push_back(localFolder.string() + "/");
  CommandOptions options;
  options.timeout = std::chrono::hours(2);
  const CommandResult r = runExternalCommand(argv, options);
  if (!r.ok()) throw Error("could not copy the result of job " + job.jobId + ": " + r.describe());
  return localFolder / fs::path(remote.front()).filename();
}

}  // namespace tomowb::cluster
