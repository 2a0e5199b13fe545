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

void requireAbsentOrEmpty(const std::filesystem::path& folder) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(folder, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found) return;
  if (status.type() != std::filesystem::file_type::directory)
    throw IoError(folder, "exists and is not a folder");
  if (!std::filesystem::is_empty(folder, ec) || ec)
    throw IoError(folder, "exists and is not empty: choose a new or empty folder");
}

}  // namespace

AtomicDirectoryWriter::AtomicDirectoryWriter(std::filesystem::path finalFolder)
    : finalFolder_(withoutTrailingSeparator(std::move(finalFolder))) {
  requireAbsentOrEmpty(finalFolder_);
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
  try {
    requireAbsentOrEmpty(finalFolder_);
  } catch (...) {
    abandon();
    throw;
  }
  std::error_code ec;
  // rename(2) replaces an empty folder atomically and refuses a non-empty one.
  std::filesystem::rename(temporaryFolder_, finalFolder_, ec);
  if (ec) {
    abandon();
    throw IoError(finalFolder_, "cannot rename the finished folder into place: " + ec.message());
  }
  committed_ = true;
}

void AtomicDirectoryWriter::abandon() noexcept {
  if (committed_ || temporaryFolder_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(temporaryFolder_, ignored);
  temporaryFolder_.clear();
}

}  // namespace tomowb::io
