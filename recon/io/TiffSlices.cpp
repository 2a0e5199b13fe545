// TiffSlices.cpp: listTiffSlices (TiffIo.h), the .tif/.tiff files of a per-slice series in
// natural order (slice_2 before slice_10), for readTiffInfo and readTiffSlices.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "recon/core/Error.h"
#include "recon/io/ReaderLimits.h"
#include "recon/io/TiffIo.h"

namespace tomowb::io {

namespace {

bool isDigit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// The run of digits starting at `from`, without leading zeros ("0" stays "0").
std::string_view digitRun(const std::string& s, std::size_t from, std::size_t& end) {
  end = from;
  while (end < s.size() && isDigit(s[end])) ++end;
  std::string_view run(s.data() + from, end - from);
  while (run.size() > 1 && run[0] == '0') run.remove_prefix(1);
  return run;
}

// "slice_2.tif" before "slice_10.tif": runs of digits compare by value, the rest by character.
bool naturalLess(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (isDigit(a[i]) && isDigit(b[j])) {
      std::size_t endA = i, endB = j;
      const std::string_view na = digitRun(a, i, endA), nb = digitRun(b, j, endB);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = endA;
      j = endB;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::string digitPattern(const std::string& name) {
  std::string pattern;
  for (char c : name) {
    const bool digit = isDigit(c);
    if (!digit || pattern.empty() || pattern.back() != '#') pattern.push_back(digit ? '#' : c);
  }
  return pattern;
}

bool hasTiffExtension(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".tif" || ext == ".tiff";
}

}  // namespace

std::vector<std::filesystem::path> listTiffSlices(const std::filesystem::path& folderOrFile) {
  std::error_code ec;
  const bool isFolder = std::filesystem::is_directory(folderOrFile, ec);
  const std::filesystem::path folder =
      isFolder ? folderOrFile : (folderOrFile.has_parent_path() ? folderOrFile.parent_path() : ".");
  const std::string pattern = isFolder ? "" : digitPattern(folderOrFile.filename().string());
  std::vector<std::filesystem::path> files;
  std::filesystem::directory_iterator it(folder, ec);
  if (ec) throw IoError(folder, "cannot list the folder: " + ec.message());
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !hasTiffExtension(entry.path())) continue;
    if (!isFolder && digitPattern(name) != pattern) continue;
    if (static_cast<std::int64_t>(files.size()) >= kMaxSeriesFiles)
      throw FormatError(folder, "holds more than 2^20 TIFF files");
    files.push_back(entry.path());
  }
  if (files.empty()) throw FormatError(folderOrFile, "no .tif or .tiff slice files found");
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return naturalLess(a.filename().string(), b.filename().string());
  });
  return files;
}

}  // namespace tomowb::io
