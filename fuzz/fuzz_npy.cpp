// libFuzzer target for the NumPy .npy reader (NpyIo): the input is the whole file.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/NpyIo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.npy", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    io::readNpy(path);
  } catch (const Error&) {
  }
  return 0;
}
