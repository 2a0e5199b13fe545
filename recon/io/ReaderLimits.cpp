#include "recon/io/ReaderLimits.h"

#include <string>

#include "recon/core/CheckedSize.h"
#include "recon/core/Error.h"

namespace tomowb::io {

std::int64_t checkedAxisLength(const std::filesystem::path& path, std::string_view field,
                               std::int64_t n) {
  if (n < 1) throw FormatError(path, field, "must be >= 1, got " + std::to_string(n));
  if (n > kMaxAxisLength)
    throw FormatError(path, field, "must be <= 2^20 (1048576), got " + std::to_string(n));
  return n;
}

std::uint64_t checkedPayloadBytes(const std::filesystem::path& path, std::string_view field,
                                  std::initializer_list<std::int64_t> lengths,
                                  std::uint64_t sampleBytes) {
  std::uint64_t bytes = sampleBytes;
  for (std::int64_t n : lengths) {
    if (n < 0) throw FormatError(path, field, "negative length " + std::to_string(n));
    const auto next = mulChecked(bytes, static_cast<std::uint64_t>(n));
    if (!next) throw FormatError(path, field, "data size overflows 64 bits");
    bytes = *next;
  }
  return bytes;
}

}  // namespace tomowb::io
