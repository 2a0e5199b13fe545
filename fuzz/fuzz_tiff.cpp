// libFuzzer target for the TIFF reader (TiffIo, libtiff underneath): the input is one
// multi-page TIFF file, read as a volume.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/TiffIo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.tif", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    io::readTiffVolume(path);
  } catch (const Error&) {
  }
  return 0;
}
