#include "recon/io/OutputSet.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <regex>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/RawVolumeIo.h"

namespace tomowb::io {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

fs::path withoutTrailingSeparator(fs::path path) {
  if (path.filename().empty() && path.has_parent_path()) return path.parent_path();
  return path;
}

fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : r;
}

std::string errnoText(int error) {
  char buffer[256];
  return ::strerror_r(error, buffer, sizeof buffer);
}

// Extensions of single-file outputs: an existing folder of such a name is not a TIFF series.
bool namesAFile(const fs::path& path) {
  static const char* kFileExtensions[] = {".json", ".raw", ".mhd", ".mha", ".tif",  ".tiff",
                                          ".npy",  ".mrc", ".st",  ".ali", ".rec",  ".map",
                                          ".mrcs", ".csv", ".pgm", ".md",  ".html", ".preali"};
  const std::string ext = lowerExtension(path);
  return std::any_of(std::begin(kFileExtensions), std::end(kFileExtensions),
                     [&](const char* e) { return ext == e; });
}

// Raw data first, run records last: a reader that takes no lock sees a header only once its
// data is in place, and a run record only with its outputs.
int commitOrder(const fs::path& name) {
  const std::string text = name.filename().string();
  if (lowerExtension(name) == ".raw") return 0;
  if (text.size() >= 9 && text.compare(text.size() - 9, 9, ".run.json") == 0) return 2;
  if (text == "run.json") return 2;
  return 1;
}

}  // namespace

std::vector<fs::path> filesWrittenFor(const fs::path& output) {
  const fs::path path = withoutTrailingSeparator(output);
  const std::string ext = lowerExtension(path);
  fs::path other = path;
  if (ext == ".mhd") return {path, other.replace_extension(".raw")};
  if (ext == ".json" || ext == ".raw") return {rawSidecarPathFor(path), rawDataPathFor(path)};
  return {path};
}

std::vector<fs::path> filesReadFor(const fs::path& input) {
  const fs::path path = withoutTrailingSeparator(input);
  const std::string ext = lowerExtension(path);
  std::error_code ec;
  try {
    if (ext == ".json" || ext == ".raw") {
      if (!fs::exists(rawSidecarPathFor(path), ec)) return {path};
      return {rawSidecarPathFor(path), readRawSidecar(path).dataPath};
    }
    if (ext == ".mhd" || ext == ".mha") return {path, readMetaImageHeader(path).dataPath};
  } catch (const std::exception&) {
    // Unreadable here: the reader will say why. Assume the default data file.
    if (ext == ".mhd") return {path, fs::path(path).replace_extension(".raw")};
    if (ext == ".json" || ext == ".raw") return {rawSidecarPathFor(path), rawDataPathFor(path)};
  }
  return {path};
}

bool sameFile(const fs::path& a, const fs::path& b) {
  struct stat sa {
  }, sb{};
  const bool ea = ::stat(a.c_str(), &sa) == 0, eb = ::stat(b.c_str(), &sb) == 0;
  if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  if (ea != eb) return false;
  return resolved(a) == resolved(b);
}

bool isWithin(const fs::path& inner, const fs::path& folder) {
  const fs::path rel = resolved(inner).lexically_relative(resolved(folder));
  if (rel.empty()) return false;
  const std::string first = rel.begin()->string();
  return first != "..";
}

OutputSet::OutputSet(const CancelToken* cancel) : cancel_(cancel) {}

OutputSet::~OutputSet() {
  abandon();
}

void OutputSet::addInput(const fs::path& path, std::string option, std::string role,
                         bool withDataFile) {
  if (path.empty()) return;
  if (role.empty()) role = option;
  inputs_.push_back({path, std::move(option), std::move(role),
                     withDataFile ? filesReadFor(path) : std::vector<fs::path>{path}});
}

void OutputSet::addOutput(const fs::path& path, std::string option) {
  if (path.empty()) return;
  outputs_.push_back({withoutTrailingSeparator(path), std::move(option), filesWrittenFor(path)});
}

void OutputSet::addReplacedFolder(const fs::path& folder, std::string option) {
  if (folder.empty()) return;
  const fs::path f = withoutTrailingSeparator(folder);
  replacedFolders_.push_back({f, std::move(option), {f}});
}

void OutputSet::check() const {
  for (std::size_t o = 0; o < outputs_.size(); ++o) {
    const Output& out = outputs_[o];
    for (const fs::path& file : out.files) {
      for (const Input& in : inputs_)
        for (const fs::path& read : in.files)
          if (sameFile(file, read))
            throw ParameterError(out.option, "writing '" + out.path.string() +
                                                 "' would overwrite '" + read.string() +
                                                 "', which the run reads (" + in.option + " '" +
                                                 in.path.string() + "'): choose another name");
      for (std::size_t p = o + 1; p < outputs_.size(); ++p)
        for (const fs::path& other : outputs_[p].files)
          if (sameFile(file, other))
            throw ParameterError(out.option, "'" + out.path.string() + "' and " +
                                                 outputs_[p].option + " '" +
                                                 outputs_[p].path.string() + "' both write '" +
                                                 file.string() + "': give them different names");
      for (const Output& folder : replacedFolders_)
        if (isWithin(file, folder.path))
          throw ParameterError(folder.option, "replacing the folder '" + folder.path.string() +
                                                  "' would delete " + out.option + " '" +
                                                  out.path.string() + "'");
    }
    std::error_code ec;
    if (fs::is_directory(out.path, ec)) {
      if (namesAFile(out.path))
        throw ParameterError(out.option, "'" + out.path.string() +
                                             "' is an existing folder, but the name asks for a " +
                                             out.path.extension().string() +
                                             " file: remove the folder or choose another name");
      if (!fs::is_empty(out.path, ec))
        throw ParameterError(out.option, "'" + out.path.string() +
                                             "' is a folder that already holds files: choose a "
                                             "new or empty folder");
    } else {
      for (const fs::path& file : out.files) checkReplaceableFile(file);
    }
  }
  for (const Output& folder : replacedFolders_) {
    for (const Input& in : inputs_)
      for (const fs::path& read : in.files)
        if (isWithin(read, folder.path))
          throw ParameterError(folder.option, "replacing the folder '" + folder.path.string() +
                                                  "' would delete '" + read.string() +
                                                  "', which the run reads (" + in.option +
                                                  "): choose another folder");
  }
}

fs::path OutputSet::staged(const fs::path& output) {
  const fs::path path = withoutTrailingSeparator(output);
  const fs::path destination = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path key = resolved(destination);
  // A trailing separator (a TIFF-slice folder, `-o slices/`) is kept: it names the format.
  const fs::path name = output.filename().empty() ? path.filename() / "" : path.filename();
  for (const Stage& s : stages_)
    if (resolved(s.destination) == key) return s.folder / name;
  std::error_code ec;
  Stage stage{destination, {}};
  fs::path base = destination / "tomowb-outputs";
  if (!fs::is_directory(destination, ec)) {
    // A folder the run creates (the demo's): staged whole beside it, renamed into place.
    if (destination.has_parent_path()) fs::create_directories(destination.parent_path(), ec);
    base = withoutTrailingSeparator(destination);
  }
  int lastError = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    stage.folder = temporarySiblingName(base, "staging");
    if (::mkdir(stage.folder.c_str(), 0777) == 0) {
      stages_.push_back(stage);
      return stage.folder / name;
    }
    lastError = errno;
    if (lastError != EEXIST) break;
  }
  throw IoError(destination, "cannot create a staging folder in " +
                                 (base.has_parent_path() ? base.parent_path().string() : ".") +
                                 ": " + errnoText(lastError));
}

void OutputSet::commit() {
  if (cancel_ && cancel_->requested()) {
    abandon();
    throw Cancelled();
  }
  // Lock every destination (or the parent of one still to be created), in a fixed order.
  std::vector<fs::path> lockPaths;
  for (const Stage& s : stages_) {
    std::error_code ec;
    fs::path p = fs::is_directory(s.destination, ec) ? s.destination : s.folder.parent_path();
    if (p.empty()) p = ".";
    lockPaths.push_back(resolved(p));
  }
  std::sort(lockPaths.begin(), lockPaths.end());
  lockPaths.erase(std::unique(lockPaths.begin(), lockPaths.end()), lockPaths.end());
  std::vector<int> locks;
  const auto unlock = [&] {
    for (const int fd : locks) ::close(fd);  // closing releases the flock
    locks.clear();
  };
  for (const fs::path& p : lockPaths) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;  // no lock possible: commit unlocked, as before
    locks.push_back(fd);
    while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
      if (cancel_ && cancel_->requested()) {  // interrupted while another run commits
        unlock();
        abandon();
        throw Cancelled();
      }
    }
  }

  struct Move {
    fs::path from, to, backup;
    bool done = false;
  };
  std::vector<Move> moves;
  std::vector<fs::path> emptiedStages;
  try {
    for (const Stage& s : stages_) {
      std::error_code ec;
      if (!fs::is_directory(s.destination, ec)) {
        moves.push_back({s.folder, s.destination, {}});
        continue;
      }
      std::vector<fs::path> entries;
      for (const auto& e : fs::directory_iterator(s.folder)) entries.push_back(e.path());
      std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
        return std::pair(commitOrder(a), a.filename()) < std::pair(commitOrder(b), b.filename());
      });
      for (const fs::path& e : entries) moves.push_back({e, s.destination / e.filename(), {}});
      emptiedStages.push_back(s.folder);
    }
    for (Move& m : moves) {
      struct stat target {};
      if (::lstat(m.to.c_str(), &target) == 0) {
        if (S_ISDIR(target.st_mode)) {
          std::error_code ec;
          if (!fs::is_empty(m.to, ec)) throw IoError(m.to, "is a folder that holds files");
          m.backup = temporarySiblingName(m.to, "old");
          if (::rename(m.to.c_str(), m.backup.c_str()) != 0)
            throw IoError(m.to, "cannot move the old folder aside: " + errnoText(errno));
        } else {
          checkReplaceableFile(m.to);
          // A hard link keeps the old file under its name until the new one replaces it.
          m.backup = temporarySiblingName(m.to, "old");
          if (::link(m.to.c_str(), m.backup.c_str()) != 0 &&
              ::rename(m.to.c_str(), m.backup.c_str()) != 0)
            throw IoError(m.to, "cannot keep the old file aside: " + errnoText(errno));
        }
      }
      if (::rename(m.from.c_str(), m.to.c_str()) != 0)
        throw IoError(m.to, "cannot move the finished file into place: " + errnoText(errno));
      m.done = true;
    }
  } catch (...) {
    // Put back what was there; the new files go back to (and with) the staging folders.
    for (auto m = moves.rbegin(); m != moves.rend(); ++m) {
      if (m->done) ::rename(m->to.c_str(), m->from.c_str());
      if (!m->backup.empty()) ::rename(m->backup.c_str(), m->to.c_str());
    }
    unlock();
    abandon();
    throw;
  }
  for (const Move& m : moves) {
    std::error_code ignored;
    if (!m.backup.empty()) fs::remove_all(m.backup, ignored);
  }
  for (const fs::path& folder : emptiedStages) ::rmdir(folder.c_str());
  for (const fs::path& p : lockPaths) {
    const int fd = ::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      ::fsync(fd);
      ::close(fd);
    }
  }
  unlock();
  stages_.clear();
}

std::string OutputSet::withFinalNames(std::string message) {
  // Staging folders are "<dir>/.<name>.staging-<pid>-<n>-<random>" (temporarySiblingName);
  // <name> is "tomowb-outputs" beside existing folders, else the folder to be created.
  static const std::regex kStaging(R"(\.([^/\s']+)\.staging-[0-9]+-[0-9]+-[0-9]+(/?))");
  std::string out;
  std::smatch m;
  while (std::regex_search(message, m, kStaging)) {
    out += m.prefix().str();
    if (m[1].str() != "tomowb-outputs") out += m[1].str() + m[2].str();
    message = m.suffix().str();
  }
  return out + message;
}

void OutputSet::abandon() noexcept {
  for (const Stage& s : stages_) {
    std::error_code ignored;
    fs::remove_all(s.folder, ignored);
  }
  stages_.clear();
}

}  // namespace tomowb::io
