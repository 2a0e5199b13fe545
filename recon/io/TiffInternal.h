// TiffInternal.h: what the Tiff*.cpp files share and nothing else includes: the name and version
// of our ImageDescription, libtiff's messages captured per handle (TiffIo.cpp), the handle and its
// open options. Moved out of TiffIo.cpp unchanged (issue #18, point 5).
#pragma once

#include <tiffio.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace tomowb::io::detail {

constexpr const char* kMetadataFormat = "tomowb-tiff";
constexpr int kMetadataVersion = 1;

// ---- libtiff messages: captured per handle (and, for calls without a handle, per thread) ----

struct TiffMessages {
  std::string firstError;
  std::string firstWarning;
  // libtiff replaced a StripByteCounts of 0 or one reaching beyond the end of the file with its
  // own guess (only a warning): the header lies, and the reader refuses the page.
  bool bogusByteCounts = false;
  void error(std::string text) {
    if (firstError.empty()) firstError = std::move(text);
  }
  void warning(std::string text) {
    if (text.find("Bogus \"StripByteCounts\"") != std::string::npos) bogusByteCounts = true;
    if (firstWarning.empty()) firstWarning = std::move(text);
  }
  // The first error (or warning) seen since the last call, for an exception message.
  std::string take(std::string_view fallback) {
    std::string text = !firstError.empty() ? firstError : std::string(fallback);
    if (firstError.empty() && !firstWarning.empty()) text += " (libtiff: " + firstWarning + ")";
    firstError.clear();
    firstWarning.clear();
    return text;
  }
};

// Routes libtiff's messages on this thread to `messages` while it lives (TiffIo.cpp).
class ScopedMessages {
 public:
  explicit ScopedMessages(TiffMessages& messages);
  ~ScopedMessages();
  ScopedMessages(const ScopedMessages&) = delete;
  ScopedMessages& operator=(const ScopedMessages&) = delete;
  ScopedMessages(ScopedMessages&&) = delete;
  ScopedMessages& operator=(ScopedMessages&&) = delete;

 private:
  TiffMessages* previous_;
};

struct TiffCloser {
  void operator()(TIFF* tif) const noexcept { TIFFClose(tif); }
};
using TiffHandle = std::unique_ptr<TIFF, TiffCloser>;

struct OptionsDeleter {
  void operator()(TIFFOpenOptions* options) const noexcept { TIFFOpenOptionsFree(options); }
};

// Open options that send the handle's messages to `messages` and bound libtiff's allocations.
std::unique_ptr<TIFFOpenOptions, OptionsDeleter> openOptions(TiffMessages& messages);

}  // namespace tomowb::io::detail
