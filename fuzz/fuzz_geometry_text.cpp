// libFuzzer target for the geometry text imports (recon/geometry/GeometryImport): the input is one
// text file, read as ASTRA cone_vec and parallel3d_vec arrays and as per-view 3x4 projection
// matrices (cone and parallel), each validated as a Geometry.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/GeometryImport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.txt", std::string_view(reinterpret_cast<const char*>(data), size));
  const DetectorShape detector{16, 8};
  for (BeamKind beam : {BeamKind::Cone, BeamKind::Parallel}) {
    try {
      importAstraVectors(path, beam, detector);
    } catch (const Error&) {
    }
    try {
      importMatrixText(path, beam, detector, 0.5);
    } catch (const Error&) {
    }
  }
  return 0;
}
