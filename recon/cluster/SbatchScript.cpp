#include "recon/cluster/SbatchScript.h"

#include <algorithm>
#include <cctype>

#include "recon/cluster/ShellQuote.h"
#include "recon/core/Error.h"

namespace tomowb::cluster {

namespace {

bool sbatchSafe(const std::string& text) {
  return !text.empty() && std::none_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isspace(c) != 0 || c == '"' || c == '\'' || c == '\\' || std::iscntrl(c);
  });
}

std::string joinPath(const std::string& folder, const std::string& name) {
  if (folder.empty()) return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

}  // namespace

std::string progressPathIn(const std::string& jobFolder) {
  return joinPath(jobFolder, "progress.json");
}

std::string scriptPathIn(const std::string& jobFolder) {
  return joinPath(jobFolder, "job.sbatch");
}

std::string logPathIn(const std::string& jobFolder, const std::string& jobId) {
  return joinPath(jobFolder, "slurm-" + jobId + ".out");
}

std::string sbatchScript(const ClusterProfile& profile, const ClusterRun& run) {
  profile.validate();
  if (run.name.empty() || !std::all_of(run.name.begin(), run.name.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '.' || c == '_' || c == '-';
      }))
    throw ParameterError("job name", "'" + run.name + "': letters, digits, '.', '_' or '-'");
  if (!sbatchSafe(run.jobFolder))
    throw ParameterError("job folder", "'" + run.jobFolder +
                                           "': give one without spaces, quotes or backslashes "
                                           "(sbatch reads it from an #SBATCH line)");
  if (!sbatchSafe(run.workFolder))
    throw ParameterError(
        "work folder", "'" + run.workFolder + "': give one without spaces, quotes or backslashes");
  if (run.arguments.empty())
    throw ParameterError("arguments", "give the tomowb-cli command to run");

  std::string s = "#!/bin/bash\n";
  s += "# A tomowb run on SLURM, written by the workbench's cluster client (profile '" +
       profile.name + "'; docs/scale.md, \"Cluster\").\n";
  s += "# Submit it again with: sbatch " + shellQuote(scriptPathIn(run.jobFolder)) + "\n";
  s += "#SBATCH --job-name=" + run.name + "\n";
  if (!profile.partition.empty()) s += "#SBATCH --partition=" + profile.partition + "\n";
  s += "#SBATCH --nodes=" + std::to_string(profile.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=" + std::to_string(profile.tasksPerNode) + "\n";
  if (profile.gpusPerNode > 0)
    s += "#SBATCH --gpus-per-node=" + std::to_string(profile.gpusPerNode) + "\n";
  if (profile.cpusPerTask > 0)
    s += "#SBATCH --cpus-per-task=" + std::to_string(profile.cpusPerTask) + "\n";
  if (!profile.timeLimit.empty()) s += "#SBATCH --time=" + profile.timeLimit + "\n";
  if (!profile.account.empty()) s += "#SBATCH --account=" + profile.account + "\n";
  s += "#SBATCH --chdir=" + run.workFolder + "\n";
  s += "#SBATCH --output=" + logPathIn(run.jobFolder, "%j") + "\n";
  if (!profile.setupLines.empty()) {
    s += "\n# The profile's setup lines.\n";
    for (const std::string& line : profile.setupLines) s += line + "\n";
  }
  std::vector<std::string> words = {"srun", "--kill-on-bad-exit=1", profile.cliPath,
                                    "--progress-file", progressPathIn(run.jobFolder)};
  words.insert(words.end(), run.arguments.begin(), run.arguments.end());
  s += "\n# One rank per task: a slab run shares its slabs over SLURM_NTASKS ranks.\n";
  s += shellCommand(words) + "\n";
  s += "status=$?\n";
  s += "echo \"tomowb: srun ended with status $status\"\n";
  s += "exit $status\n";
  return s;
}

std::string outputOf(const std::vector<std::string>& arguments, const std::string& workFolder) {
  std::string out;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string& a = arguments[i];
    if ((a == "-o" || a == "--out") && i + 1 < arguments.size())
      out = arguments[i + 1];
    else if (a.rfind("--out=", 0) == 0)
      out = a.substr(6);
    else if (a.size() > 2 && a.rfind("-o", 0) == 0 && a[2] != '-')
      out = a.substr(2);
  }
  if (out.empty() || out.front() == '/') return out;
  return joinPath(workFolder, out);
}

}  // namespace tomowb::cluster
