#include "recon/io/ProgressFile.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"

namespace tomowb::io {

namespace {

constexpr const char* kFormat = "tomowb-progress";
constexpr int kVersion = 1;

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

}  // namespace

std::string utcTimestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string_view progressStateName(ProgressState state) {
  switch (state) {
    case ProgressState::Running:
      return "running";
    case ProgressState::Done:
      return "done";
    case ProgressState::Failed:
      return "failed";
    case ProgressState::Cancelled:
      return "cancelled";
  }
  return "running";
}

ProgressState progressStateFromName(std::string_view name, const std::filesystem::path& file) {
  for (ProgressState s : {ProgressState::Running, ProgressState::Done, ProgressState::Failed,
                          ProgressState::Cancelled})
    if (progressStateName(s) == name) return s;
  throw FormatError(file, "state",
                    "must be running, done, failed or cancelled, got '" + std::string(name) + "'");
}

nlohmann::json ProgressSnapshot::toJson() const {
  return {{"format", kFormat},
          {"version", kVersion},
          {"state", progressStateName(state)},
          {"stage", stage},
          {"fraction", fraction},
          {"message", message},
          {"rank", rank},
          {"ranks", ranks},
          {"pid", pid},
          {"host", host},
          {"started", started},
          {"updated", updated},
          {"exitCode", exitCode ? nlohmann::json(*exitCode) : nlohmann::json()}};
}

ProgressSnapshot ProgressSnapshot::fromJson(const nlohmann::json& j,
                                            const std::filesystem::path& file) {
  if (!j.is_object() || j.value("format", std::string()) != kFormat)
    throw FormatError(file, "format",
                      std::string("is not a progress file (no \"format\": \"") + kFormat + "\")");
  ProgressSnapshot s;
  try {
    s.state = progressStateFromName(j.at("state").get<std::string>(), file);
    s.stage = j.value("stage", std::string());
    s.message = j.value("message", std::string());
    s.fraction = j.value("fraction", 0.0);
    s.rank = j.value("rank", 0);
    s.ranks = j.value("ranks", 1);
    s.pid = j.value("pid", 0L);
    s.host = j.value("host", std::string());
    s.started = j.value("started", std::string());
    s.updated = j.value("updated", std::string());
    if (j.contains("exitCode") && j["exitCode"].is_number_integer())
      s.exitCode = j["exitCode"].get<int>();
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, "state", e.what());
  }
  if (!std::isfinite(s.fraction) || s.fraction < 0 || s.fraction > 1)
    throw FormatError(file, "fraction", "must be in [0, 1]");
  if (s.ranks < 1 || s.rank < 0 || s.rank >= s.ranks)
    throw FormatError(file, "rank", "must be in [0, ranks)");
  return s;
}

std::filesystem::path progressPathForRank(const std::filesystem::path& path, int rank, int ranks) {
  if (ranks <= 1) return path;
  std::filesystem::path out = path;
  out.replace_filename(path.stem().string() + ".rank" + std::to_string(rank) +
                       path.extension().string());
  return out;
}

ProgressSnapshot parseProgressText(std::string_view text, const std::filesystem::path& origin) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw FormatError(origin, "format", "is not JSON");
  return ProgressSnapshot::fromJson(j, origin);
}

std::optional<ProgressSnapshot> readProgressFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return std::nullopt;
    throw IoError(path, "cannot open the progress file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parseProgressText(text.str(), path);
}

namespace {
ProgressState combinedState(bool anyFailed, bool anyCancelled, bool allDone) {
  if (anyFailed) return ProgressState::Failed;
  if (anyCancelled) return ProgressState::Cancelled;
  return allDone ? ProgressState::Done : ProgressState::Running;
}
}  // namespace

std::optional<ProgressSnapshot> combineProgress(const std::vector<ProgressSnapshot>& ranks,
                                                int expectedRanks) {
  if (ranks.empty()) return std::nullopt;
  int count = std::max(1, expectedRanks);
  for (const ProgressSnapshot& r : ranks) count = std::max(count, r.ranks);
  std::vector<const ProgressSnapshot*> byRank(static_cast<std::size_t>(count), nullptr);
  for (const ProgressSnapshot& r : ranks)
    if (r.rank >= 0 && r.rank < count) byRank[static_cast<std::size_t>(r.rank)] = &r;
  ProgressSnapshot out;
  out.ranks = count;
  double sum = 0;
  bool allDone = true;
  const ProgressSnapshot* failed = nullptr;
  const ProgressSnapshot* cancelled = nullptr;
  for (const ProgressSnapshot* r : byRank) {
    if (r == nullptr) {
      allDone = false;
      continue;
    }
    sum += r->state == ProgressState::Done ? 1.0 : r->fraction;
    allDone = allDone && r->state == ProgressState::Done;
    if (r->state == ProgressState::Failed && failed == nullptr) failed = r;
    if (r->state == ProgressState::Cancelled && cancelled == nullptr) cancelled = r;
    out.updated = std::max(out.updated, r->updated);
  }
  const ProgressSnapshot* told = failed != nullptr ? failed : cancelled;
  if (told == nullptr) told = byRank[0] != nullptr ? byRank[0] : &ranks.front();
  out.stage = told->stage;
  out.message = told->message;
  out.host = told->host;
  out.pid = told->pid;
  out.started = told->started;
  out.exitCode = told->exitCode;
  out.fraction = std::clamp(sum / count, 0.0, 1.0);
  out.state = combinedState(failed != nullptr, cancelled != nullptr, allDone);
  return out;
}

ProgressFileWriter::ProgressFileWriter(std::filesystem::path path, int rank, int ranks,
                                       std::chrono::milliseconds minimumInterval)
    : path_(std::move(path)), minimumInterval_(minimumInterval) {
  snapshot_.rank = rank;
  snapshot_.ranks = ranks;
  snapshot_.pid = static_cast<long>(::getpid());
  snapshot_.host = hostName();
  snapshot_.started = utcTimestamp();
  snapshot_.stage = "start";
  std::lock_guard lock(mutex_);
  writeLocked();  // throws IoError naming the file when it cannot be written
}

void ProgressFileWriter::writeLocked() {
  snapshot_.updated = utcTimestamp();
  AtomicFileWriter out(path_);
  out.write(snapshot_.toJson().dump(2) + "\n");
  out.commit();
  lastWrite_ = std::chrono::steady_clock::now();
  written_ = true;
}

void ProgressFileWriter::report(std::string_view stage, double fraction) {
  std::lock_guard lock(mutex_);
  if (finished_) return;
  const bool newStage = stage != snapshot_.stage;
  snapshot_.stage = std::string(stage);
  snapshot_.fraction = std::isfinite(fraction) ? std::clamp(fraction, 0.0, 1.0) : 0.0;
  if (!newStage && written_ && std::chrono::steady_clock::now() - lastWrite_ < minimumInterval_)
    return;
  try {
    writeLocked();
  } catch (const Error&) {
    // The run goes on: a progress file that could be written at the start but not now (a full
    // disk) must not fail the reconstruction; the next report tries again.
  }
}

void ProgressFileWriter::finish(ProgressState state, int exitCode,
                                std::string_view message) noexcept {
  try {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    snapshot_.state = state;
    snapshot_.exitCode = exitCode;
    snapshot_.message = std::string(message);
    if (state == ProgressState::Done) snapshot_.fraction = 1.0;
    writeLocked();
  } catch (...) {
    // Nothing to do on the way out: the reader sees the last running state and the job's end.
  }
}

}  // namespace tomowb::io
