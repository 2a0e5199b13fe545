#include "recon/cluster/ClusterJob.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"

namespace tomowb::cluster {

namespace fs = std::filesystem;

namespace {
constexpr const char* kFormat = "tomowb-cluster-job";
}  // namespace

nlohmann::json ClusterJob::toJson() const {
  return {{"format", kFormat},
          {"version", 1},
          {"jobId", jobId},
          {"name", name},
          {"profile", profile.toJson()},
          {"jobFolder", jobFolder},
          {"workFolder", workFolder},
          {"output", output},
          {"arguments", arguments},
          {"submitted", submitted}};
}

ClusterJob ClusterJob::fromJson(const nlohmann::json& j, const fs::path& origin) {
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw FormatError(origin, "format", std::string("is not a cluster job (") + kFormat + ")");
  ClusterJob job;
  try {
    job.jobId = j.at("jobId").get<std::string>();
    job.name = j.value("name", std::string());
    job.profile = ClusterProfile::fromJson(j.at("profile"), origin);
    job.jobFolder = j.at("jobFolder").get<std::string>();
    job.workFolder = j.value("workFolder", std::string());
    job.output = j.value("output", std::string());
    job.arguments = j.value("arguments", std::vector<std::string>{});
    job.submitted = j.value("submitted", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(origin, "job", e.what());
  }
  if (job.jobId.empty() ||
      !std::all_of(job.jobId.begin(), job.jobId.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw FormatError(origin, "jobId", "must be SLURM's job number");
  return job;
}

fs::path jobFolderOfRecords() {
  return clusterConfigFolder() / "jobs";
}

fs::path jobRecordPath(const ClusterJob& job) {
  return jobFolderOfRecords() / (job.profile.name + "-" + job.jobId + ".json");
}

void saveJobRecord(const ClusterJob& job) {
  std::error_code ec;
  fs::create_directories(jobFolderOfRecords(), ec);
  io::AtomicFileWriter out(jobRecordPath(job));
  out.write(job.toJson().dump(2) + "\n");
  out.commit();
}

void removeJobRecord(const ClusterJob& job) {
  std::error_code ec;
  fs::remove(jobRecordPath(job), ec);
}

std::vector<ClusterJob> listJobRecords() {
  std::vector<ClusterJob> jobs;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(jobFolderOfRecords(), ec)) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    std::ostringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    try {
      jobs.push_back(ClusterJob::fromJson(j, e.path()));
    } catch (const Error&) {
      // Not a job record (or half of one from another version): not listed.
    }
  }
  std::sort(jobs.begin(), jobs.end(), [](const ClusterJob& a, const ClusterJob& b) {
    if (a.submitted != b.submitted) return a.submitted > b.submitted;
    return a.jobId.size() != b.jobId.size() ? a.jobId.size() > b.jobId.size() : a.jobId > b.jobId;
  });
  return jobs;
}

ClusterJob findJobRecord(const std::string& jobId, const std::string& profileName,
                         const std::string& option) {
  std::vector<ClusterJob> found;
  for (ClusterJob& job : listJobRecords())
    if (job.jobId == jobId && (profileName.empty() || job.profile.name == profileName))
      found.push_back(std::move(job));
  if (found.empty())
    throw ParameterError(option, "no job " + jobId +
                                     (profileName.empty() ? "" : " of profile " + profileName) +
                                     " in " + jobFolderOfRecords().string() +
                                     " ('tomowb-cli cluster list' shows the jobs known)");
  if (found.size() > 1) {
    std::string names;
    for (const ClusterJob& job : found) names += " " + job.profile.name;
    throw ParameterError(option, "job " + jobId + " is known on several clusters (profiles" +
                                     names + "): name one with --profile");
  }
  return found.front();
}

std::string_view jobStateName(JobState state) {
  switch (state) {
    case JobState::Pending:
      return "pending";
    case JobState::Running:
      return "running";
    case JobState::Done:
      return "done";
    case JobState::Failed:
      return "failed";
    case JobState::Cancelled:
      return "cancelled";
    case JobState::Unknown:
      return "unknown";
  }
  return "unknown";
}

bool isFinal(JobState state) {
  return state == JobState::Done || state == JobState::Failed || state == JobState::Cancelled;
}

JobState jobStateFromSlurm(std::string_view slurmState) {
  const auto is = [&](std::string_view name) { return slurmState.rfind(name, 0) == 0; };
  if (is("PENDING") || is("CONFIGURING") || is("REQUEUED") || is("RESV_DEL_HOLD") || is("REQUEUE_"))
    return JobState::Pending;
  if (is("RUNNING") || is("COMPLETING") || is("SUSPENDED") || is("STAGE_OUT") || is("SIGNALING") ||
      is("RESIZING") || is("STOPPED"))
    return JobState::Running;
  if (is("COMPLETED")) return JobState::Done;
  if (is("CANCELLED")) return JobState::Cancelled;
  if (is("FAILED") || is("TIMEOUT") || is("NODE_FAIL") || is("OUT_OF_MEMORY") || is("BOOT_FAIL") ||
      is("DEADLINE") || is("PREEMPTED") || is("REVOKED"))
    return JobState::Failed;
  return JobState::Unknown;
}

nlohmann::json JobStatus::toJson() const {
  nlohmann::json j = {{"state", jobStateName(state)},
                      {"slurmState", slurmState},
                      {"reason", reason},
                      {"source", source},
                      {"fraction", fraction},
                      {"outputPresent", outputPresent},
                      {"message", message}};
  if (progress) j["progress"] = progress->toJson();
  if (slabsTotal > 0) j["slabs"] = {{"done", slabsDone}, {"total", slabsTotal}};
  if (!logTail.empty()) j["logTail"] = logTail;
  return j;
}

std::string JobStatus::summary() const {
  std::string text(jobStateName(state));
  if (state == JobState::Running || state == JobState::Pending) {
    if (state == JobState::Running)
      text += " " + std::to_string(static_cast<int>(std::lround(100 * fraction))) + "%";
    if (slabsTotal > 0)
      text += " (slabs " + std::to_string(slabsDone) + "/" + std::to_string(slabsTotal) + ")";
    else if (progress && !progress->stage.empty())
      text += " (" + progress->stage + ")";
    if (!reason.empty() && reason != "None") text += ", " + reason;
  }
  if (!message.empty()) text += ": " + message;
  return text;
}

}  // namespace tomowb::cluster
