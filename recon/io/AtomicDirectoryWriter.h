// AtomicDirectoryWriter: builds a folder of files (a per-slice TIFF series, a DICOM series) under
// a temporary name beside the final folder and renames it into place on commit(), so a failed or
// cancelled export never leaves a half-written series (ux-and-robustness.md, section 5: write to
// "dir.partial/" and rename once complete). Destroying it without commit() removes the
// temporary folder and everything in it. The final folder must not exist or be empty: we never
// replace a folder that holds files.
#pragma once

#include <filesystem>

namespace tomowb::io {

class AtomicDirectoryWriter {
 public:
  // Creates the temporary folder. IoError if the final folder holds files or the parent is
  // not writable.
  explicit AtomicDirectoryWriter(std::filesystem::path finalFolder);
  ~AtomicDirectoryWriter();
  AtomicDirectoryWriter(const AtomicDirectoryWriter&) = delete;
  AtomicDirectoryWriter& operator=(const AtomicDirectoryWriter&) = delete;

  // Where to write the files until commit().
  const std::filesystem::path& temporaryFolder() const noexcept { return temporaryFolder_; }
  const std::filesystem::path& finalFolder() const noexcept { return finalFolder_; }

  // Renames the temporary folder onto the final one (replacing it only if empty).
  void commit();
  // Removes the temporary folder and its files now.
  void abandon() noexcept;

 private:
  std::filesystem::path finalFolder_;
  std::filesystem::path temporaryFolder_;
  bool committed_ = false;
};

}  // namespace tomowb::io
