// MRC / CCP4 files (MRC2014, Cheng et al. 2015; IMOD's html/mrc_format.txt; reference/sirt-et.md,
// section 8): volumes, image stacks and electron-tomography tilt series.
//
// Read: modes 0 (8-bit), 1 (int16), 2 (float32), 6 (uint16) and 12 (float16), little- or
// big-endian (machst, or the header's plausibility where machst is blank). Mode 0 is read as
// unsigned bytes unless the IMOD stamp (1146047817 at byte 152) is present with imodFlags bit
// value 1 ("bytes are stored as signed"): MRC2014 calls mode 0 signed, but IMOD and SerialEM, the
// programs tilt series come from, have written unsigned bytes in mode 0 for decades and mark
// signed bytes with that flag. Modes 3, 4 (complex), 16 (RGB), 101 (4-bit) and any other are a
// FormatError naming the mode. Axis maps other than (mapc, mapr, maps) = (1, 2, 3) are refused.
// Every size is checked with overflow-safe arithmetic against the file's length before anything
// is allocated; the extended header (next bytes) must lie inside the file and is skipped, except
// that a SerialEM extended header (exttyp "SERI", or IMOD's rule that nint bytes per section
// match the nreal flags) gives per-section tilt angles (flag 1: tilt angle x 100 as int16).
//
// Units and position: pixel spacing = cell / m per axis in Angstrom; 1 A = 1e-7 mm. A cell or m
// of 0 means "spacing unknown": the header reports 0 for that axis, readers then fall back to
// MrcReadOptions::voxelSizeMmIfUnknown (1 mm, so a volume is in pixel units) and say so in a
// warning, and tilt-series loading asks for TiltSeriesOptions::pixelSizeMm. The origin follows
// IMOD: (xorg, yorg, zorg) is the position of the coordinate origin relative to the centre of the
// first voxel, in Angstrom, so voxel i of an axis lies at i * spacing - origin; imodFlags bit
// value 4 says the stored origin has the opposite sign. nxstart/nystart/nzstart are reported but
// do not move the volume (IMOD ignores them as well).
//
// Axis order. Our ET volumes have x across the tilt axis, y along the specimen thickness (the
// beam runs along -y at tilt 0) and z along the tilt axis (ScanBuilders.h, tiltSeries()), so
// that each slice perpendicular to the tilt axis is one contiguous z plane. IMOD shows
// reconstructions rotated so that the tilt axis is the file's Y and the thickness its Z.
// MrcAxisOrder::Imod writes file (X, Y, Z) = our (-x, z, y) and reads the inverse: a proper
// rotation (no mirror) in which file X follows the projections' columns (u runs along -x at tilt
// 0), Y the tilt axis and Z the thickness towards the source. MrcAxisOrder::Identity keeps file
// (X, Y, Z) = our (x, y, z) (docs/file-formats.md says more).
//
// Write: MRC2014 with nversion 20140, "MAP ", machst 0x44 0x44 (little-endian), ispg 1 for
// volumes and 0 for image stacks, cella = n x spacing in Angstrom, cellb 90 degrees, dmin / dmax /
// dmean / rms of the stored values, the IMOD stamp (origin in IMOD's sign), a label
// "Tomo Workbench <version>" and an optional caller label; mode 2 (float32) by default, or
// mode 1 / 6 with a caller-given linear mapping (a value that does not fit is a ParameterError,
// never clamped). Image stacks may carry their tilt angles in a SerialEM extended header. Writes
// are atomic (AtomicFileWriter).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

// Sample types of the MRC modes we read.
enum class MrcSampleType { UInt8, Int8, Int16, Float32, UInt16, Float16 };
std::string_view toString(MrcSampleType type) noexcept;  // "uint8", ..., "float16"
std::size_t sampleBytes(MrcSampleType type) noexcept;
// The plain sample type of a mode (io::convertToFloat reads it, float16 included); never nullopt
// for the modes the reader accepts (an optional for modes this reader may add later).
std::optional<SampleType> plainSampleType(MrcSampleType type) noexcept;

// Identity: file (X, Y, Z) = our (x, y, z). Imod: file (X, Y, Z) = our (-x, z, y), IMOD's view of
// a reconstruction (tilt axis along file Y, thickness along file Z). Applies to volumes only.
enum class MrcAxisOrder { Identity, Imod };

inline constexpr std::int32_t kImodStamp = 1146047817;
inline constexpr double kMmPerAngstrom = 1e-7;

struct MrcHeader {
  std::filesystem::path path;
  std::int64_t nx = 0, ny = 0, nz = 0;  // columns, rows, sections as stored
  int mode = 2;
  MrcSampleType sampleType = MrcSampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  std::array<std::int32_t, 3> start{};     // nxstart, nystart, nzstart
  std::array<std::int32_t, 3> sampling{};  // mx, my, mz
  Eigen::Vector3d cellA = Eigen::Vector3d::Zero();
  Eigen::Vector3d cellAnglesDeg = Eigen::Vector3d::Zero();
  std::array<std::int32_t, 3> axisMap{1, 2, 3};  // mapc, mapr, maps
  float dmin = 0, dmax = 0, dmean = 0, rms = 0;
  std::int32_t spaceGroup = 0;  // ispg: 0 image stack, 1 volume
  std::uint64_t extendedHeaderBytes = 0;
  std::string extendedHeaderType;  // exttyp ("SERI", "FEI1", ...), "" if blank or unprintable
  std::int32_t version = 0;        // nversion (20140 for MRC2014)
  std::int16_t nint = 0, nreal = 0;
  bool hasImodStamp = false;
  std::int32_t imodFlags = 0;
  bool hasMapSignature = false;  // "MAP " at byte 208 (absent in pre-2000 headers)
  Eigen::Vector3d originA = Eigen::Vector3d::Zero();  // xorg, yorg, zorg as stored
  std::vector<std::string> labels;
  std::uint64_t dataOffset = 0;     // 1024 + next
  std::uint64_t payloadBytes = 0;   // nx * ny * nz * sample size
  std::uint64_t trailingBytes = 0;  // bytes after the data (ignored)

  // Per file axis: cell / m in mm, or 0 where the header does not say (cell or m is 0).
  Eigen::Vector3d spacingMm = Eigen::Vector3d::Zero();
  // Per file axis: world position (mm) of the centre of voxel 0 in IMOD's convention (0 where the
  // spacing is unknown or the header predates the origin fields).
  Eigen::Vector3d firstVoxelMm = Eigen::Vector3d::Zero();
  // Per-section tilt angles from a SerialEM extended header, in stack order.
  std::optional<std::vector<double>> tiltAnglesDeg;
  // Oddities that do not stop reading (machst missing, bytes after the data, SerialEM data that
  // does not fit the extended header, ...), for the user to see.
  std::vector<std::string> warnings;

  bool hasPixelSpacing() const noexcept { return spacingMm.x() > 0 && spacingMm.y() > 0; }
  bool hasVoxelSpacing() const noexcept { return (spacingMm.array() > 0).all(); }
};

// True for the extensions we take as MRC: .mrc .st .ali .rec .map .mrcs .preali (any case).
bool isMrcPath(const std::filesystem::path& path);

// Parses and checks the header, the extended header's bounds and the file's length without
// reading the samples.
MrcHeader readMrcHeader(const std::filesystem::path& path);

struct MrcReadOptions {
  MrcAxisOrder axisOrder = MrcAxisOrder::Identity;
  // Used (with a warning) for an axis whose spacing the header leaves unknown.
  double voxelSizeMmIfUnknown = 1.0;
};

// The file as a volume: file (X, Y, Z) mapped by options.axisOrder. Voxel size from the header;
// origin from the header when every axis' spacing is known, else the volume is centred on the
// world origin. Warnings (header oddities, unknown spacing) are appended to `warnings` if given.
Volume readMrcVolume(const std::filesystem::path& path, const MrcReadOptions& options = {},
                     std::vector<std::string>* warnings = nullptr);

// The file as an image stack: section k is view k, line r is row r, column c is column c. The
// geometry's detector and view count must match nx, ny, nz (FormatError naming the field).
ProjectionStack readMrcProjections(const std::filesystem::path& path, Geometry geometry);

enum class MrcWriteMode { Float32, Int16, UInt16 };  // MRC modes 2, 1, 6

struct MrcWriteOptions {
  MrcAxisOrder axisOrder = MrcAxisOrder::Identity;  // volumes only
  MrcWriteMode mode = MrcWriteMode::Float32;
  // Int16 / UInt16 only: stored = round((value - intercept) / slope). A value (or NaN) that does
  // not fit the mode's range is a ParameterError naming the sample; nothing is clamped. MRC has
  // no field for this mapping: readers see the stored integers.
  double slope = 1.0;
  double intercept = 0.0;
  // A second label after ours (run ID, algorithm): printable ASCII, at most 80 characters.
  std::string label;
  // Image stacks only: written as a SerialEM extended header (tilt angle x 100 per section,
  // 0.01 degree steps, |angle| <= 327). Empty: no extended header.
  std::vector<double> tiltAnglesDeg;
};

// A volume (ispg 1). Spacing and origin from the volume, permuted by options.axisOrder.
void writeMrcVolume(const std::filesystem::path& path, const Volume& volume,
                    const MrcWriteOptions& options = {});
// An image stack (ispg 0): section k = view k. Pixel spacing |u| x |v| of view 0 (mm -> A),
// section spacing |u|, origin 0. options.axisOrder must be Identity.
void writeMrcStack(const std::filesystem::path& path, const ProjectionStack& projections,
                   const MrcWriteOptions& options = {});

}  // namespace tomowb::io
