// libFuzzer target for the TOF-PET list-mode reader (recon/pet/ListModeFile): the input is the
// whole file (magic, version, JSON header with its scanner, records).
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/pet/ListModeFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.lm", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    pet::readListMode(path);
  } catch (const Error&) {
  }
  return 0;
}
