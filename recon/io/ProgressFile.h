// ProgressFile: a run's progress as a small JSON file that another process (the cluster client of
// recon/cluster, a script, the window) can follow while the run goes on (issue #22, point 5).
// `tomowb-cli --progress-file FILE` writes it from the job's ProgressSink reports:
//
//   {"format": "tomowb-progress", "version": 1, "state": "running", "stage": "slabs",
//    "fraction": 0.42, "message": "", "rank": 0, "ranks": 2, "pid": 1234, "host": "node1",
//    "started": "2026-11-27T04:13:05Z", "updated": "2026-11-27T04:13:09Z", "exitCode": null}
//
// state is running, done, failed or cancelled; message says why a run failed. Every write
// replaces the file atomically (io::AtomicFileWriter: a reader never sees half a file), at most
// every `minimumInterval` while running, and always for a change of stage and at the end.
//
// Several ranks (a run started by srun or mpirun) each write their own file: rank K of N > 1
// writes progressPathForRank(FILE, K, N) = "<stem>.rank<K><ext>"; readers combine them with
// combineProgress().
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/job/ProgressSink.h"

namespace tomowb::io {

enum class ProgressState { Running, Done, Failed, Cancelled };
std::string_view progressStateName(ProgressState state);
// Throws FormatError naming the field for anything but the four names.
ProgressState progressStateFromName(std::string_view name, const std::filesystem::path& file);

struct ProgressSnapshot {
  ProgressState state = ProgressState::Running;
  std::string stage, message;
  double fraction = 0;
  int rank = 0, ranks = 1;
  long pid = 0;
  std::string host, started, updated;  // ISO 8601 UTC
  std::optional<int> exitCode;

  nlohmann::json toJson() const;
  // FormatError naming `file` and the field for a file that is not a progress file.
  static ProgressSnapshot fromJson(const nlohmann::json& json, const std::filesystem::path& file);
};

// "<stem>.rank<K><ext>" for a rank of several, `path` itself for a run of one rank.
std::filesystem::path progressPathForRank(const std::filesystem::path& path, int rank, int ranks);

// Reads a progress file; nullopt when it does not exist (yet). FormatError for one that is not a
// progress file, IoError when it cannot be read.
std::optional<ProgressSnapshot> readProgressFile(const std::filesystem::path& path);
// The same from text (a file read on another host); FormatError naming `origin`.
ProgressSnapshot parseProgressText(std::string_view text, const std::filesystem::path& origin);

// The progress of a whole run from the files of its ranks (any order, some maybe missing): the
// fraction is the mean over `ranks` (the largest rank count any file gives, at least
// `expectedRanks`; a missing rank counts 0, a finished one 1); failed if any failed, cancelled if
// any was cancelled, done only when every rank is done; stage and message of the first rank
// that failed, else of rank 0. nullopt without any file. (A slab run's ranks report the share of
// all slabs each has written; the cluster client counts the slabs in the manifests instead.)
std::optional<ProgressSnapshot> combineProgress(const std::vector<ProgressSnapshot>& ranks,
                                                int expectedRanks = 1);

// The ProgressSink that writes the file. Thread-safe; the first report writes at once.
class ProgressFileWriter : public ProgressSink {
 public:
  // IoError when the file cannot be written (its folder missing or read-only): a progress file
  // that cannot be written fails the run at its start, not silently.
  ProgressFileWriter(std::filesystem::path path, int rank, int ranks,
                     std::chrono::milliseconds minimumInterval = std::chrono::milliseconds(500));
  ~ProgressFileWriter() override = default;
  ProgressFileWriter(const ProgressFileWriter&) = delete;
  ProgressFileWriter& operator=(const ProgressFileWriter&) = delete;

  void report(std::string_view stage, double fraction) override;
  // The last word: state done/failed/cancelled, the exit code and a message. Never throws (it is
  // called on the way out of a failing run); a write that fails is dropped.
  void finish(ProgressState state, int exitCode, std::string_view message = {}) noexcept;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  void writeLocked();

  std::filesystem::path path_;
  std::chrono::milliseconds minimumInterval_;
  std::mutex mutex_;
  ProgressSnapshot snapshot_;
  std::chrono::steady_clock::time_point lastWrite_{};
  bool written_ = false, finished_ = false;
};

// The current time as ISO 8601 UTC ("2026-11-27T04:13:05Z").
std::string utcTimestamp();

}  // namespace tomowb::io
