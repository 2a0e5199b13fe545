#include "recon/cluster/ClusterProfile.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"

namespace tomowb::cluster {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "tomowb-cluster-profile";
constexpr int kVersion = 1;

bool onlyCharacters(const std::string& text, std::string_view extra) {
  return std::all_of(text.begin(), text.end(), [&](unsigned char c) {
    return std::isalnum(c) != 0 || extra.find(char(c)) != std::string_view::npos;
  });
}

// [D-]N[:N[:N]]: what sbatch --time reads (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM:SS).
bool isTimeLimit(const std::string& text) {
  std::size_t at = 0;
  const auto digits = [&] {
    const std::size_t first = at;
    while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])) != 0) ++at;
    return at > first;
  };
  if (!digits()) return false;
  if (at < text.size() && text[at] == '-') {
    ++at;
    if (!digits()) return false;
  }
  for (int parts = 0; at < text.size() && parts < 2; ++parts) {
    if (text[at] != ':') return false;
    ++at;
    if (!digits()) return false;
  }
  return at == text.size();
}

}  // namespace

nlohmann::json ClusterProfile::toJson() const {
  return {{"format", kFormat},
          {"version", kVersion},
          {"name", name},
          {"partition", partition},
          {"nodes", nodes},
          {"tasksPerNode", tasksPerNode},
          {"gpusPerNode", gpusPerNode},
          {"cpusPerTask", cpusPerTask},
          {"timeLimit", timeLimit},
          {"account", account},
          {"sshHost", sshHost},
          {"workFolder", workFolder},
          {"cliPath", cliPath},
          {"setupLines", setupLines}};
}

ClusterProfile ClusterProfile::fromJson(const nlohmann::json& j, const fs::path& origin) {
  if (!j.is_object()) throw FormatError(origin, "format", "a cluster profile is a JSON object");
  if (j.contains("format") && j["format"] != kFormat)
    throw FormatError(origin, "format", std::string("must be \"") + kFormat + "\"");
  ClusterProfile p;
  const auto text = [&](const char* field, std::string& into) {
    if (!j.contains(field)) return;
    if (!j[field].is_string()) throw FormatError(origin, field, "must be a string");
    into = j[field].get<std::string>();
  };
  const auto integer = [&](const char* field, int& into) {
    if (!j.contains(field)) return;
    if (!j[field].is_number_integer()) throw FormatError(origin, field, "must be an integer");
    into = j[field].get<int>();
  };
  text("name", p.name);
  text("partition", p.partition);
  integer("nodes", p.nodes);
  integer("tasksPerNode", p.tasksPerNode);
  integer("gpusPerNode", p.gpusPerNode);
  integer("cpusPerTask", p.cpusPerTask);
  text("timeLimit", p.timeLimit);
  text("account", p.account);
  text("sshHost", p.sshHost);
  text("workFolder", p.workFolder);
  text("cliPath", p.cliPath);
  if (j.contains("setupLines")) {
    if (!j["setupLines"].is_array()) throw FormatError(origin, "setupLines", "must be a list");
    for (const nlohmann::json& line : j["setupLines"]) {
      if (!line.is_string()) throw FormatError(origin, "setupLines", "must be strings");
      p.setupLines.push_back(line.get<std::string>());
    }
  }
  try {
    p.validate();
  } catch (const ParameterError& e) {
    throw FormatError(origin, "profile", e.what());
  }
  return p;
}

void ClusterProfile::validate() const {
  if (name.empty() || !onlyCharacters(name, "._-") || name.front() == '.')
    throw ParameterError("name", "'" + name +
                                     "': give letters, digits, '.', '_' or '-' (it names the "
                                     "profile's file), not starting with '.'");
  if (!onlyCharacters(partition, "._-,"))
    throw ParameterError("partition", "'" + partition + "': letters, digits, '.', '_', '-', ','");
  if (!onlyCharacters(account, "._-"))
    throw ParameterError("account", "'" + account + "': letters, digits, '.', '_', '-'");
  if (nodes < 1 || nodes > 100000)
    throw ParameterError("nodes", "must be 1 or more, got " + std::to_string(nodes));
  if (tasksPerNode < 1 || tasksPerNode > 4096)
    throw ParameterError("tasksPerNode", "must be 1 or more, got " + std::to_string(tasksPerNode));
  if (gpusPerNode < 0 || gpusPerNode > 64)
    throw ParameterError("gpusPerNode", "must be 0 to 64, got " + std::to_string(gpusPerNode));
  if (cpusPerTask < 0 || cpusPerTask > 4096)
    throw ParameterError("cpusPerTask", "must be 0 (the cluster's default) or more, got " +
                                            std::to_string(cpusPerTask));
  // sbatch --time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (or empty: the
  // partition's default).
  if (!timeLimit.empty() && !isTimeLimit(timeLimit))
    throw ParameterError("timeLimit", "'" + timeLimit +
                                          "': give minutes, MM:SS, HH:MM:SS or D-HH:MM:SS "
                                          "(sbatch --time)");
  if (!sshHost.empty() && (sshHost.front() == '-' || !onlyCharacters(sshHost, "._-@:[]")))
    throw ParameterError("sshHost", "'" + sshHost +
                                        "': give [user@]host (letters, digits, '.', '_', '-', "
                                        "'@'; not starting with '-')");
  if (workFolder.empty())
    throw ParameterError("workFolder",
                         "give the folder on the cluster where the job files go (scripts, logs, "
                         "progress); its nodes must all see it");
  // The folder appears in #SBATCH lines, which sbatch splits at white space.
  if (std::any_of(workFolder.begin(), workFolder.end(), [](unsigned char c) {
        return std::isspace(c) != 0 || c == '"' || c == '\'' || c == '\\' || std::iscntrl(c);
      }))
    throw ParameterError("workFolder", "'" + workFolder +
                                           "': no spaces, quotes or backslashes (sbatch reads "
                                           "the log path from an #SBATCH line)");
  if (cliPath.empty()) throw ParameterError("cliPath", "give the tomowb-cli to run on the cluster");
  for (const std::string& line : setupLines)
    if (line.find('\n') != std::string::npos)
      throw ParameterError("setupLines", "one line per entry (no line breaks inside one)");
}

fs::path clusterConfigFolder() {
  // NOLINTNEXTLINE(concurrency-mt-unsafe): read-only use of the environment
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  fs::path base;
  if (xdg != nullptr && xdg[0] == '/') {
    base = xdg;
  } else {
    const char* home = std::getenv("HOME");  // NOLINT(concurrency-mt-unsafe)
    base = fs::path(home != nullptr && home[0] != '\0' ? home : "/tmp") / ".config";
  }
  return base / "TomoWorkbench" / "cluster";
}

fs::path profileFolder() {
  return clusterConfigFolder() / "profiles";
}

fs::path profilePath(const std::string& name) {
  return profileFolder() / (name + ".json");
}

ClusterProfile loadProfile(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open the cluster profile");
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded()) throw FormatError(path, "format", "is not JSON");
  return ClusterProfile::fromJson(j, path);
}

void saveProfile(const ClusterProfile& profile, const fs::path& path) {
  profile.validate();
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  io::AtomicFileWriter out(path);
  out.write(profile.toJson().dump(2) + "\n");
  out.commit();
}

std::vector<ClusterProfile> listProfiles(const fs::path& folder,
                                         std::vector<std::string>* problems) {
  std::vector<ClusterProfile> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    if (e.path().extension() != ".json") continue;
    try {
      out.push_back(loadProfile(e.path()));
    } catch (const Error& error) {
      if (problems != nullptr) problems->push_back(error.what());
    }
  }
  std::sort(out.begin(), out.end(),
            [](const ClusterProfile& a, const ClusterProfile& b) { return a.name < b.name; });
  return out;
}

ClusterProfile findProfile(const std::string& nameOrPath, const std::string& option) {
  const bool isPath =
      nameOrPath.find('/') != std::string::npos || fs::path(nameOrPath).extension() == ".json";
  const fs::path path = isPath ? fs::path(nameOrPath) : profilePath(nameOrPath);
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    std::string names;
    for (const ClusterProfile& p : listProfiles(profileFolder())) names += " " + p.name;
    throw ParameterError(option, "no cluster profile '" + nameOrPath + "' (" + path.string() +
                                     "); profiles:" + (names.empty() ? " none" : names) +
                                     " ('tomowb-cli cluster profile --help' makes one)");
  }
  return loadProfile(path);
}

}  // namespace tomowb::cluster
