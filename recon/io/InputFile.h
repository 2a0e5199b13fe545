// InputFile: a regular file opened for bounded, positioned reads. Readers ask it for byte ranges
// and it refuses, with a FormatError naming the file and the field, any range that lies beyond
// the end of the file, so no reader allocates or waits for data the file does not hold. It
// refuses folders, devices and pipes at open (a FIFO would block a plain open forever).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace tomowb::io {

// Whether the last component of the path may be a symbolic link. A data file that a header names
// (raw+JSON `dataFile`, MetaImage `ElementDataFile`) is opened with Refuse (O_NOFOLLOW), so a
// link planted beside a header cannot make it read /etc/shadow or a file outside its folder.
enum class Symlinks { Follow, Refuse };

class InputFile {
 public:
  // IoError if the file cannot be opened; FormatError if it is not a regular file, or with
  // Symlinks::Refuse, a symbolic link.
  explicit InputFile(std::filesystem::path path, Symlinks symlinks = Symlinks::Follow);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  std::uint64_t size() const noexcept { return size_; }

  // Throws FormatError(path, field, "truncated: ...") unless [offset, offset + bytes) lies inside
  // the file (overflow-safe).
  void requireRange(std::uint64_t offset, std::uint64_t bytes, std::string_view field) const;
  // Reads exactly dst.size() bytes at offset (after requireRange). IoError if the OS fails.
  void readAt(std::uint64_t offset, std::span<std::byte> dst, std::string_view field) const;
  std::string readString(std::uint64_t offset, std::size_t bytes, std::string_view field) const;
  // The whole file as text; FormatError naming `what` if it is longer than maxBytes.
  std::string readAll(std::uint64_t maxBytes, std::string_view what) const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The path of a data file that the header `header` names in its field `field`: a plain file name
// (no folder part, not "." or "..", no NUL) in the header's folder. FormatError naming the header
// and the field otherwise: a header cannot point elsewhere on the disk. Open it with
// Symlinks::Refuse.
std::filesystem::path dataFileBesideHeader(const std::filesystem::path& header,
                                           std::string_view name, std::string_view field);

}  // namespace tomowb::io
