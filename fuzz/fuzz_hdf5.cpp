// libFuzzer target for the HDF5 volume reader (Hdf5Volume): the input is one .h5 file, read for
// its grid and then whole. libhdf5 parses the file (it is not instrumented: coverage guides
// through our checks of dimensions, attributes and truncation).
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/Hdf5Volume.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  const auto path =
      fuzz::writeScratchFile("in.h5", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    (void)io::readHdf5VolumeGrid(path);
    (void)io::readHdf5Volume(path);
  } catch (const Error&) {
  }
  return 0;
}
