// tomowb-hdf5-reader: parses one HDF5 file for the readers of recon/io/Hdf5Volume.h (see
// recon/io/Hdf5ReaderMain.h). Not run by hand.
#include "recon/io/Hdf5ReaderMain.h"

int main(int argc, char** argv) {
  return tomowb::io::hdf5ReaderMain(argc, argv);
}
