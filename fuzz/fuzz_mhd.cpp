// libFuzzer target for the MetaImage reader (MetaImageIo). An input with "\n--payload--\n" is a
// .mhd header plus its data file "in.raw"; without it, the whole input is one .mha file.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/MetaImageIo.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const fuzz::SplitInput input = fuzz::splitInput(data, size);
  std::filesystem::path header;
  if (input.hasPayload) {
    header = fuzz::writeScratchFile("in.mhd", input.header);
    fuzz::writeScratchFile("in.raw", input.payload);
  } else {
    header = fuzz::writeScratchFile("in.mha", input.header);
    fuzz::removeScratchFile("in.raw");
  }
  try {
    io::readMetaImage(header);
  } catch (const Error&) {
  }
  return 0;
}
