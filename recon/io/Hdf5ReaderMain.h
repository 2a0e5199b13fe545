// The program tomowb-hdf5-reader (recon/io/hdf5-reader/): every HDF5 file Tomo Workbench reads is
// parsed by libhdf5 in this separate program, which the readers of recon/io/Hdf5Volume.h start
// and read through a pipe, so a malformed file that crashes libhdf5 becomes a FormatError naming
// it. The readers find the program through $TOMOWB_HDF5_READER, beside the running program, in
// ../libexec/tomowb/ of it (the installed package), or in ../recon/ of it (a build tree).
#pragma once

namespace tomowb::io {

// The reader's main: `grid|samples FILE [Z0 Z1 Y0 Y1]`, sending on descriptor 3. Ends the process
// with _exit once it has answered; returns the usage error's exit status (64) otherwise.
int hdf5ReaderMain(int argc, char** argv);

}  // namespace tomowb::io
