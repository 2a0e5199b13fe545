#include "recon/io/InputFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"
#include "recon/core/MemoryBudget.h"

namespace tomowb::io {

namespace {
std::string errnoText(int error) {
  char buffer[256];
  // GNU strerror_r may return a static string instead of filling the buffer.
  const char* text = ::strerror_r(error, buffer, sizeof buffer);
  return text;
}
}  // namespace

InputFile::InputFile(std::filesystem::path path, Symlinks symlinks) : path_(std::move(path)) {
  // O_NONBLOCK so that opening a FIFO does not wait for a writer; fstat then rejects it.
  const int noFollow = symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0;
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | noFollow);
  if (fd_ < 0 && errno == ELOOP && noFollow)
    throw FormatError(path_,
                      "is a symbolic link: a data file named by a header must be a regular file "
                      "in the header's folder (copy it there)");
  if (fd_ < 0) throw IoError(path_, "cannot open: " + errnoText(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0) {
    const int error = errno;
    ::close(fd_);
    throw IoError(path_, "cannot read its size: " + errnoText(error));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw FormatError(path_, "is not a regular file (a folder, device or pipe)");
  }
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(info.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::requireRange(std::uint64_t offset, std::uint64_t bytes,
                             std::string_view field) const {
  const auto end = addChecked(offset, bytes);
  if (!end || *end > size_) {
    throw FormatError(path_, field,
                      "truncated: needs " + std::to_string(bytes) + " bytes at offset " +
                          std::to_string(offset) + ", the file has " + std::to_string(size_) +
                          " bytes");
  }
}

void InputFile::readAt(std::uint64_t offset, std::span<std::byte> dst,
                       std::string_view field) const {
  requireRange(offset, dst.size(), field);
  std::size_t done = 0;
  while (done < dst.size()) {
    // Linux transfers at most about 2 GiB per call; ask for 1 GiB at a time.
    const std::size_t chunk = std::min<std::size_t>(dst.size() - done, std::size_t{1} << 30);
    const ssize_t got = ::pread(fd_, dst.data() + done, chunk, static_cast<off_t>(offset + done));
    if (got < 0) {
      if (errno == EINTR) continue;
      throw IoError(path_, "read failed at offset " + std::to_string(offset + done) + ": " +
                               errnoText(errno));
    }
    if (got == 0) {
      // The file shrank after we measured it.
      throw FormatError(path_, field,
                        "truncated: the file ended at offset " + std::to_string(offset + done));
    }
    done += static_cast<std::size_t>(got);
  }
}

std::string InputFile::readString(std::uint64_t offset, std::size_t bytes,
                                  std::string_view field) const {
  requireRange(offset, bytes, field);
  std::string text(bytes, '\0');
  readAt(offset, std::as_writable_bytes(std::span<char>(text)), field);
  return text;
}

std::string InputFile::readAll(std::uint64_t maxBytes, std::string_view what) const {
  if (size_ > maxBytes) {
    throw FormatError(path_, std::string(what) + " is " + formatBytes(size_) +
                                 ", more than the limit of " + formatBytes(maxBytes));
  }
  return readString(0, static_cast<std::size_t>(size_), what);
}

std::filesystem::path dataFileBesideHeader(const std::filesystem::path& header,
                                           std::string_view name, std::string_view field) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos) {
    std::string shown(name.substr(0, 64));
    for (char& c : shown)
      if (static_cast<unsigned char>(c) < 0x20) c = '?';
    throw FormatError(
        header, field,
        "must be a file name in the header's folder (no folder part, no '..'), got '" + shown +
            (name.size() > 64 ? "...'" : "'"));
  }
  return header.parent_path() / std::string(name);
}

}  // namespace tomowb::io
