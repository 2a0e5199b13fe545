// MetaImage (ITK/VV/3D Slicer): a text header "Key = Value" per line, then the samples, either
// in the same file after the header (.mha, ElementDataFile = LOCAL) or in a file the header
// names (.mhd + .raw). We read 1- to 3-D scalar images of MET_UCHAR, MET_CHAR, MET_USHORT,
// MET_SHORT, MET_UINT, MET_INT, MET_FLOAT and MET_DOUBLE in either byte order (converted to
// float32), with ElementSpacing, Offset and HeaderSize (-1: the data is at the end of the data
// file). We refuse, naming the field: compressed data, a TransformMatrix other than the identity,
// more than one channel, ASCII data, multi-file data (LIST, %d patterns), a header over 64 KiB
// or 1000 lines, and a data file whose length differs from what DimSize and ElementType need.
// We write MET_FLOAT, little-endian, identity orientation.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>

#include "recon/core/Volume.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

struct MetaImageHeader {
  std::filesystem::path headerPath;
  std::filesystem::path dataPath;  // == headerPath for LOCAL data
  int dimensions = 3;              // NDims; missing axes have length 1
  VolumeShape shape;
  Eigen::Vector3d spacingMm = Eigen::Vector3d::Ones();
  Eigen::Vector3d offsetMm = Eigen::Vector3d::Zero();
  SampleType sampleType = SampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  std::uint64_t dataOffset = 0;  // where the samples start in dataPath
  std::uint64_t payloadBytes = 0;
};

// Parses and checks the header, and the data file's length, without reading the samples.
MetaImageHeader readMetaImageHeader(const std::filesystem::path& path);
Volume readMetaImage(const std::filesystem::path& path);
// ".mha": one file with LOCAL data; otherwise the header plus "<stem>.raw" beside it.
void writeMetaImage(const std::filesystem::path& path, const Volume& volume);

}  // namespace tomowb::io
