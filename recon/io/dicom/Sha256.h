// Sha256 for the DICOM code: the core's (recon/io/Sha256.h), under the names it had here.
#pragma once

#include "recon/io/Sha256.h"

namespace tomowb::io::dicom {

using tomowb::sha256Hex;
using tomowb::sha256HexOfFile;

}  // namespace tomowb::io::dicom
