// libFuzzer target for the raw + JSON sidecar reader (RawVolumeIo): the input is the sidecar
// text, optionally followed by "\n--payload--\n" and the sample file's bytes.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/RawVolumeIo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const fuzz::SplitInput input = fuzz::splitInput(data, size);
  const auto sidecar = fuzz::writeScratchFile("in.json", input.header);
  if (input.hasPayload)
    fuzz::writeScratchFile("in.raw", input.payload);
  else
    fuzz::removeScratchFile("in.raw");
  try {
    const io::RawSidecar s = io::readRawSidecar(sidecar);
    if (s.content == io::RawContent::Volume)
      io::readVolumeRaw(sidecar);
    else
      io::readProjectionsRaw(sidecar);
  } catch (const Error&) {
  }
  return 0;
}
