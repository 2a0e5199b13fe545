// TiffIo.h's functions live in the Tiff*.cpp files: the readers in TiffRead.cpp, the writers in
// TiffWrite.cpp, the slice-series listing in TiffSlices.cpp. This file holds the libtiff plumbing
// they share (TiffInternal.h): messages captured per handle or per thread, never on stderr.
#include <tiffio.h>

#include <cstdarg>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "recon/core/Error.h"
#include "recon/io/TiffInternal.h"

namespace tomowb::io::detail {

namespace {

// libtiff's own allocations (directory arrays, strip buffers when not memory-mapped) stay
// below this; sample buffers are ours and checked separately.
constexpr tmsize_t kMaxLibtiffAllocation = tmsize_t{512} << 20;

thread_local TiffMessages* tCurrentMessages = nullptr;

std::string formatMessage(const char* module, const char* format, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, args);
  return module && *module ? std::string(module) + ": " + text : std::string(text);
}

void globalErrorHandler(const char* module, const char* format, va_list args) {
  if (tCurrentMessages) tCurrentMessages->error(formatMessage(module, format, args));
}

void globalWarningHandler(const char* module, const char* format, va_list args) {
  if (tCurrentMessages) tCurrentMessages->warning(formatMessage(module, format, args));
}

int handleError(TIFF*, void* userData, const char* module, const char* format, va_list args) {
  static_cast<TiffMessages*>(userData)->error(formatMessage(module, format, args));
  return 1;  // handled: libtiff does not print it
}

int handleWarning(TIFF*, void* userData, const char* module, const char* format, va_list args) {
  static_cast<TiffMessages*>(userData)->warning(formatMessage(module, format, args));
  return 1;
}

// libtiff prints to stderr by default; we never print, so the process-wide handlers only route
// messages to the calling thread's capture (and drop them when there is none).
void installGlobalHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    TIFFSetErrorHandler(globalErrorHandler);
    TIFFSetWarningHandler(globalWarningHandler);
  });
}

}  // namespace

ScopedMessages::ScopedMessages(TiffMessages& messages) : previous_(tCurrentMessages) {
  installGlobalHandlers();
  tCurrentMessages = &messages;
}

ScopedMessages::~ScopedMessages() {
  tCurrentMessages = previous_;
}

std::unique_ptr<TIFFOpenOptions, OptionsDeleter> openOptions(TiffMessages& messages) {
  std::unique_ptr<TIFFOpenOptions, OptionsDeleter> options(TIFFOpenOptionsAlloc());
  if (!options) throw OutOfMemoryError("cannot allocate libtiff open options");
  TIFFOpenOptionsSetMaxSingleMemAlloc(options.get(), kMaxLibtiffAllocation);
  TIFFOpenOptionsSetErrorHandlerExtR(options.get(), handleError, &messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options.get(), handleWarning, &messages);
  return options;
}

}  // namespace tomowb::io::detail
