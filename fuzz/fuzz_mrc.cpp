// libFuzzer target for the MRC reader (MrcIo) and the tilt-series loader on top of it: the input is
// one .mrc file, read as a volume in both axis orders and, when its SerialEM extended header
// holds tilt angles, as a tilt series.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiltSeriesFiles.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.mrc", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    const io::MrcHeader header = io::readMrcHeader(path);
    io::readMrcVolume(path);
    io::MrcReadOptions imod;
    imod.axisOrder = io::MrcAxisOrder::Imod;
    io::readMrcVolume(path, imod);
    if (header.tiltAnglesDeg) io::loadTiltSeries({path, {}, {}, {}}, {});
  } catch (const Error&) {
  }
  return 0;
}
