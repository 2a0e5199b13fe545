// SlabRun: see the header.
#include "recon/scale/SlabRun.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "recon/core/Error.h"
#include "recon/core/HostMemory.h"
#include "recon/core/ParallelFor.h"
#include "recon/core/SecondsSince.h"
#include "recon/fdk/GpuFdkGeometry.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiffIo.h"
#include "recon/scale/Communicator.h"

namespace tomowb::scale {

namespace fs = std::filesystem;

bool isSliceFolderOutput(const fs::path& output) {
  return !output.has_filename() || output.extension().empty();
}

namespace {

constexpr const char* kManifestFormat = "tomowb-slab-manifest";
constexpr int kManifestVersion = 1;

// What the partial file, the manifests and the lock are named after: NAME.raw, or the folder.
fs::path outputBase(const fs::path& output) {
  if (io::isHdf5Path(output)) return output;
  if (!isSliceFolderOutput(output)) return io::rawDataPathFor(output);
  return output.has_filename() ? output : output.parent_path();
}

std::string errnoText(int error) {
  char buffer[256];
  // GNU strerror_r may return a static string instead of filling the buffer.
  return ::strerror_r(error, buffer, sizeof buffer);
}

nlohmann::json vector3(const Eigen::Vector3d& v) {
  return nlohmann::json::array({v.x(), v.y(), v.z()});
}

// What a resumed run must share with the run it finishes.
nlohmann::json fingerprintOf(const SlabPlan& plan, const ProjectionRowSource& source,
                             const SlabRunOptions& options) {
  nlohmann::json f;
  f["grid"] = {{"shape", {plan.grid.shape.nx, plan.grid.shape.ny, plan.grid.shape.nz}},
               {"voxelSizeMm", vector3(plan.grid.voxelSizeMm)},
               {"originMm", vector3(plan.grid.originMm)}};
  f["slabSlices"] = plan.slabSlices;
  f["slabs"] = plan.slabs.size();
  // Slabs reconstructed in mirrored pairs run another kernel than slabs alone (and so differ in
  // the last bits): a run in pairs resumes only a run in pairs.
  if (plan.mirrorPairs) f["mirrorPairs"] = true;
  f["parameters"] = options.parameters;
  nlohmann::json input = {{"views", plan.views}, {"rows", plan.detectorRows}, {"cols", plan.cols}};
  if (const fs::path path = source.path(); !path.empty()) {
    std::error_code ec;
    input["path"] = fs::absolute(path, ec).string();
    input["bytes"] = fs::file_size(path, ec);
    const auto modified = fs::last_write_time(path, ec);
    input["modified"] = static_cast<std::int64_t>(modified.time_since_epoch().count());
  }
  f["input"] = input;
  return f;
}

struct Manifest {  // NOLINT(bugprone-exception-escape): json members, never noexcept use
  nlohmann::json fingerprint;
  int rank = 0, ranks = 1;
  std::vector<int> finished;
  double readSeconds = 0, computeSeconds = 0, writeSeconds = 0;  // over all its runs
  // Coupled iterative runs: the last two checkpoints [{iteration, file}] this rank wrote.
  nlohmann::json checkpoints = nlohmann::json::array();
  nlohmann::json record() const {
    return {{"rank", rank},
            {"ranks", ranks},
            {"slabs", finished},
            {"readSeconds", readSeconds},
            {"computeSeconds", computeSeconds},
            {"writeSeconds", writeSeconds}};
  }
};

void saveManifest(const fs::path& path, const Manifest& m) {
  const nlohmann::json j = {{"format", kManifestFormat},
                            {"version", kManifestVersion},
                            {"rank", m.rank},
                            {"ranks", m.ranks},
                            {"finished", m.finished},
                            {"readSeconds", m.readSeconds},
                            {"computeSeconds", m.computeSeconds},
                            {"writeSeconds", m.writeSeconds},
                            {"checkpoints", m.checkpoints},
                            {"run", m.fingerprint}};
  io::AtomicFileWriter out(path);
  out.write(j.dump(2) + "\n");
  out.commit();
}

Manifest loadManifest(const fs::path& path, std::size_t slabCount) {
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open: " + errnoText(errno));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(path, std::string("is not a slab manifest (not JSON): ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kManifestFormat)
    throw FormatError(path, "format",
                      "is not a slab manifest ('" + std::string(kManifestFormat) + "')");
  if (j.value("version", 0) != kManifestVersion)
    throw FormatError(path, "version",
                      "is not " + std::to_string(kManifestVersion) + ", which this build reads");
  Manifest m;
  m.fingerprint = j.value("run", nlohmann::json());
  m.rank = j.value("rank", 0);
  m.ranks = j.value("ranks", 1);
  m.readSeconds = j.value("readSeconds", 0.0);
  m.computeSeconds = j.value("computeSeconds", 0.0);
  m.writeSeconds = j.value("writeSeconds", 0.0);
  m.checkpoints = j.value("checkpoints", nlohmann::json::array());
  if (!m.checkpoints.is_array()) throw FormatError(path, "checkpoints", "must be a list");
  for (const nlohmann::json& c : m.checkpoints)
    if (!c.is_object() || !c.value("iteration", nlohmann::json()).is_number_integer() ||
        c.value("iteration", -1) < 1 || (c.value("file", -1) != 0 && c.value("file", -1) != 1))
      throw FormatError(path, "checkpoints",
                        "lists " + c.dump() + ", not {\"iteration\": N >= 1, \"file\": 0 or 1}");
  const nlohmann::json finished = j.value("finished", nlohmann::json::array());
  if (!finished.is_array()) throw FormatError(path, "finished", "must be a list of slab numbers");
  for (const nlohmann::json& v : finished) {
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
        v.get<std::int64_t>() >= static_cast<std::int64_t>(slabCount))
      throw FormatError(
          path, "finished",
          "lists " + v.dump() + ", not a slab of this run's " + std::to_string(slabCount));
    m.finished.push_back(v.get<int>());
  }
  return m;
}

// Every manifest of `output` ("<name>.raw.rank<K>.manifest.json"), in name order.
std::vector<fs::path> manifestsOf(const fs::path& output) {
  const fs::path data = outputBase(output);
  const std::string prefix = data.filename().string() + ".rank";
  const std::string suffix = ".manifest.json";
  fs::path folder = data.parent_path();
  if (folder.empty()) folder = ".";
  std::vector<fs::path> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() > prefix.size() + suffix.size() && name.starts_with(prefix) &&
        name.ends_with(suffix))
      found.push_back(e.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// The first part of two fingerprints that differs, for the message. Pairing is not an option a
// user gives (fdkSlabsPairWithMirrors decides), so its message names the switch that resumes a
// run that went slab by slab.
std::string differingPart(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.value("mirrorPairs", false) != b.value("mirrorPairs", false))
    return std::string("mirrored slab pairs: that run went ") +
           (a.value("mirrorPairs", false) ? "in pairs, this one slab by slab"
                                          : "slab by slab, this one in pairs; "
                                            "TOMOWB_SLAB_MIRROR_PAIRS=off resumes it so");
  for (const char* key : {"grid", "slabSlices", "slabs", "parameters", "input"})
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) return key;
  return "run";
}

// The partial samples file: created with its size set, or opened with its size checked.
//  - Reserve::Whole (the checkpoint files): its disk space reserved at once, so that a full disk
//    shows before the run.
//  - Reserve::SizeOnly (the output): the planner checked the free space before the run, and each
//    slab's pages are allocated as it is written (a disk that fills up meanwhile fails that
//    write, and the manifests list the slabs before it). Reserving 4 GiB in tmpfs zeroed every
//    page under the file's lock for 0.9 s while the other ranks waited to open it
//    (bench/results/2026-11-27q).
// Slabs are written with pwrite. A shared mapping filled by several threads was tried and is
// slower: 1.8 to 2.0 s against 0.6 to 1.3 s per 2 GiB slab with 16 or 32 threads (the page
// faults contend), and slower on ext4 too (bench/results/2026-11-27t).
class PartialFile {
 public:
  enum class Reserve { Whole, SizeOnly };
  // The samples from byte `offset` on (an HDF5 file's dataset: a file at least that long that
  // only gets its samples' room reserved), or a file of exactly `bytes` (raw: offset 0).
  PartialFile(fs::path path, std::uint64_t bytes, std::uint64_t offset = 0,
              Reserve reserve = Reserve::Whole)
      : path_(std::move(path)), offset_(offset) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw IoError(path_, "cannot open for writing: " + errnoText(errno));
    struct stat info {};
    if (::fstat(fd_, &info) != 0) fail("cannot read its size", errno);
    const auto size = static_cast<std::uint64_t>(info.st_size);
    if (offset == 0 && size != bytes && size != 0) {
      ::close(fd_);
      fd_ = -1;
      throw FormatError(path_, "is " + std::to_string(size) + " bytes, not the " +
                                   std::to_string(bytes) +
                                   " of this run's volume: it belongs to another run; remove "
                                   "it and its manifests, or run without --resume");
    }
    if (reserve == Reserve::Whole) {
      if (offset > 0 || size != bytes) reserveOrRemove(bytes);
      return;
    }
    // Its whole size at once: ranks and processes opening it see all of it or nothing.
    if (size < offset + bytes && ::ftruncate(fd_, static_cast<off_t>(offset + bytes)) != 0) {
      const int error = errno;
      ::close(fd_);
      fd_ = -1;
      throw IoError(path_, "cannot set its size to " + std::to_string(offset + bytes) +
                               " bytes: " + errnoText(error));
    }
  }
  ~PartialFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  PartialFile(const PartialFile&) = delete;
  PartialFile& operator=(const PartialFile&) = delete;

  // Writes and flushes to the disk: a manifest only ever lists slabs that are on the disk.
  void write(std::uint64_t offset, const float* data, std::uint64_t bytes, int slab) {
    offset += offset_;
    const auto* p = reinterpret_cast<const char*>(data);
    std::uint64_t done = 0;
    while (done < bytes) {
      const std::size_t chunk =
          static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, std::uint64_t{1} << 30));
      const ssize_t n = ::pwrite(fd_, p + done, chunk, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("writing slab " + std::to_string(slab) + " failed", n < 0 ? errno : EIO);
      done += static_cast<std::uint64_t>(n);
    }
    if (::fdatasync(fd_) != 0) fail("flushing slab " + std::to_string(slab) + " failed", errno);
  }

  void read(std::uint64_t offset, float* data, std::uint64_t bytes) {
    offset += offset_;
    auto* p = reinterpret_cast<char*>(data);
    std::uint64_t done = 0;
    while (done < bytes) {
      const std::size_t chunk =
          static_cast<std::size_t>(std::min<std::uint64_t>(bytes - done, std::uint64_t{1} << 30));
      const ssize_t n = ::pread(fd_, p + done, chunk, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("reading the checkpoint failed", n < 0 ? errno : EIO);
      done += static_cast<std::uint64_t>(n);
    }
  }

 private:
  // Reserved now: a full disk shows here, before any work, not in the middle of the run.
  void reserveOrRemove(std::uint64_t bytes) {
    if (const int error =
            ::posix_fallocate(fd_, static_cast<off_t>(offset_), static_cast<off_t>(bytes));
        error != 0) {
      ::close(fd_);
      fd_ = -1;
      std::error_code ignored;
      fs::remove(path_, ignored);
      throw IoError(path_, "cannot reserve " + std::to_string(bytes) +
                               " bytes for the output: " + errnoText(error));
    }
  }
  [[noreturn]] void fail(const std::string& what, int error) const {
    throw IoError(path_, what + ": " + errnoText(error));
  }
  fs::path path_;
  std::uint64_t offset_ = 0;
  int fd_ = -1;
};

// A writer killed in the middle of a slice (SIGKILL, out of memory) leaves its temporary file,
// ".slice_NNNN.tif.partial-...", in the partial folder; the slab is redone on resume, so such
// files are only leftovers, and they must not go in place with the slices.
void removeStaleSliceTemporaries(const fs::path& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (io::isTemporarySiblingName(it->path(), "partial")) fs::remove(it->path(), ec);
}

// Puts the output in place once every slab is in; one rank does it (a lock file decides) and
// returns who wrote which slabs (the manifests' records) before their files go.
bool finishOutput(const fs::path& output, const SlabPlan& plan, nlohmann::json& ranksRecord) {
  const fs::path data = outputBase(output);
  const fs::path lock = fs::path(data.string() + ".finishing");
  const int fd = ::open(lock.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return false;  // another rank is putting it in place
    throw IoError(lock, "cannot create: " + errnoText(errno));
  }
  ::close(fd);
  std::error_code ec;
  const fs::path partial = partialPathFor(output);
  if (!fs::exists(partial, ec)) {  // another rank did it already
    fs::remove(lock, ec);
    return false;
  }
  if (io::isHdf5Path(output)) {
    // The HDF5 file carries its grid: it goes in place as it is.
    fs::rename(partial, data, ec);
    if (ec) {
      fs::remove(lock, ec);
      throw IoError(data, "cannot move the finished volume into place: " + ec.message());
    }
  } else if (isSliceFolderOutput(output)) {
    removeStaleSliceTemporaries(partial);
    // A folder in place of an older one: the old one aside first, removed once the new is in.
    const fs::path old = fs::path(data.string() + ".replaced");
    const bool replacing = fs::exists(data, ec);
    if (replacing) fs::rename(data, old, ec);
    if (!ec) fs::rename(partial, data, ec);
    if (ec) {
      if (replacing) fs::rename(old, data, ec);
      fs::remove(lock, ec);
      throw IoError(data, "cannot move the finished slices into place: " + ec.message());
    }
    if (replacing) fs::remove_all(old, ec);
  } else {
    io::AtomicFileWriter sidecar(io::rawSidecarPathFor(output));
    sidecar.write(io::volumeRawSidecarText(output, plan.grid.shape, plan.grid.voxelSizeMm,
                                           plan.grid.originMm));
    // Samples first: a sidecar never points at a missing or older sample file.
    fs::rename(partial, data, ec);
    if (ec) {
      fs::remove(lock, ec);
      throw IoError(data, "cannot move the finished samples into place: " + ec.message());
    }
    sidecar.commit();
  }
  ranksRecord = nlohmann::json::array();
  for (const fs::path& m : manifestsOf(output)) {
    ranksRecord.push_back(loadManifest(m, plan.slabs.size()).record());
    fs::remove(m, ec);
  }
  fs::remove(lock, ec);
  return true;
}

}  // namespace

fs::path partialPathFor(const fs::path& output) {
  return fs::path(outputBase(output).string() + ".partial");
}

fs::path manifestPathFor(const fs::path& output, int rank) {
  return fs::path(outputBase(output).string() + ".rank" + std::to_string(rank) + ".manifest.json");
}

std::int64_t earlierRunSlabSlices(const fs::path& output) {
  for (const fs::path& path : manifestsOf(output)) {
    std::ifstream in(path);
    // A manifest that is not one: the resume's own checks name it.
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("run") || !j["run"].is_object()) continue;
    const nlohmann::json& slices = j["run"].value("slabSlices", nlohmann::json());
    if (slices.is_number_integer() && slices.get<std::int64_t>() > 0)
      return slices.get<std::int64_t>();
  }
  return 0;
}

namespace {

// After a phase every rank did its part of: the ranks learn whether any failed. This rank's own
// error is rethrown; another rank's becomes an Error here (its message is in that rank's output).
void agree(Communicator& comm, std::exception_ptr& failure) {
  if (!comm.collective()) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  const bool everyone = comm.allOk(failure == nullptr);
  if (failure) std::rethrow_exception(failure);
  if (!everyone)
    throw Error(
        "another rank failed (its message is in its output); the manifests list every "
        "slab written, and the same command with --resume finishes the run");
}

}  // namespace

namespace {

// Whether the environment variable `name` is "off": the switches benchmarks use to run without
// one of the run's optimisations (TOMOWB_SLAB_READ_AHEAD, TOMOWB_SLAB_MIRROR_PAIRS).
bool switchedOff(const char* name) {
  const char* text = std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
  return text != nullptr && std::string(text) == "off";
}

// One rank's run, phase by phase. After each phase the ranks agree (agree()) before the next.
class SlabRunner {
 public:
  SlabRunner(ProjectionRowSource& source, const SlabAlgorithm& algorithm,
             const SlabRunOptions& options, JobContext& context, Communicator& comm)
      : source_(source),
        algorithm_(algorithm),
        options_(options),
        context_(context),
        comm_(comm),
        rank_(comm.rank()),
        ranks_(comm.size()),
        partial_(partialPathFor(options.output)),
        ownManifest_(manifestPathFor(options.output, comm.rank())) {}

  SlabRunReport run() {
    guarded(
        [this] { report_.plan = planSlabs(source_.geometry(), algorithm_.grid, options_.plan); });
    agreeOnSlabHeight();
    fingerprint_ = fingerprintOf(report_.plan, source_, options_);
    manifest_ = Manifest{fingerprint_, rank_, ranks_, {}};
    // What earlier runs wrote (resume), or a clean start; talking ranks all read before any writes.
    guarded([this] {
      if (!options_.resume) return clearEarlierRun();
      readDone();
      chooseCheckpoint();
    });
    report_.doneBefore = static_cast<int>(done_.size());
    // The output's samples: reserved by rank 0 first when the ranks talk, then opened by the rest.
    // (Every rank takes part in every agreement, whether it has work in the phase or not.)
    guarded([this] {
      if (!comm_.collective() || rank_ == 0) openPartial();
    });
    guarded([this] {
      if (comm_.collective() && rank_ != 0) openPartial();
    });
    if (algorithm_.block) {
      guarded([this] { checkBlocks(); });
      reconstructBlock();
    } else {
      guarded([this] { reconstructMine(); });
    }
    file_.reset();
    checkpointFiles_[0].reset();
    checkpointFiles_[1].reset();
    finish();
    return std::move(report_);
  }

 private:
  // Runs `phase`, then the ranks agree on whether everyone's went well.
  template <typename Phase>
  void guarded(Phase phase) {
    std::exception_ptr failure;
    try {
      phase();
    } catch (...) {
      failure = std::current_exception();
    }
    agree(comm_, failure);
  }

  void agreeOnSlabHeight() {
    if (!comm_.collective()) return;
    // Every rank the same slabs: the tallest that the smallest memory of any rank holds.
    const std::int64_t slices = comm_.minimum(report_.plan.slabSlices);
    if (slices == report_.plan.slabSlices) return;
    SlabPlanOptions o = options_.plan;
    o.slabSlices = slices;
    report_.plan = planSlabs(source_.geometry(), algorithm_.grid, o);
  }

  void readDone() {
    std::error_code ec;
    if (!fs::exists(partial_, ec))
      throw IoError(partial_, "is missing: there is no unfinished run of " +
                                  options_.output.string() + " to resume; run without --resume");
    for (const fs::path& path : manifestsOf(options_.output)) {
      const Manifest earlier = loadManifest(path, report_.plan.slabs.size());
      if (algorithm_.block && earlier.ranks != ranks_)
        throw FormatError(path, "was written by a run of " + std::to_string(earlier.ranks) +
                                    " ranks: an iterative run whose slabs exchange detector rows "
                                    "resumes with as many ranks (mpirun -np " +
                                    std::to_string(earlier.ranks) + ")");
      if (earlier.fingerprint != fingerprint_)
        throw FormatError(path, "belongs to another run of this output (its " +
                                    differingPart(earlier.fingerprint, fingerprint_) +
                                    " differs): remove it and " + partial_.filename().string() +
                                    ", or run without --resume");
      done_.insert(earlier.finished.begin(), earlier.finished.end());
      if (algorithm_.block) {
        ++manifestsRead_;
        for (const nlohmann::json& c : earlier.checkpoints) {
          ++checkpointHolders_[c.value("iteration", 0)];
          checkpointFile_[c.value("iteration", 0)] = c.value("file", 0);
        }
      }
      // This rank's file is rewritten below: it keeps what it listed.
      if (path.filename() == ownManifest_.filename()) {
        manifest_ = earlier;  // its slabs and seconds, as this run's rank and ranks
        manifest_.rank = rank_;
        manifest_.ranks = ranks_;
      }
    }
  }

  // Coupled: the newest checkpoint every rank wrote (each lists one only once all had written it)
  // is where the resumed run goes on; slabs finished by some ranks only are redone from there.
  void chooseCheckpoint() {
    if (!algorithm_.block || done_.size() == report_.plan.slabs.size()) return;
    done_.clear();
    manifest_.finished.clear();
    if (manifestsRead_ != ranks_) return;
    for (const auto& [iteration, holders] : checkpointHolders_)
      if (holders == ranks_) resumeIteration_ = std::max(resumeIteration_, iteration);
    if (resumeIteration_ > 0) nextCheckpointFile_ = 1 - checkpointFile_[resumeIteration_];
  }

  fs::path checkpointPath(int file) const {
    return fs::path(outputBase(options_.output).string() + ".checkpoint" + std::to_string(file));
  }
  bool checkpointing() const {
    return algorithm_.block && (options_.checkpointEvery > 0 || options_.checkpointMinutes > 0);
  }

  void clearEarlierRun() {
    std::error_code ec;
    fs::remove(ownManifest_, ec);
    // An earlier unfinished run of this output goes, so that nothing of it can be mixed into a
    // later resume: by the only process, or by rank 0 of talking ranks. (Ranks that do not talk
    // start at different moments: each clears only its own.)
    if (ranks_ == 1 || (comm_.collective() && rank_ == 0)) {
      for (const fs::path& m : manifestsOf(options_.output)) fs::remove(m, ec);
      fs::remove_all(partial_, ec);  // a file, or a folder of slices
      removeCheckpoints();
    }
  }

  void openPartial() {
    std::error_code ec;
    if (!fs::exists(partial_, ec))
      checkDiskRoom(options_.output,
                    checkpointing() ? 3 * report_.plan.volumeBytes : report_.plan.volumeBytes,
                    options_.freeDiskBytes, checkpointing() ? "with its two checkpoint files" : "");
    if (checkpointing())  // both checkpoint files reserved now: a full disk shows before the run
      for (const int f : {0, 1})
        checkpointFiles_[f] =
            std::make_unique<PartialFile>(checkpointPath(f), report_.plan.volumeBytes);
    if (isSliceFolderOutput(options_.output)) {
      fs::create_directories(partial_, ec);
      if (ec) throw IoError(partial_, "cannot create the folder: " + ec.message());
      return;
    }
    if (io::isHdf5Path(options_.output)) {
      // Created once, under a name of this process's and then linked into place, so that ranks
      // starting together never truncate each other's file; the samples written by offset.
      if (!fs::exists(partial_, ec)) {
        const fs::path creating(partial_.string() + ".creating." + std::to_string(::getpid()));
        io::createHdf5VolumeFile(creating, report_.plan.grid);
        const bool linked = ::link(creating.c_str(), partial_.c_str()) == 0;
        const int error = errno;
        fs::remove(creating, ec);
        if (!linked && error != EEXIST)
          throw IoError(partial_, "cannot create: " + errnoText(error));
      }
      const std::uint64_t offset = io::hdf5VolumeDataOffset(partial_, report_.plan.grid);
      file_ = std::make_unique<PartialFile>(partial_, report_.plan.volumeBytes, offset,
                                            PartialFile::Reserve::SizeOnly);
      return;
    }
    file_ = std::make_unique<PartialFile>(partial_, report_.plan.volumeBytes, 0,
                                          PartialFile::Reserve::SizeOnly);
  }

  // Talking ranks share the pieces of work left (SlabPlan::units: slabs, or mirrored pairs of
  // them; a resume is balanced). Ranks that do not talk own the same share of the plan's pieces
  // whatever is done, so that they agree without talking. A piece is left while any of its slabs
  // is.
  std::vector<std::vector<int>> myUnits() const {
    const std::vector<std::vector<int>> units = report_.plan.units();
    const auto left = [&](const std::vector<int>& unit) {
      return std::any_of(unit.begin(), unit.end(), [&](int i) { return done_.count(i) == 0; });
    };
    std::vector<int> every, pending;
    for (int u = 0; u < static_cast<int>(units.size()); ++u) {
      every.push_back(u);
      if (left(units[static_cast<std::size_t>(u)])) pending.push_back(u);
    }
    std::vector<std::vector<int>> mine;
    for (const int u : SlabPlan::share(comm_.collective() ? pending : every, rank_, ranks_))
      if (left(units[static_cast<std::size_t>(u)]))
        mine.push_back(units[static_cast<std::size_t>(u)]);
    return mine;
  }

  // A piece's rows and volume: a slab alone or a mirrored pair next to each other (one slab
  // across the centre, which the z-mirror kernel takes as it is), or a pair apart (the two bands
  // of fdk::FdkMirrorPair, mirror images of each other, so that the kernel's texels pair row r
  // with row rows-1-r).
  struct UnitWork {
    Slab slab;  // the slabs' span (a slab alone, or a pair next to each other)
    bool apart = false;
    fdk::FdkMirrorPair pair;
    std::vector<std::pair<std::int64_t, std::int64_t>> bands;  // inclusive, apart only
    VolumeGrid grid;  // the volume's: the slabs' slices one after the other
  };
  UnitWork unitWork(const std::vector<int>& unit) const {
    const SlabPlan& plan = report_.plan;
    const Slab& lower = plan.slabs[static_cast<std::size_t>(unit.front())];
    const Slab& upper = plan.slabs[static_cast<std::size_t>(unit.back())];
    UnitWork w;
    w.slab = lower;
    w.slab.z1 = upper.z1;
    w.slab.rowFirst = std::min(lower.rowFirst, upper.rowFirst);
    w.slab.rowLast = std::max(lower.rowLast, upper.rowLast);
    w.grid = plan.slabGrid(w.slab);
    if (unit.size() == 1 || upper.z0 == lower.z1) return w;
    w.apart = true;
    const std::int64_t rows = plan.detectorRows;
    const std::int64_t first = std::min(lower.rowFirst, rows - 1 - upper.rowLast),
                       last = std::max(lower.rowLast, rows - 1 - upper.rowFirst);
    if (last + 1 >= rows - 1 - last)  // the mirror bands meet or touch: one across the centre
      w.bands = {{first, rows - 1 - first}};
    else
      w.bands = {{first, last}, {rows - 1 - last, rows - 1 - first}};
    w.pair.geometry = source_.geometry();
    w.pair.whole = plan.grid;
    w.pair.z0 = lower.z0;
    w.pair.z1 = lower.z1;
    for (const auto& [a, b] : w.bands) w.pair.bands.push_back({a, b - a + 1});
    w.grid = plan.slabGrid(lower);
    w.grid.shape.nz = lower.slices() + upper.slices();
    return w;
  }

  // A piece's rows: its band of every view, or a pair's two bands.
  struct UnitRows {
    ProjectionStack rows;
    double seconds = 0;  // the read's own time, wherever it ran
  };
  UnitRows readUnit(const UnitWork& work) {
    const auto start = std::chrono::steady_clock::now();
    ProjectionStack rows = work.apart ? source_.readRowBands(work.bands)
                                      : source_.readRows(work.slab.rowFirst, work.slab.rowLast);
    return {std::move(rows), secondsSince(start)};
  }

  // A piece's rows (read ahead in `coming`, else now), its volume allocated and pinned on a
  // thread of its own meanwhile, and reconstructed; once its rows are in, the next piece's (`next`,
  // if any) are read ahead into `coming` while this one is reconstructed. The read-ahead runs on a
  // thread of its own; only one read is ever under way, so a source is never read from two threads
  // at once. An error in it comes out when its piece's turn comes.
  std::shared_ptr<const Volume> reconstructUnit(const UnitWork& work, std::future<UnitRows>& coming,
                                                const std::vector<int>* next, double& read,
                                                double& compute) {
    std::future<std::shared_ptr<Volume>> allocating;
    if (algorithm_.slabInto)
      allocating = std::async(std::launch::async, [grid = work.grid] {
        return std::make_shared<Volume>(grid.makeVolume());
      });
    UnitRows got = coming.valid() ? coming.get() : readUnit(work);
    read = got.seconds;
    const ProjectionStack rows = std::move(got.rows);
    if (next != nullptr)
      coming = asyncWithCallersThreads([this, ahead = unitWork(*next)] { return readUnit(ahead); });
    const auto start = std::chrono::steady_clock::now();
    std::shared_ptr<const Volume> volume;
    if (allocating.valid()) {
      std::shared_ptr<Volume> into = allocating.get();
      if (work.apart)
        algorithm_.pairInto(rows, work.pair, *into, context_);
      else
        algorithm_.slabInto(rows, work.grid, *into, context_);
      volume = std::move(into);
    } else {
      volume = std::make_shared<const Volume>(algorithm_.slab(rows, work.grid, context_));
    }
    compute = secondsSince(start);
    return volume;
  }

  // The slabs of `unit` in `toWrite` from the piece's volume, where they lie one after another.
  void writeUnit(const std::vector<int>& unit, const std::vector<int>& toWrite,
                 const Volume& volume, std::uint64_t sliceBytes) {
    const std::size_t sliceVoxels = sliceBytes / 4;
    std::size_t at = 0;
    for (const int index : unit) {
      const Slab& slab = report_.plan.slabs[static_cast<std::size_t>(index)];
      const std::size_t voxels = static_cast<std::size_t>(slab.slices()) * sliceVoxels;
      if (std::find(toWrite.begin(), toWrite.end(), index) != toWrite.end())
        writeSlab(slab, volume.voxels().subspan(at, voxels), sliceBytes);
      at += voxels;
    }
  }

  // Each piece is written on a thread of its own while the next one is reconstructed, and the
  // rows of the one after are read ahead meanwhile (SlabPlan::peakHostBytes counts the two pieces
  // and those rows); a slab enters the manifest only once its write is flushed, and a cancel or a
  // failure still waits for (and lists) the piece being written.
  void reconstructMine() {
    const SlabPlan& plan = report_.plan;
    const std::uint64_t sliceBytes = static_cast<std::uint64_t>(plan.grid.shape.nx) *
                                     static_cast<std::uint64_t>(plan.grid.shape.ny) * 4;
    struct Writing {
      std::vector<int> indices;
      double read = 0, compute = 0;
      std::future<double> seconds;
    } writing;
    // The piece being written, once flushed: into the manifest and the report.
    const auto settle = [&] {
      if (writing.indices.empty()) return;
      const std::vector<int> indices = std::move(writing.indices);
      writing.indices.clear();
      const double write = writing.seconds.get();  // rethrows the write's error
      for (const int index : indices) {
        manifest_.finished.push_back(index);
        report_.computed.push_back(index);
      }
      manifest_.readSeconds += writing.read;
      manifest_.computeSeconds += writing.compute;
      manifest_.writeSeconds += write;
      saveManifest(ownManifest_, manifest_);
      report_.readSeconds += writing.read;
      report_.computeSeconds += writing.compute;
      report_.writeSeconds += write;
      context_.reportProgress(
          "slabs", double(done_.size() + report_.computed.size()) / double(plan.slabs.size()));
    };
    const std::vector<std::vector<int>> units = myUnits();
    std::future<UnitRows> coming;  // the next piece's rows, read ahead
    // TOMOWB_SLAB_READ_AHEAD=off reads each piece's rows when its turn comes (benchmarks: the
    // read-ahead pins its buffer beside the GPU pipeline, whose CUDA calls wait for a
    // registration's driver lock).
    const bool ahead = !switchedOff("TOMOWB_SLAB_READ_AHEAD");
    try {
      for (std::size_t u = 0; u < units.size(); ++u) {
        const std::vector<int>& unit = units[u];
        context_.throwIfCancelled();
        double read = 0, compute = 0;
        const std::shared_ptr<const Volume> volume =
            reconstructUnit(unitWork(unit), coming,
                            ahead && u + 1 < units.size() ? &units[u + 1] : nullptr, read, compute);
        settle();
        // The slabs an earlier run did not write (a resume may find one of a pair written).
        std::vector<int> toWrite;
        for (const int index : unit)
          if (done_.count(index) == 0) toWrite.push_back(index);
        writing.indices = toWrite;
        writing.read = read;
        writing.compute = compute;
        writing.seconds = asyncWithCallersThreads([this, unit, toWrite, volume, sliceBytes] {
          const auto began = std::chrono::steady_clock::now();
          writeUnit(unit, toWrite, *volume, sliceBytes);
          return secondsSince(began);
        });
      }
      settle();
    } catch (...) {
      // The piece on its way to the disk is kept (and listed) whatever stopped the run.
      try {
        settle();
      } catch (...) {  // NOLINT(bugprone-empty-catch): the first error is the one to report
      }
      throw;
    }
  }

  // Coupled: every rank must own a slab (the ranks' blocks are contiguous shares of them).
  void checkBlocks() const {
    const auto slabs = static_cast<int>(report_.plan.slabs.size());
    if (ranks_ > slabs)
      throw ParameterError("ranks", std::to_string(ranks_) + " ranks share " +
                                        std::to_string(slabs) + " slab" + (slabs == 1 ? "" : "s") +
                                        ": use --slab-slices of at most " +
                                        std::to_string(report_.plan.grid.shape.nz / ranks_) +
                                        " so that each rank has one");
    if (!comm_.collective() && ranks_ > 1)
      throw ParameterError("ranks",
                           algorithm_.name +
                               " of this geometry exchanges detector rows between the ranks' "
                               "slabs after every projection: start its ranks with mpirun (a "
                               "build with MPI), not with --rank/--ranks");
  }

  // Coupled: this rank's block of slabs, solved with the others' (the ranks exchange the rows
  // their bands share), then written at once. A failure here would leave the other ranks waiting
  // in an exchange: it ends them all (the checkpoints stay for --resume).
  void reconstructBlock() {
    const SlabPlan& plan = report_.plan;
    if (done_.size() == plan.slabs.size()) return;  // an earlier run wrote every slab
    std::vector<RowBand> bands;
    for (int k = 0; k < ranks_; ++k) {
      const Slab b = plan.blockOf(k, ranks_);
      bands.push_back({b.rowFirst, b.rowLast});
    }
    const Slab block = plan.blockOf(rank_, ranks_);
    std::vector<int> mine;
    for (const Slab& s : plan.slabs)
      if (s.z0 >= block.z0 && s.z1 <= block.z1) mine.push_back(s.index);
    const std::int64_t z0 = block.z0, z1 = block.z1;
    const std::uint64_t sliceBytes = static_cast<std::uint64_t>(plan.grid.shape.nx) *
                                     static_cast<std::uint64_t>(plan.grid.shape.ny) * 4;
    Volume volume;
    try {
      auto start = std::chrono::steady_clock::now();
      const RowBand& band = bands[std::size_t(rank_)];
      const ProjectionStack rows = source_.readRows(band.first, band.last);
      const double read = secondsSince(start);
      start = std::chrono::steady_clock::now();
      BlockProblem problem{rows, plan.slabGrid(block), {}, bands, comm_, plan.cols};
      for (const int k : mine) problem.slabs.push_back(plan.slabs[std::size_t(k)]);
      if (rank_ == 0) problem.uncoveredSquares = uncoveredSquares(bands);
      Volume resumed;
      if (resumeIteration_ > 0) {
        std::optional<FileBackedHostBuffers> onDisk;  // out of core: so is the checkpoint read
        if (!options_.volumeFolder.empty()) onDisk.emplace(options_.volumeFolder, 1);
        resumed = problem.grid.makeVolume();
        PartialFile from(checkpointPath(checkpointFile_[resumeIteration_]), plan.volumeBytes);
        from.read(static_cast<std::uint64_t>(z0) * sliceBytes, resumed.data(),
                  static_cast<std::uint64_t>(z1 - z0) * sliceBytes);
        problem.iterationsBefore = resumeIteration_;
        problem.start = &resumed;
        report_.resumedFromIteration = resumeIteration_;
      }
      problem.afterIteration = [&](int iteration,
                                   const std::function<const float*(Volume&)>& iterate) {
        checkpoint(iteration, iterate, z0, z1 - z0, sliceBytes);
      };
      lastCheckpoint_ = std::chrono::steady_clock::now();
      volume = algorithm_.block(problem, context_);
      const double compute = secondsSince(start);
      manifest_.readSeconds += read;
      manifest_.computeSeconds += compute;
      report_.readSeconds += read;
      report_.computeSeconds += compute;
    } catch (const std::exception& e) {
      if (comm_.collective() && ranks_ > 1)
        comm_.abortAll(dynamic_cast<const Cancelled*>(&e) != nullptr
                           ? std::string("interrupted; the same command with --resume goes on "
                                         "from the last checkpoint")
                           : std::string(e.what()));
      throw;
    }
    guarded([&] {
      const auto start = std::chrono::steady_clock::now();
      writeSlices(z0, z1 - z0, volume, sliceBytes, mine.front());
      const double write = secondsSince(start);
      manifest_.finished = mine;
      manifest_.writeSeconds += write;
      report_.writeSeconds += write;
      saveManifest(ownManifest_, manifest_);
      report_.computed = mine;
    });
  }

  // ||b||^2 per view of the rows no band holds, read a band of rows at a time.
  std::vector<double> uncoveredSquares(const std::vector<RowBand>& bands) {
    const std::int64_t rows = report_.plan.detectorRows;
    std::vector<bool> covered(static_cast<std::size_t>(rows), false);
    for (const RowBand& b : bands)
      for (std::int64_t r = std::max<std::int64_t>(b.first, 0); r <= std::min(b.last, rows - 1);
           ++r)
        covered[static_cast<std::size_t>(r)] = true;
    std::vector<double> sums(static_cast<std::size_t>(report_.plan.views), 0.0);
    for (std::int64_t first = 0; first < rows;) {
      if (covered[static_cast<std::size_t>(first)]) {
        ++first;
        continue;
      }
      std::int64_t last = first;
      while (last + 1 < rows && !covered[static_cast<std::size_t>(last + 1)] &&
             last + 1 - first < 64)
        ++last;
      const ProjectionStack part = source_.readRows(first, last);
      const std::size_t perView = static_cast<std::size_t>(part.rows() * part.cols());
      for (std::size_t v = 0; v < sums.size(); ++v)
        for (std::size_t i = 0; i < perView; ++i) {
          const double b = part.data()[v * perView + i];
          sums[v] += b * b;
        }
      first = last + 1;
    }
    return sums;
  }

  // After an iteration of a coupled run, on every rank: a checkpoint when one is due on any rank
  // (alternating between two files, so the last complete one survives a kill in the middle of
  // the next); a rank lists it in its manifest only once every rank has written its block.
  void checkpoint(int iteration, const std::function<const float*(Volume&)>& iterate,
                  std::int64_t z0, std::int64_t slices, std::uint64_t sliceBytes) {
    if (!checkpointing() || iteration >= algorithm_.iterations) return;
    bool due = options_.checkpointEvery > 0 && iteration % options_.checkpointEvery == 0;
    due = due || (options_.checkpointMinutes > 0 &&
                  secondsSince(lastCheckpoint_) >= options_.checkpointMinutes * 60.0);
    if (comm_.collective()) due = comm_.maximum(due ? 1.0 : 0.0) > 0;
    if (!due) return;
    Volume scratch;
    const float* voxels = iterate(scratch);
    const int f = nextCheckpointFile_;
    checkpointFiles_[f]->write(static_cast<std::uint64_t>(z0) * sliceBytes, voxels,
                               static_cast<std::uint64_t>(slices) * sliceBytes, -1);
    if (comm_.collective() && !comm_.allOk(true))
      throw Error("another rank failed writing the checkpoint of iteration " +
                  std::to_string(iteration));
    manifest_.checkpoints.push_back({{"iteration", iteration}, {"file", f}});
    while (manifest_.checkpoints.size() > 2) manifest_.checkpoints.erase(0);
    saveManifest(ownManifest_, manifest_);
    nextCheckpointFile_ = 1 - f;
    lastCheckpoint_ = std::chrono::steady_clock::now();
    ++report_.checkpointsWritten;
  }

  // Slices [z0, z0 + count) of the output from `volume` (which holds just those).
  void writeSlices(std::int64_t z0, std::int64_t count, const Volume& volume,
                   std::uint64_t sliceBytes, int slab) {
    Slab part;
    part.index = slab;
    part.z0 = z0;
    part.z1 = z0 + count;
    writeSlab(part, volume.voxels(), sliceBytes);
  }

  void writeSlab(const Slab& slab, std::span<const float> voxels, std::uint64_t sliceBytes) {
    if (file_) {
      file_->write(static_cast<std::uint64_t>(slab.z0) * sliceBytes, voxels.data(),
                   static_cast<std::uint64_t>(slab.slices()) * sliceBytes, slab.index);
      return;
    }
#if TOMOWB_HAVE_TIFF
    // A file per slice, written by several threads at once: the kernel lets one write() at a
    // time into a file, but files fill in parallel (2.2 to 2.5 GB/s into one tmpfs file on the
    // H100 machine, 9.2 GB/s into four: bench/results/2026-11-27y, which measured this with
    // one slab per rank). With several slabs the next one's read and compute run beside it, on
    // as many threads again: not measured.
    const SlabPlan& plan = report_.plan;
    const auto n = static_cast<std::size_t>(plan.grid.shape.nx * plan.grid.shape.ny);
    parallelFor(slab.slices(), [&](std::int64_t k) {
      io::writeTiffSeriesSlice(partial_, voxels.subspan(static_cast<std::size_t>(k) * n, n),
                               plan.grid.shape, plan.grid.voxelSizeMm, plan.grid.originMm,
                               slab.z0 + k);
    });
#else
    (void)slab;
    (void)voxels;
    (void)sliceBytes;
#endif
  }

  void removeCheckpoints() const {
    std::error_code ec;
    fs::remove(checkpointPath(0), ec);
    fs::remove(checkpointPath(1), ec);
  }

  // Every slab in (by the manifests of this run)? Then the output goes in place.
  void putOutputInPlace() {
    std::error_code ec;
    std::set<int> all;
    for (const fs::path& path : manifestsOf(options_.output)) {
      Manifest m;
      try {
        m = loadManifest(path, report_.plan.slabs.size());
      } catch (const IoError&) {
        // Gone between listing and reading: a rank that does not talk to this one found every
        // slab in first, put the output in place and removed the manifests.
        if (fs::exists(path, ec)) throw;
        continue;
      }
      if (m.fingerprint == fingerprint_) all.insert(m.finished.begin(), m.finished.end());
    }
    if (all.size() != report_.plan.slabs.size()) {
      // That other rank may be done already: no partial output left, the output in place.
      const fs::path final = isSliceFolderOutput(options_.output) || io::isHdf5Path(options_.output)
                                 ? outputBase(options_.output)
                                 : io::rawSidecarPathFor(options_.output);
      if (!fs::exists(partial_, ec) && fs::exists(final, ec)) report_.complete = true;
      return;
    }
    report_.complete = true;
    report_.finished = finishOutput(options_.output, report_.plan, report_.ranks);
    if (report_.finished) removeCheckpoints();
  }

  // Every slab in? Then the output goes in place, once: by rank 0 of talking ranks, after all
  // are done; else by whichever rank finds the last slab in (a lock file decides).
  void finish() {
    if (!comm_.collective()) {
      putOutputInPlace();
      return;
    }
    guarded([&] {
      if (rank_ == 0) putOutputInPlace();
    });
    report_.complete = true;  // every rank did its share and rank 0 put the output in place
  }

  ProjectionRowSource& source_;
  const SlabAlgorithm& algorithm_;
  const SlabRunOptions& options_;
  JobContext& context_;
  Communicator& comm_;
  const int rank_, ranks_;
  const fs::path partial_, ownManifest_;
  SlabRunReport report_;
  nlohmann::json fingerprint_;
  Manifest manifest_;
  std::set<int> done_;
  std::unique_ptr<PartialFile> file_;
  // Coupled iterative runs: checkpoints read from the manifests, and the ones written.
  int manifestsRead_ = 0;
  std::map<int, int> checkpointHolders_, checkpointFile_;
  int resumeIteration_ = 0, nextCheckpointFile_ = 0;
  std::unique_ptr<PartialFile> checkpointFiles_[2];
  std::chrono::steady_clock::time_point lastCheckpoint_ = std::chrono::steady_clock::now();
};

}  // namespace

SlabRunReport runSlabs(ProjectionRowSource& source, const SlabAlgorithm& algorithm,
                       const SlabRunOptions& options, JobContext& context) {
  LocalCommunicator local(options.rank, options.ranks);
  Communicator& comm = options.communicator != nullptr ? *options.communicator : local;
  const int rank = comm.rank(), ranks = comm.size();
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw ParameterError("rank", "must be in 0.." + std::to_string(ranks - 1) + " of " +
                                     std::to_string(ranks) + " ranks, got " + std::to_string(rank));
  const fs::path ext = options.output.extension();
  const bool usable = io::isHdf5Path(options.output)        ? io::hdf5VolumesSupported()
                      : isSliceFolderOutput(options.output) ? TOMOWB_HAVE_TIFF
                                                            : ext == ".raw" || ext == ".json";
  if (!usable)
    throw ParameterError("output",
                         "a volume reconstructed in slabs is written as our raw format "
                         "(NAME.raw with its NAME.json), as an HDF5 file (NAME.h5, a build with "
                         "HDF5) or as a folder of TIFF slices (a build with TIFF), got '" +
                             options.output.string() + "'");
  if (options.plan.mirrorPairs && (!algorithm.pairInto || !algorithm.slabInto))
    throw ParameterError("slab plan", algorithm.name +
                                          " cannot reconstruct slabs in mirrored pairs (only a "
                                          "GPU FDK with a z-mirror kernel can)");
  return SlabRunner(source, algorithm, options, context, comm).run();
}

bool fdkSlabsPairWithMirrors(const Geometry& geometry, const fdk::FdkParams& params) {
  if (switchedOff("TOMOWB_SLAB_MIRROR_PAIRS")) return false;
  return fdk::variantHasZMirrorKernel(params.variant) &&
         fdk::zMirrorProblem(geometry, params.volume).empty();
}

SlabRunReport reconstructFdkInSlabs(ProjectionRowSource& source, const fdk::FdkParams& params,
                                    const SlabRunOptions& givenOptions, JobContext& context) {
  SlabRunOptions options = givenOptions;
  options.plan.mirrorPairs = fdkSlabsPairWithMirrors(source.geometry(), params);
  SlabAlgorithm fdk;
  fdk.name = "FDK";
  fdk.grid = params.volume;
  fdk::FdkReport last;
  std::set<std::string> warnings;
  fdk.slabInto = [&](const ProjectionStack& rows, const VolumeGrid& grid, Volume& volume,
                     JobContext& slabContext) {
    fdk::FdkParams slabParams = params;
    slabParams.volume = grid;
    fdk::reconstructFdkInto(rows, slabParams, volume, slabContext, &last);
    warnings.insert(last.warnings.begin(), last.warnings.end());
  };
  fdk.pairInto = [&](const ProjectionStack& bands, const fdk::FdkMirrorPair& pair, Volume& volume,
                     JobContext& slabContext) {
    fdk::FdkParams pairParams = params;
    pairParams.volume = VolumeGrid::of(volume);
    pairParams.mirrorPair = &pair;
    fdk::reconstructFdkInto(bands, pairParams, volume, slabContext, &last);
    warnings.insert(last.warnings.begin(), last.warnings.end());
  };
  SlabRunReport report = runSlabs(source, fdk, options, context);
  report.lastSlab = std::move(last);
  report.warnings.assign(warnings.begin(), warnings.end());
  return report;
}

}  // namespace tomowb::scale
