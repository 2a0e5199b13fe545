// NumPy .npy (format versions 1.0, 2.0 and 3.0; numpy/lib/format.py). We read arrays of
// float32, float64, uint8, int8, uint16, int16, uint32 and int32 in either byte order, C or
// Fortran order, 1 to 8 dimensions of which at most the last three may exceed 1:
// shape (nz, ny, nx) is a volume, (ny, nx) an image (nz = 1), (nx) a line. The header dict is
// parsed by our own strict parser (keys exactly descr, fortran_order, shape; header at most
// 64 KiB); object (pickle) and structured dtypes are refused. An .npy file carries no voxel size:
// the volume gets 1 mm voxels and is centred on the world origin. We write float32, little-endian,
// C order, shape (nz, ny, nx), format 1.0.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

struct NpyHeader {
  int majorVersion = 1;
  int minorVersion = 0;
  std::string descr;  // as written, e.g. "<f4"
  SampleType sampleType = SampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  bool fortranOrder = false;
  std::vector<std::int64_t> shape;  // as in the file, slowest axis first (C order)
  std::uint64_t dataOffset = 0;
  std::uint64_t payloadBytes = 0;
};

// Parses and checks the header (and the file's length) without reading the samples.
NpyHeader readNpyHeader(const std::filesystem::path& path);
Volume readNpy(const std::filesystem::path& path);
void writeNpy(const std::filesystem::path& path, const Volume& volume);

}  // namespace tomowb::io
