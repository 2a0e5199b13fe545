// libFuzzer target for the RabbitCT projection reader (RabbitCtReader): the input is the whole
// file; the geometry is built from its matrices as in normal use.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/RabbitCtReader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.rct", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    io::readRabbitCt(path);
  } catch (const Error&) {
  }
  return 0;
}
