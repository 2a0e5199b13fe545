// Writes the seed corpora of the fuzz targets into <folder>/<target>/: a few tiny valid files
// per reader, written by our own writers where we have one and by hand (or libtiff) for the
// variants we only read. Run by hand after a format change:
//   build-fuzz/fuzz/tomowb_fuzz_make_corpus fuzz/corpus
#include <tiffio.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "FuzzSupport.h"
#include "recon/geometry/GeometryJson.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiffIo.h"

namespace {

using namespace tomowb;
namespace fs = std::filesystem;

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
void append(std::string& bytes, T value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
}

Volume tinyVolume(VolumeShape shape) {
  Volume v(shape, Eigen::Vector3d(0.5, 0.75, 2.0), Eigen::Vector3d(-1, 2, 3.5));
  float x = -3.0f;
  for (float& voxel : v.voxels()) voxel = (x += 1.25f);
  return v;
}

Geometry tinyCone(std::int64_t views) {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 800;
  p.detector.cols = 3;
  p.detector.rows = 2;
  p.anglesRad = fullScanAnglesRad(views);
  return circularConeBeam(p);
}

void rawSidecarSeeds(const fs::path& out, const fs::path& work) {
  io::writeVolumeRaw(work / "v.raw", tinyVolume({3, 2, 2}));
  writeAll(out / "volume", readAll(work / "v.json") + std::string(fuzz::kPayloadSeparator) +
                               readAll(work / "v.raw"));
  ProjectionStack stack(tinyCone(2));
  io::writeProjectionsRaw(work / "p.raw", stack);
  writeAll(out / "projections", readAll(work / "p.json") + std::string(fuzz::kPayloadSeparator) +
                                    readAll(work / "p.raw"));
  const nlohmann::json big = {{"format", "tomowb-volume"}, {"version", 1},
                              {"shape", {2, 1, 1}},        {"voxelSizeMm", {1, 1, 1}},
                              {"originMm", {0, 0, 0}},     {"dtype", "uint16"},
                              {"byteOrder", "big"}};
  writeAll(out / "uint16-big", big.dump() + std::string(fuzz::kPayloadSeparator) + "\1\2\3\4");
}

void metaImageSeeds(const fs::path& out, const fs::path& work) {
  io::writeMetaImage(work / "v.mha", tinyVolume({2, 2, 2}));
  writeAll(out / "float.mha", readAll(work / "v.mha"));
  io::writeMetaImage(work / "v.mhd", tinyVolume({2, 1, 2}));
  writeAll(out / "float-mhd", readAll(work / "v.mhd") + std::string(fuzz::kPayloadSeparator) +
                                  readAll(work / "v.raw"));
  writeAll(out / "ushort-msb-mhd",
           "NDims = 3\nDimSize = 2 1 1\nElementSpacing = 1 1 1\nOffset = 0 0 0\n"
           "BinaryDataByteOrderMSB = True\nHeaderSize = 2\nElementType = MET_USHORT\n"
           "ElementDataFile = in.raw\n" +
               std::string(fuzz::kPayloadSeparator) + "hh\1\2\3\4");
  writeAll(out / "uchar-2d.mha",
           "ObjectType = Image\nNDims = 2\nDimSize = 2 2\nElementSize = 1 2\nPosition = 1 1\n"
           "TransformMatrix = 1 0 0 1\nHeaderSize = -1\nElementType = MET_UCHAR\n"
           "ElementDataFile = LOCAL\nxx\1\2\3\4");
}

std::string npyBytes(const std::string& dict, const std::string& payload, int major) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string text = dict;
  text.append((64 - (prefix + text.size() + 1) % 64) % 64, ' ');
  text += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  bytes += static_cast<char>(text.size() & 0xff);
  bytes += static_cast<char>(text.size() >> 8);
  if (major != 1) bytes += std::string(2, '\0');
  return bytes + text + payload;
}

void npySeeds(const fs::path& out) {
  io::writeNpy(out / "float32.npy", tinyVolume({3, 2, 2}));
  writeAll(out / "fortran-u2-big.npy",
           npyBytes("{'descr': '>u2', 'fortran_order': True, 'shape': (2, 2), }",
                    std::string("\0\1\0\2\0\3\0\4", 8), 1));
  writeAll(out / "v2-f8-2d.npy",
           npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }",
                    std::string(16, '\0'), 2));
  writeAll(out / "v3-i1-4d.npy",
           npyBytes("{\"descr\": \"|i1\", \"fortran_order\": False, \"shape\": (1, 1, 2, 2)}",
                    "\1\2\3\4", 3));
}

void rabbitCtSeeds(const fs::path& out) {
  const Geometry g = tinyCone(2);
  std::string bytes;
  for (std::uint32_t v : {3u, 2u, 2u}) append(bytes, v);
  append(bytes, 1000.0f);
  append(bytes, -24.0f);
  for (std::int64_t v = 0; v < g.viewCount(); ++v) {
    const ProjectionMatrix m = g.projectionMatrix(v);
    for (int k = 0; k < 12; ++k) append(bytes, m.data()[k]);
    for (int i = 0; i < 6; ++i) append(bytes, static_cast<float>(v * 10 + i));
  }
  writeAll(out / "two-views.rct", bytes);
  writeAll(out / "trailing.rct", bytes + "ref-volume");
}

void foreignTiff(const fs::path& path, std::uint16_t bits, std::uint16_t format,
                 std::uint16_t compression, bool tiled) {
  TIFF* tif = TIFFOpen(path.c_str(), "w");
  if (!tif) throw std::runtime_error("cannot write " + path.string());
  const std::uint32_t width = tiled ? 16 : 3, height = tiled ? 16 : 2;
  for (int page = 0; page < 2; ++page) {
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bits);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
    std::vector<unsigned char> pixels(width * height * bits / 8);
    for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(i % 7);
    if (tiled) {
      TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16);
      TIFFSetField(tif, TIFFTAG_TILELENGTH, 16);
      TIFFWriteEncodedTile(tif, 0, pixels.data(), static_cast<tmsize_t>(pixels.size()));
    } else {
      TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 1);
      const tmsize_t row = width * bits / 8;
      for (std::uint32_t y = 0; y < height; ++y)
        TIFFWriteEncodedStrip(tif, y, pixels.data() + y * row, row);
    }
    TIFFWriteDirectory(tif);
  }
  TIFFClose(tif);
}

void tiffSeeds(const fs::path& out) {
  io::writeTiffVolume(out / "float32.tif", tinyVolume({3, 2, 2}));
  io::writeTiffVolume(out / "uint16-mapped.tif", tinyVolume({2, 2, 2}),
                      {io::TiffSampleType::UInt16, 0.01, -10.0});
  foreignTiff(out / "u8-lzw.tif", 8, SAMPLEFORMAT_UINT, COMPRESSION_LZW, false);
  foreignTiff(out / "i16-deflate.tif", 16, SAMPLEFORMAT_INT, COMPRESSION_ADOBE_DEFLATE, false);
  foreignTiff(out / "u8-packbits-tiled.tif", 8, SAMPLEFORMAT_UINT, COMPRESSION_PACKBITS, true);
}

void geometrySeeds(const fs::path& out) {
  saveGeometry(out / "cone-vectors.json", tinyCone(2));
  writeAll(out / "builder-cone.json",
           R"({"format": "tomowb-geometry", "version": 1, "builder": {"kind": "circular-cone",
 "sourceToIsocentreMm": 500, "sourceToDetectorMm": 800, "views": 3, "scan": "short",
 "detector": {"cols": 4, "rows": 2, "pitchMm": 0.5, "offsetUMm": 1, "tiltDeg": 1}}})");
  writeAll(
      out / "builder-helical.json",
      R"({"format": "tomowb-geometry", "version": 1, "builder": {"kind": "helical-cone", "sourceToIsocentreMm": 500,
 "sourceToDetectorMm": 900, "views": 4, "scan": "turns", "turns": 2, "pitch": 1,
 "detector": {"cols": 2, "rows": 2}}})");
  writeAll(
      out / "builder-tilt.json",
      R"({"format": "tomowb-geometry", "version": 1, "builder": {"kind": "tilt-series", "cols": 3, "rows": 2,
 "pixelSizeMm": 0.5, "firstTiltDeg": -60, "lastTiltDeg": 60, "tiltStepDeg": 30,
 "tiltAxisAngleDeg": 2}})");
  writeAll(
      out / "builder-parallel.json",
      R"({"format": "tomowb-geometry", "version": 1, "builder": {"kind": "parallel", "anglesDeg": [0, 45, 90],
 "detector": {"cols": 2, "rows": 1}}})");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tomowb_fuzz_make_corpus <corpus folder>\n";
    return 2;
  }
  const fs::path root = argv[1];
  const fs::path work = fs::temp_directory_path() / "tomowb-make-corpus";
  fs::create_directories(work);
  for (const char* target : {"raw_sidecar", "mhd", "npy", "rabbitct", "tiff", "geometry_json"})
    fs::create_directories(root / target);
  rawSidecarSeeds(root / "raw_sidecar", work);
  metaImageSeeds(root / "mhd", work);
  npySeeds(root / "npy");
  rabbitCtSeeds(root / "rabbitct");
  tiffSeeds(root / "tiff");
  geometrySeeds(root / "geometry_json");
  fs::remove_all(work);
  std::cout << "seed corpora written under " << root << "\n";
  return 0;
}
