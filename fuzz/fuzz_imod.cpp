// libFuzzer target for IMOD's text files beside a tilt series (recon/io/ImodFiles): the input is
// one file, read as a .tlt (tilt angles), an .xtilt (x-axis tilts) and an .xf (alignment), and the
// transforms are decomposed as TiltSeriesFiles does for its warnings.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/ImodFiles.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto path = fuzz::writeScratchFile("in.txt", bytes);
  try {
    io::readTiltAnglesDeg(path);
  } catch (const Error&) {
  }
  try {
    io::readXAxisTiltsDeg(path);
  } catch (const Error&) {
  }
  try {
    for (const io::XfTransform& t : io::readXf(path)) {
      const io::XfDecomposition d = io::decompose(t.a);
      volatile double sink = d.magnification + d.stretch + d.skewRad + d.rotationRad;
      (void)sink;
      (void)t.shiftAboutGeometricCentre();
    }
  } catch (const Error&) {
  }
  return 0;
}
