// HDF5 volumes (issue #22, point 2): one float32 dataset "/volume" of shape [nz][ny][nx] (x
// fastest, as Volume holds it), stored contiguously, with the grid as attributes of the dataset:
// "voxelSizeMm" and "originMm" (x, y, z; origin: the centre of voxel (0, 0, 0)) and "units".
// Readers in Python: h5py.File(p)["volume"][...] gives the [z][y][x] array.
//
// A slab run (recon/scale/SlabRun.h) creates the file with the dataset's whole extent allocated
// up front and then writes every slab with plain pwrite at the dataset's offset in the file, from
// any number of processes at once: serial HDF5 never writes the samples, so no rank needs
// parallel HDF5 and a killed run resumes like a raw one. Built with serial libhdf5 (CMake option
// TOMOWB_HDF5); without it hdf5VolumesSupported() is false and the functions throw.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "recon/core/Volume.h"
#include "recon/core/VolumeGrid.h"

namespace tomowb::io {

bool hdf5VolumesSupported() noexcept;

// True for a path ending in ".h5" or ".hdf5".
bool isHdf5Path(const std::filesystem::path& path);

// Creates `path` (replacing it) with the dataset of `grid` allocated but not written (its samples
// read as zero until written) and returns the samples' byte offset in the file; the file is then
// at least offset + nx*ny*nz*4 bytes long. Throws IoError naming the file.
std::uint64_t createHdf5VolumeFile(const std::filesystem::path& path, const VolumeGrid& grid,
                                   const std::string& units = "1/mm");

// The samples' byte offset of a file createHdf5VolumeFile made for `grid`; FormatError naming
// the file when it holds another shape, type or layout.
std::uint64_t hdf5VolumeDataOffset(const std::filesystem::path& path, const VolumeGrid& grid);

// The grid of the file's volume (shape, voxel size, origin) without its samples.
VolumeGrid readHdf5VolumeGrid(const std::filesystem::path& path);

// The file's grid and, when its dataset lies contiguously in the file as little-endian float32
// (as createHdf5VolumeFile and writeHdf5Volume store it), the byte offset of its samples: a
// reader may then pread any part of them. No offset for a chunked or compressed dataset or
// another sample type, which only readHdf5Volume reads. Read in a child, as readHdf5Volume.
struct Hdf5VolumeLayout {
  VolumeGrid grid;
  std::optional<std::uint64_t> contiguousOffset;
};
Hdf5VolumeLayout readHdf5VolumeLayout(const std::filesystem::path& path);

// Part of the file's dataset: slices [z0, z1) (its slowest axis) and rows [y0, y1) of each,
// every x, into `out` (z, then y, then x fastest; (z1 - z0) * (y1 - y0) * nx floats, and a
// FormatError naming the file when the file's box holds another count), converted to float as
// readHdf5Volume does. Any layout libhdf5 reads (chunked, compressed) works, and only
// the chunks the box touches are read; in a child, as readHdf5Volume. ParameterError for a box
// outside the dataset or without rows.
struct Hdf5Box {
  std::int64_t z0 = 0, z1 = 0, y0 = 0, y1 = 0;
};
void readHdf5VolumeBox(const std::filesystem::path& path, const Hdf5Box& box, std::span<float> out);

// Reads the volume back: shape, voxel size and origin from the file, checked (positive finite
// sizes, no overflow, the samples inside the file) before anything is allocated. The readers run
// libhdf5 in a program of their own, tomowb-hdf5-reader (recon/io/Hdf5ReaderMain.h), that sends
// what it read through a pipe: libhdf5 1.10 has memory-safety bugs on malformed files, and a crash
// there becomes a FormatError here.
Volume readHdf5Volume(const std::filesystem::path& path);

// Writes `volume` as a chunked dataset (a chunk per slice), compressed with deflate, atomically:
// as facilities' HDF5 files often are. Readers read it; a slab run cannot write into it.
void writeHdf5VolumeChunked(const std::filesystem::path& path, const Volume& volume,
                            const std::string& units = "1/mm");

// Writes `volume` as such a file, atomically (a temporary name renamed into place).
void writeHdf5Volume(const std::filesystem::path& path, const Volume& volume,
                     const std::string& units = "1/mm");

}  // namespace tomowb::io
