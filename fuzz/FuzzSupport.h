// Shared by the libFuzzer targets: a scratch folder per fuzzing process (in /dev/shm when it
// exists, so the readers' file I/O stays in memory) and the split of one input into a header and
// a payload file. A target catches tomowb::Error only: any other exception, a crash, a hang or a
// huge allocation is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace tomowb::fuzz {

// Separates a header (sidecar JSON, MetaImage header) from its payload file in one input.
inline constexpr std::string_view kPayloadSeparator = "\n--payload--\n";

inline const std::filesystem::path& scratchFolder() {
  static const std::filesystem::path folder = [] {
    std::error_code ec;
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm", ec)
                                           ? std::filesystem::path("/dev/shm")
                                           : std::filesystem::temp_directory_path();
    auto path = base / ("tomowb-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratchFolder(), ignored);
    });
    return path;
  }();
  return folder;
}

inline std::filesystem::path writeScratchFile(const std::string& name, std::string_view bytes) {
  const std::filesystem::path path = scratchFolder() / name;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size())
    std::abort();
  std::fclose(file);
  return path;
}

inline void removeScratchFile(const std::string& name) {
  std::error_code ignored;
  std::filesystem::remove(scratchFolder() / name, ignored);
}

// (header, payload, true) if the separator occurs; else (whole input, "", false).
struct SplitInput {
  std::string_view header, payload;
  bool hasPayload = false;
};

inline SplitInput splitInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t at = input.find(kPayloadSeparator);
  if (at == std::string_view::npos) return {input, {}, false};
  return {input.substr(0, at), input.substr(at + kPayloadSeparator.size()), true};
}

}  // namespace tomowb::fuzz
