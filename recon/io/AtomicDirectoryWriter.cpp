#include "recon/io/AtomicDirectoryWriter.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/AtomicFileWriter.h"

namespace tomowb::io {

namespace {

std::filesystem::path withoutTrailingSeparator(std::filesystem::path folder) {
  if (folder.filename().empty() && folder.has_parent_path()) return folder.parent_path();
  return folder;
}

// True if the folder holds files (and replacing was allowed), false if absent or empty.
bool checkFinalFolder(const std::filesystem::path& folder, bool replaceExisting) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(folder, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found) return false;
  if (status.type() != std::filesystem::file_type::directory)
    throw IoError(folder, "exists and is not a folder");
  if (std::filesystem::is_empty(folder, ec) && !ec) return false;
  if (!replaceExisting)
    throw IoError(folder,
                  "exists and is not empty: choose a new or empty folder, or confirm "
                  "replacing it");
  return true;
}

}  // namespace

AtomicDirectoryWriter::AtomicDirectoryWriter(std::filesystem::path finalFolder,
                                             bool replaceExisting)
    : finalFolder_(withoutTrailingSeparator(std::move(finalFolder))),
      replaceExisting_(replaceExisting) {
  checkFinalFolder(finalFolder_, replaceExisting_);
  int lastError = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporaryFolder_ = temporarySiblingName(finalFolder_, "partial");
    if (::mkdir(temporaryFolder_.c_str(), 0777) == 0) return;
    lastError = errno;
    if (lastError != EEXIST) break;
  }
  temporaryFolder_.clear();
  char buffer[256];
  throw IoError(finalFolder_, std::string("cannot create a folder beside it: ") +
                                  ::strerror_r(lastError, buffer, sizeof buffer));
}

AtomicDirectoryWriter::~AtomicDirectoryWriter() {
  abandon();
}

void AtomicDirectoryWriter::commit() {
  if (committed_) return;
  if (temporaryFolder_.empty()) throw IoError(finalFolder_, "commit after abandon");
  bool replacing = false;
  try {
    replacing = checkFinalFolder(finalFolder_, replaceExisting_);
  } catch (...) {
    abandon();
    throw;
  }
  std::error_code ec;
  std::filesystem::path oldFolder;
  if (replacing) {
    // Move the old folder aside only now that the new one is complete; put it back if the
    // new one cannot take its place.
    oldFolder = temporarySiblingName(finalFolder_, "old");
    std::filesystem::rename(finalFolder_, oldFolder, ec);
    if (ec) {
      abandon();
      throw IoError(finalFolder_,
                    "cannot move the old folder aside to replace it: " + ec.message());
    }
  }
  // rename(2) replaces an empty folder atomically and refuses a non-empty one.
  std::filesystem::rename(temporaryFolder_, finalFolder_, ec);
  if (ec) {
    const std::string problem = ec.message();
    if (!oldFolder.empty()) std::filesystem::rename(oldFolder, finalFolder_, ec);
    abandon();
    throw IoError(finalFolder_, "cannot rename the finished folder into place: " + problem);
  }
  committed_ = true;
  if (!oldFolder.empty()) std::filesystem::remove_all(oldFolder, ec);
}

void AtomicDirectoryWriter::abandon() noexcept {
  if (committed_ || temporaryFolder_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(temporaryFolder_, ignored);
  temporaryFolder_.clear();
}

}  // namespace tomowb::io
