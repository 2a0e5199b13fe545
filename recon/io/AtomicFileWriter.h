// AtomicFileWriter: writes a file under a temporary name in the target's folder and renames it
// into place on commit(), so a failed or cancelled write never leaves a partial file at the final
// path (the QSaveFile pattern of ux-and-robustness.md, section 5). commit() flushes the data to
// disk before the rename. Destroying the writer without commit(), or abandon(), removes the
// temporary file. Every writer in recon/io uses it; so may anything else that writes a file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

namespace tomowb::io {

class AtomicFileWriter {
 public:
  // Creates the temporary file beside finalPath. IoError if the folder is not writable, or if
  // finalPath exists and is not a regular file (checkReplaceableFile; checked again on commit).
  explicit AtomicFileWriter(std::filesystem::path finalPath);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  // IoError on a short write (disk full, quota).
  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  std::uint64_t bytesWritten() const noexcept { return bytesWritten_; }

  // For libraries that write through their own descriptor (libtiff): a duplicate of the
  // temporary file's descriptor. The caller owns it and closes it before commit().
  int duplicateHandle() const;

  // Flushes to disk, closes and renames onto the final path. IoError on failure, after which
  // the temporary file is gone and the final path is untouched.
  void commit();
  // Removes the temporary file now; the final path is untouched.
  void abandon() noexcept;

  bool committed() const noexcept { return committed_; }
  const std::filesystem::path& finalPath() const noexcept { return finalPath_; }
  const std::filesystem::path& temporaryPath() const noexcept { return temporaryPath_; }

 private:
  std::filesystem::path finalPath_;
  std::filesystem::path temporaryPath_;
  int fd_ = -1;
  std::uint64_t bytesWritten_ = 0;
  bool committed_ = false;
};

// Throws IoError unless `path` is absent or a regular file (or a symlink to one, or a dangling
// symlink): the writer replaces the target by renaming, which would silently swap a device node,
// a FIFO, a folder or a link to /dev/stdout (/proc/self/fd/1) for a regular file. Output to such
// a path is refused rather than written through: a rename cannot be atomic there, and writing
// through a device (as root: the system's own /dev/null) is never what a run record describes.
void checkReplaceableFile(const std::filesystem::path& path);

// A name for a temporary sibling of `finalPath` ("<dir>/.<name>.<tag>-<pid>-<n>-<random>"),
// shortened so that it stays within the 255-byte limit of a file name.
std::filesystem::path temporarySiblingName(const std::filesystem::path& finalPath,
                                           std::string_view tag);
// Whether `path` is named as temporarySiblingName(..., tag) names a file: what a writer killed
// before its commit (SIGKILL) leaves behind.
bool isTemporarySiblingName(const std::filesystem::path& path, std::string_view tag);

}  // namespace tomowb::io
