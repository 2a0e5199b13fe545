#include "recon/io/AtomicFileWriter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include "recon/core/Error.h"

namespace tomowb::io {

namespace {

std::string errnoText(int error) {
  char buffer[256];
  return ::strerror_r(error, buffer, sizeof buffer);
}

// Makes the rename itself durable; best effort, as some file systems refuse fsync on folders.
void syncFolder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

const char* fileTypeName(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace

void checkReplaceableFile(const std::filesystem::path& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return;  // absent (or unreachable: open will say)
  if (S_ISREG(link.st_mode)) return;
  if (S_ISLNK(link.st_mode)) {
    // A link into /proc or /dev (/dev/stdout, /proc/self/fd/1) names a process's stream, whatever
    // file sits behind it now: replacing the link would not write there.
    std::error_code ec;
    const std::string text = std::filesystem::read_symlink(path, ec).string();
    struct stat target {};
    const bool resolves = ::stat(path.c_str(), &target) == 0;
    if (!ec && (text.rfind("/proc/", 0) == 0 || text.rfind("/dev/", 0) == 0))
      throw IoError(path, "is a symbolic link to " + text + " (" +
                              (resolves ? fileTypeName(target.st_mode) : "unreadable") +
                              "), a process's stream: outputs are written as regular files "
                              "only; give a file name");
    if (!resolves || S_ISREG(target.st_mode)) return;
    throw IoError(path, std::string("is a symbolic link to ") + fileTypeName(target.st_mode) +
                            ": outputs are written as regular files only; give a file name");
  }
  throw IoError(path, std::string("exists and is ") + fileTypeName(link.st_mode) +
                          ": outputs are written as regular files only; give a file name");
}

std::filesystem::path temporarySiblingName(const std::filesystem::path& finalPath,
                                           std::string_view tag) {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937 random{std::random_device{}()};
  std::string base = finalPath.filename().string();
  // Room for the dot, the tag and three numbers within NAME_MAX (255).
  if (base.size() > 180) base.resize(180);
  const std::string name = "." + base + "." + std::string(tag) + "-" + std::to_string(::getpid()) +
                           "-" + std::to_string(counter.fetch_add(1)) + "-" +
                           std::to_string(random() % 1000000);
  return finalPath.parent_path() / name;
}

bool isTemporarySiblingName(const std::filesystem::path& path, std::string_view tag) {
  const std::string name = path.filename().string();
  std::string marker(1, '.');  // ".<tag>-", as temporarySiblingName writes it
  marker.append(tag).push_back('-');
  return name.starts_with('.') && name.find(marker) != std::string::npos;
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path finalPath)
    : finalPath_(std::move(finalPath)) {
  if (finalPath_.filename().empty()) throw IoError(finalPath_, "is a folder name, not a file name");
  checkReplaceableFile(finalPath_);
  int lastError = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporaryPath_ = temporarySiblingName(finalPath_, "partial");
    // O_EXCL: never reuse another writer's file; mode 0666 lets the umask decide, as for any
    // other new file.
    fd_ = ::open(temporaryPath_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ >= 0) return;
    lastError = errno;
    if (lastError != EEXIST) break;
  }
  const std::filesystem::path folder =
      finalPath_.parent_path().empty() ? std::filesystem::path(".") : finalPath_.parent_path();
  throw IoError(finalPath_,
                "cannot create a file in " + folder.string() + ": " + errnoText(lastError));
}

AtomicFileWriter::~AtomicFileWriter() {
  abandon();
}

void AtomicFileWriter::write(const void* data, std::size_t bytes) {
  if (fd_ < 0) throw IoError(finalPath_, "write after commit or abandon");
  const auto* p = static_cast<const char*>(data);
  std::size_t done = 0;
  while (done < bytes) {
    const std::size_t chunk = std::min<std::size_t>(bytes - done, std::size_t{1} << 30);
    const ssize_t wrote = ::write(fd_, p + done, chunk);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      abandon();
      throw IoError(finalPath_, "write failed: " + errnoText(error));
    }
    done += static_cast<std::size_t>(wrote);
  }
  bytesWritten_ += bytes;
}

int AtomicFileWriter::duplicateHandle() const {
  if (fd_ < 0) throw IoError(finalPath_, "the file is already closed");
  const int fd = ::fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) throw IoError(finalPath_, "cannot duplicate the file handle: " + errnoText(errno));
  return fd;
}

void AtomicFileWriter::commit() {
  if (committed_) return;
  if (fd_ < 0) throw IoError(finalPath_, "commit after abandon or a failed write");
  if (::fsync(fd_) != 0) {
    const int error = errno;
    abandon();
    throw IoError(finalPath_, "cannot flush the data to disk: " + errnoText(error));
  }
  const int fd = std::exchange(fd_, -1);
  try {
    checkReplaceableFile(finalPath_);  // a FIFO or device may have appeared since the start
  } catch (...) {
    ::close(fd);
    abandon();
    throw;
  }
  if (::close(fd) != 0) {
    const int error = errno;
    abandon();
    throw IoError(finalPath_, "write failed while closing: " + errnoText(error));
  }
  if (::rename(temporaryPath_.c_str(), finalPath_.c_str()) != 0) {
    const int error = errno;
    abandon();
    throw IoError(finalPath_, "cannot rename the finished file into place: " + errnoText(error));
  }
  committed_ = true;
  syncFolder(finalPath_.parent_path());
}

void AtomicFileWriter::abandon() noexcept {
  if (committed_) return;
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temporaryPath_.empty()) {
    ::unlink(temporaryPath_.c_str());
    temporaryPath_.clear();
  }
}

}  // namespace tomowb::io
