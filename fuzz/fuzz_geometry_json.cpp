// libFuzzer target for the geometry JSON loader (recon/geometry/GeometryJson: loadGeometry and
// geometryFromJson, vector and builder forms): the input is the whole file.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/GeometryJson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path = fuzz::writeScratchFile(
      "in.json", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    loadGeometry(path);
  } catch (const Error&) {
  }
  return 0;
}
