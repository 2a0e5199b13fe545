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
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/MrcIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiffIo.h"
#include "recon/pet/ListModeFile.h"

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

// A hand-made MRC header: sizes, mode, 1 A pixels, maps 1 2 3, "MAP ", machst in `big` order.
std::string mrcHeader(std::int32_t nx, std::int32_t ny, std::int32_t nz, std::int32_t mode,
                      bool big) {
  std::string h(1024, '\0');
  auto put = [&](std::size_t offset, std::uint32_t value) {
    for (int i = 0; i < 4; ++i)
      h[offset + static_cast<std::size_t>(i)] =
          static_cast<char>(value >> (big ? 8 * (3 - i) : 8 * i) & 0xff);
  };
  const std::int32_t n[3] = {nx, ny, nz};
  for (int i = 0; i < 3; ++i) {
    put(4 * i, static_cast<std::uint32_t>(n[i]));
    put(28 + 4 * i, static_cast<std::uint32_t>(n[i]));
    const float cell = static_cast<float>(n[i]);
    std::uint32_t bits;
    std::memcpy(&bits, &cell, 4);
    put(40 + 4 * i, bits);
    put(64 + 4 * i, static_cast<std::uint32_t>(i + 1));
  }
  put(12, static_cast<std::uint32_t>(mode));
  h.replace(208, 4, "MAP ");
  return h;
}

void mrcSeeds(const fs::path& out) {
  io::writeMrcVolume(out / "float32.mrc", tinyVolume({3, 2, 2}));
  io::MrcWriteOptions imod;
  imod.axisOrder = io::MrcAxisOrder::Imod;
  imod.label = "seed";
  io::writeMrcVolume(out / "imod-order.rec", tinyVolume({2, 3, 2}), imod);
  TiltSeriesParams tilt;
  tilt.cols = 3;
  tilt.rows = 2;
  tilt.pixelSizeMm = 1e-6;
  tilt.tiltAnglesRad = {-1.0, 0.0, 1.0};
  ProjectionStack stack(tiltSeries(tilt));
  for (std::size_t i = 0; i < stack.pixels().size(); ++i) stack.pixels()[i] = float(i);
  io::MrcWriteOptions serialEm;
  serialEm.mode = io::MrcWriteMode::Int16;
  serialEm.tiltAnglesDeg = {-57.3, 0.0, 57.3};
  io::writeMrcStack(out / "int16-serialem.st", stack, serialEm);
  // Big-endian float16 without a machine stamp; signed bytes (IMOD flag) after an FEI1 header.
  writeAll(out / "float16-big.mrc",
           mrcHeader(2, 1, 1, 12, true) + std::string("\x3c\x00\xc0\x00", 4));
  std::string signedBytes = mrcHeader(2, 2, 1, 0, false);
  signedBytes.replace(92, 1, 1, '\x10');
  signedBytes.replace(104, 4, "FEI1");
  signedBytes.replace(152, 8, std::string("IMOD\x01\x00\x00\x00", 8));
  signedBytes.replace(212, 2, "\x44\x41");
  writeAll(out / "int8-fei1.mrc", signedBytes + std::string(16, '\x7f') + "\x80\xff\x01\x02");
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

// TOF-PET list mode (fuzz_listmode): the seed's scanner with a delayed event and simulation
// truth, an empty file, and a tiny cylinder with records at the edges of every range.
void listModeSeeds(const fs::path& out) {
  pet::ListModeHeader header;
  header.scanner = pet::scannerPreset("penn-labr3");
  header.tofLsbPs = header.scanner.tofLsbPs;
  header.acquisitionSeconds = 600;
  header.scanStart = "2026-11-26T09:30:00";
  header.source = "make_corpus";
  header.simulation = pet::ListModeSimulationTruth{1, 100, 0.2079, 5.3e6, 2, 1};
  std::vector<pet::ListModeEvent> events(4);
  events[0] = {10, 20, 346, 25, -40, 0, 0};
  events[1] = {671, 59, 0, 0, 120, pet::kEventRandom, 0};
  events[2] = {5, 6, 300, 7, -120, pet::kEventDelayed, 0};
  events[3] = {100, 30, 436, 30, 0, 0, 0};
  pet::writeListMode(out / "penn-labr3.lm", header, events);
  header.scanner = pet::scannerPreset("ring-930");
  header.simulation.reset();
  pet::writeListMode(out / "ring-930-empty.lm", header, {});
  pet::ScannerModel tiny = pet::scannerPreset("ring-930");
  tiny.name = "tiny";
  tiny.crystalsPerRing = 4;
  tiny.rings = 2;
  tiny.radiusMm = 50;
  tiny.transaxialFovMm = 60;
  tiny.coincidenceWindowPs = 200;
  header.scanner = tiny;
  events = {{0, 0, 2, 1, 5, 0, 0}, {3, 1, 1, 0, -5, pet::kEventDelayed, 0}};
  pet::writeListMode(out / "tiny.lm", header, events);
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
  for (const char* target :
       {"raw_sidecar", "mhd", "npy", "rabbitct", "tiff", "geometry_json", "mrc", "listmode"})
    fs::create_directories(root / target);
  rawSidecarSeeds(root / "raw_sidecar", work);
  metaImageSeeds(root / "mhd", work);
  npySeeds(root / "npy");
  rabbitCtSeeds(root / "rabbitct");
  tiffSeeds(root / "tiff");
  geometrySeeds(root / "geometry_json");
  mrcSeeds(root / "mrc");
  listModeSeeds(root / "listmode");
  fs::remove_all(work);
  std::cout << "seed corpora written under " << root << "\n";
  return 0;
}
