// AtomicDirectoryWriter: builds a folder of files (a per-slice TIFF series, a DICOM series) under
// a temporary name beside the final folder and renames it into place on commit(), so a failed or
// cancelled export never leaves a half-written series (ux-and-robustness.md, section 5: write to
// "dir.partial/" and rename once complete). Destroying it without commit() removes the
// temporary folder and everything in it. The final folder must not exist or be empty, unless the
// caller asked to replace it (the user confirmed, or --force): then the old folder is moved aside
// only once the new one is complete, and removed after the new one is in place.
#pragma once

#include <filesystem>

namespace tomowb::io {

class AtomicDirectoryWriter {
 public:
  // Creates the temporary folder. IoError if the final folder holds files (and replaceExisting
  // is false), is not a folder, or the parent is not writable.
  explicit AtomicDirectoryWriter(std::filesystem::path finalFolder, bool replaceExisting = false);
  ~AtomicDirectoryWriter();
  AtomicDirectoryWriter(const AtomicDirectoryWriter&) = delete;
  AtomicDirectoryWriter& operator=(const AtomicDirectoryWriter&) = delete;

  // Where to write the files until commit().
  const std::filesystem::path& temporaryFolder() const noexcept { return temporaryFolder_; }
  const std::filesystem::path& finalFolder() const noexcept { return finalFolder_; }

  // Renames the temporary folder onto the final one (replacing a non-empty one only when asked).
  void commit();
  // Removes the temporary folder and its files now.
  void abandon() noexcept;

 private:
  std::filesystem::path finalFolder_;
  std::filesystem::path temporaryFolder_;
  bool replaceExisting_ = false;
  bool committed_ = false;
};

}  // namespace tomowb::io
