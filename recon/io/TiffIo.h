// TIFF stacks through libtiff: a multi-page file (one page per z slice of a volume, or per view
// of a projection stack) or a per-slice series (a folder of single-page files, slice_0000.tif,
// slice_0001.tif, ...). We read grayscale pages of 8/16/32-bit unsigned or signed integers and
// 32/64-bit floats, in strips or tiles, uncompressed or LZW / Deflate / PackBits (other codecs
// are refused); reduced-resolution pages (thumbnails) are skipped. Every page's size, sample
// type and compression ratio is checked before any sample buffer is allocated, and libtiff's
// own messages end up in the exception, never on stderr.
// We write float32 or uint16 pages, uncompressed, with a JSON ImageDescription holding the voxel
// size, origin and, for uint16, the linear mapping value = stored * slope + intercept that our
// reader undoes (other programs see plain 16-bit). Only the Tiff*.cpp files need libtiff
// (TiffRead.cpp reads, TiffWrite.cpp writes); this header is usable when TIFF support is off
// (TOMOWB_HAVE_TIFF=0), but the functions are not linked then.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/io/SampleType.h"

namespace tomowb::io {

enum class TiffSampleType { Float32, UInt16 };

struct TiffWriteOptions {
  TiffSampleType sampleType = TiffSampleType::Float32;
  // UInt16 only: stored = round((value - intercept) / slope). A value that maps outside
  // 0..65535 (or NaN) is a ParameterError naming the voxel, never a silent clamp.
  double slope = 1.0;
  double intercept = 0.0;
};

struct TiffInfo {
  std::filesystem::path path;  // the file, or the folder of a series
  std::int64_t width = 0, height = 0;
  std::int64_t pages = 0;  // pages of a multi-page file, files of a series
  SampleType sampleType = SampleType::Float32;
  std::string compression;  // "none", "LZW", "Deflate", "PackBits"
  bool tiled = false;
  bool hasOurMetadata = false;  // the ImageDescription is one of ours
  Eigen::Vector3d voxelSizeMm = Eigen::Vector3d::Ones();
  std::optional<Eigen::Vector3d> originMm;
  std::optional<double> slope, intercept;  // uint16 mapping, when ours
};

// A multi-page file, or (for a folder) the series in it. Reads every page's header.
TiffInfo readTiffInfo(const std::filesystem::path& fileOrFolder);

// Multi-page file: page k is slice z = k. Without our metadata the voxels are 1 mm and the
// volume is centred on the world origin.
Volume readTiffVolume(const std::filesystem::path& path);
void writeTiffVolume(const std::filesystem::path& path, const Volume& volume,
                     const TiffWriteOptions& options = {});

// The .tif/.tiff files of a folder in natural order (slice_2 before slice_10); given one file,
// the files beside it whose names differ from it only in their digits.
std::vector<std::filesystem::path> listTiffSlices(const std::filesystem::path& folderOrFile);
Volume readTiffSlices(const std::filesystem::path& folderOrFile);
// Writes <folder>/slice_0000.tif ... through a temporary folder renamed on success; the folder
// must not exist or be empty.
void writeTiffSlices(const std::filesystem::path& folder, const Volume& volume,
                     const TiffWriteOptions& options = {});

// A multi-page file or a per-slice series read a band of rows of one page at a time (out-of-core
// slab runs, recon/scale): each call decodes only the strips or tiles the rows lie in. Every
// page's header is checked as the whole-file readers check it when the reader is made; our
// uint16 value mapping is undone. A multi-page file stays open; a series opens one file a call.
class TiffRowReader {
 public:
  // A folder is a series (listTiffSlices), a file a multi-page stack.
  explicit TiffRowReader(const std::filesystem::path& fileOrFolder);
  ~TiffRowReader();
  TiffRowReader(const TiffRowReader&) = delete;
  TiffRowReader& operator=(const TiffRowReader&) = delete;
  TiffRowReader(TiffRowReader&&) = delete;
  TiffRowReader& operator=(TiffRowReader&&) = delete;

  const TiffInfo& info() const noexcept { return info_; }
  // Rows first..last of page `page` into dst ((last - first + 1) * width floats).
  void readRows(std::int64_t page, std::int64_t first, std::int64_t last, std::span<float> dst);
  // Rows first..last of every page, page after page, into dst (pages * (last - first + 1) *
  // width floats), on several threads: each thread opens the file for its own run of pages
  // (libtiff's handles and their messages stay on the thread that made them). Decoding is what
  // costs, so a band of a compressed stack reads about as many times faster as there are cores.
  void readRowsOfEveryPage(std::int64_t first, std::int64_t last, std::span<float> dst);
  // Pages firstPage..lastPage whole, page after page, into dst ((lastPage - firstPage + 1) *
  // height * width floats), on several threads as readRowsOfEveryPage.
  void readPages(std::int64_t firstPage, std::int64_t lastPage, std::span<float> dst);

 private:
  void readRowsOfPages(std::int64_t firstPage, std::int64_t lastPage, std::int64_t first,
                       std::int64_t last, std::span<float> dst);
  struct State;
  std::unique_ptr<State> state_;
  TiffInfo info_;
};

// Multi-page file, page k = view k; the pages must match the geometry's detector and views.
// "slice_0042.tif": the file name of `slice` in a per-slice series of `slices` slices (at least
// four digits, as many as the last slice needs).
std::string tiffSliceFileName(std::int64_t slice, std::int64_t slices);
// One float32 slice of a per-slice series written slab by slab (recon/scale): `folder`/
// tiffSliceFileName(slice, shape.nz), with the whole volume's shape, voxel size and origin in its
// description, so the finished folder reads back as that volume. The file is written atomically;
// the folder is the caller's to stage and rename.
void writeTiffSeriesSlice(const std::filesystem::path& folder, std::span<const float> samples,
                          const VolumeShape& shape, const Eigen::Vector3d& voxelSizeMm,
                          const Eigen::Vector3d& originMm, std::int64_t slice);

ProjectionStack readTiffProjections(const std::filesystem::path& path, Geometry geometry);
void writeTiffProjections(const std::filesystem::path& path, const ProjectionStack& projections,
                          const TiffWriteOptions& options = {});

}  // namespace tomowb::io
