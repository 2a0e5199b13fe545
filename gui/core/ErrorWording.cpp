// ErrorWording: see the header. The rules look at what the core's errors say (recon/core/Error.h:
// FormatError's "field 'X': ...", the readers' "needs N bytes ... the file has M bytes", the JSON
// parser's "not valid JSON") in order from the most specific to the most general.
#include "gui/core/ErrorWording.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

namespace tomowb::gui {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool has(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The format a file name stands for, as lab staff call it ("MRC", "MetaImage"); empty if unknown.
std::string formatName(std::string_view fileName) {
  const std::string ext = lower(std::filesystem::path(std::string(fileName)).extension().string());
  if (ext == ".mrc" || ext == ".st" || ext == ".rec" || ext == ".ali" || ext == ".map" ||
      ext == ".mrcs" || ext == ".preali")
    return "MRC";
  if (ext == ".mhd" || ext == ".mha") return "MetaImage";
  if (ext == ".npy") return "NumPy";
  if (ext == ".tif" || ext == ".tiff") return "TIFF";
  if (ext == ".dcm") return "DICOM";
  if (ext == ".json") return "JSON";
  if (ext == ".raw") return "raw data";
  if (ext == ".lmf" || ext == ".lm") return "list-mode";
  return {};
}

}  // namespace

std::string ErrorWording::text() const {
  return detail.empty() ? plain : plain + "\n\nDetails: " + detail;
}

ErrorWording wordLoadError(std::string_view detail, std::string_view fileName) {
  ErrorWording w;
  w.detail = std::string(detail);
  const std::string d = lower(detail);
  const std::string format = formatName(fileName);
  // "needs N bytes at offset K, the file has M bytes" / "the file has M bytes but X declares N".
  static const std::regex shorter(
      R"(truncated|needs \d+ bytes|the file has \d+ bytes but|shorter than|unexpected end of file|short read)");
  if (has(d, "not enough memory") || has(d, "out of memory") || has(d, "bad_alloc"))
    w.plain = "There is not enough free memory to open this file.";
  else if (has(d, "not valid json") || has(d, "parse_error") || has(d, "parse error"))
    w.plain =
        "This file is not valid JSON: it may be cut off or damaged by an edit, so its "
        "description cannot be read.";
  else if (std::regex_search(d, shorter))
    w.plain = "The data file is shorter than its header says; it may be incomplete.";
  else if (has(d, "no such file") || has(d, "cannot open") || has(d, "does not exist") ||
           has(d, "not found") || has(d, "permission denied"))
    w.plain =
        "The file cannot be read: it is missing, moved, or you do not have permission to read it.";
  else if (has(d, "unknown format") || has(d, "unsupported") || has(d, "not a supported") ||
           has(d, "unknown file type") || has(d, "does not know"))
    w.plain = "The workbench cannot read this kind of file.";
  else if (has(d, "field '") || has(d, "header") || has(d, "magic"))
    w.plain = format.empty() || format == "raw data"
                  ? "This file's header is damaged or not in the format its name suggests."
                  : "This file is not a valid " + format + " file: its header is damaged.";
  else if (!format.empty() && format != "raw data")
    w.plain = "This " + format + " file could not be opened.";
  else
    w.plain = "The file could not be opened.";
  return w;
}

}  // namespace tomowb::gui
