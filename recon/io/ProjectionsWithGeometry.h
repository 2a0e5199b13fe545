// ProjectionsWithGeometry: projections in any format we read (raw + JSON, .npy, TIFF stack or
// series, MRC, MetaImage, RabbitCT) together with a geometry from another file (our geometry
// JSON, ASTRA cone_vec / parallel3d_vec text, 3x4 matrix text, IMOD .tlt), recognised by content
// (GeometryImport.h) unless the format is given. The one loader behind `recon ... --geometry`,
// `convert` and the window's File > Open projections (docs/astra-users.md).
//
// Layouts of a stack of images read as a 3-D array a[slow][middle][fast] (an .npy of that
// shape, a TIFF or MRC stack with `slow` pages or sections, ...):
//  - Views:  [view][row][col], our layout and TIGRE's (projections of shape (angles, nV, nU));
//  - Astra:  [row][view][col], ASTRA's 3-D projection data (astra.data3d.get gives shape
//            (det_row_count, angles, det_col_count); MATLAB's (u, angles, v) is the same memory).
// Auto picks the one whose view count (and detector, where the geometry file gives one) matches
// the geometry; when both would (rows == views and no detector to tell them apart) it refuses and
// asks for the layout. The fast axis is always the detector column (u).
//
// The geometry file must agree with the data: view counts, and the detector where the file has
// one (our JSON); a mismatch is a FormatError naming both files and both shapes. ASTRA vectors
// and matrices carry no detector size: it comes from the data. Where the projection file has a
// geometry of its own (raw + JSON, RabbitCT, an MRC tilt series), --geometry replaces it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/io/GeometryImport.h"
#include "recon/io/MrcIo.h"
#include "recon/io/SampleType.h"
#include "recon/io/TiltSeriesFiles.h"

namespace tomowb::io {

enum class ProjectionLayout { Auto, Views, Astra };

// "auto", "views", "astra" (the --layout names).
std::string_view toString(ProjectionLayout layout);
ProjectionLayout projectionLayoutFromName(std::string_view name, std::string_view option);

struct GeometryAttachment {
  std::filesystem::path geometryFile;                // empty: the projection file's own geometry
  std::optional<GeometryFileFormat> geometryFormat;  // empty: recognised by content
  ProjectionLayout layout = ProjectionLayout::Auto;
  // 3x4 matrices fix the detector's directions but not its distance: the column pitch to place
  // it with (mm).
  double matrixPixelPitchMm = 1.0;
  // IMOD tilt angles: pixel size (0: the MRC or TIFF header, else the file's voxel size, else
  // 1 mm with a warning), tilt axis. IMOD .xf and .xtilt beside an MRC or TIFF stack are used as
  // loadTiltSeries does; alignment / xAxisTilts name them explicitly.
  TiltSeriesOptions tilt;
  std::filesystem::path alignment, xAxisTilts;
};

struct LoadedProjections {
  ProjectionStack projections;
  std::optional<GeometryFileFormat> geometryFormat;   // empty: the projection file's own geometry
  std::string geometryFormatReason;                   // how it was recognised (or "given")
  ProjectionLayout layout = ProjectionLayout::Views;  // as read (never Auto)
  std::vector<std::string> warnings;
  // One line for the user: "360 views of 320 x 240 (ASTRA layout [rows][views][cols]) with
  // ASTRA cone_vec vectors from cone_vec.txt".
  std::string summary;
};

// Without a geometry file: readProjections() (formats that carry a geometry); the other formats
// are refused with a message naming --geometry. Errors name the file and field; a shape mismatch
// names both files.
LoadedProjections loadProjectionsWithGeometry(const std::filesystem::path& projections,
                                              const GeometryAttachment& attachment);

// Projections in a stack a reader can take a band of rows from (an .npy, MetaImage, MRC or TIFF
// stack or TIFF series given with a geometry file, a RabbitCT file), described from its headers and
// the geometry file without reading a sample: the geometry, layout, warnings and summary
// loadProjectionsWithGeometry would give, and where the samples are, for a reader that takes a band
// of detector rows at a time (scale::openProjectionStackRows; out-of-core slab runs).
struct ProjectionStackOnDisk {
  // Contiguous: samples in one file from dataOffset on (.npy, MetaImage, MRC, a contiguous HDF5
  // dataset); TiffPages: the pages of a multi-page TIFF or the files of a TIFF series
  // (io::TiffRowReader); Hdf5Dataset: an HDF5 /volume dataset stored otherwise (chunked,
  // compressed, another sample type), read through libhdf5 (io::readHdf5VolumeBox).
  enum class Storage { Contiguous, TiffPages, Hdf5Dataset };
  Storage storage = Storage::Contiguous;
  std::filesystem::path path;  // the file holding the samples (a MetaImage's data file, a folder)
  std::uint64_t dataOffset = 0;
  // Contiguous, our layout: bytes from one view's first sample to the next's; 0: rows * cols *
  // the sample size (no gap). A RabbitCT file has each view's matrix between its views' pixels.
  std::uint64_t viewStrideBytes = 0;
  SampleType sampleType = SampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  // Contiguous: the samples in Fortran order (the first axis fastest: views in our layout, rows
  // in ASTRA's), as numpy saves a column-major array.
  bool fortranOrder = false;
  ProjectionLayout layout = ProjectionLayout::Views;  // as read (never Auto)
  Geometry geometry;
  std::vector<std::string> warnings;
  std::string summary;
};

// A RabbitCT file needs no geometry file (its matrices are its geometry).
// An HDF5 file's /volume dataset is described either way: Contiguous when it lies contiguously
// as float32 (as this program writes it: io::readHdf5VolumeLayout), else Hdf5Dataset.
// nullopt where the samples have to be loaded whole (loadProjectionsWithGeometry): another format
// (raw + JSON: scale::RawFileRowSource), no geometry file,
// an MRC or TIFF tilt series given tilt angles (the tilt-series loader applies its alignment
// files), or TIFF or HDF5 in a build without libtiff or libhdf5. Errors as
// loadProjectionsWithGeometry's.
std::optional<ProjectionStackOnDisk> describeProjectionStackOnDisk(
    const std::filesystem::path& projections, const GeometryAttachment& attachment);

// An MRC or multi-page TIFF tilt series as the tilt-series loader reads it (io::loadTiltSeries:
// tilt angles from a .tlt or an MRC's header, alignment and x-axis tilt files), described for
// reading a band of rows at a time: its geometry from the headers and companion files, its
// samples where they lie. nullopt for an MRC sample type that needs converting whole, a TIFF in a
// build without libtiff (the loader then reads or refuses it), or a stack whose header disagrees
// with itself (the loader says how). Errors as loadTiltSeries's.
std::optional<ProjectionStackOnDisk> describeTiltSeriesOnDisk(const TiltSeriesSources& sources,
                                                              const TiltSeriesOptions& options);

// Whether an MRC file holds a tilt series (projections) rather than a volume: .st .ali .mrcs
// .preali always; .mrc with at least two sections and NAME.tlt / NAME.rawtlt beside it, whatever
// its space group (ispg; Python's mrcfile writes 1 for stacks), or with ispg 0 and tilt angles in
// a SerialEM extended header. describeFile and the window use this rule.
bool mrcHoldsTiltSeries(const std::filesystem::path& path, const MrcHeader& header);

// Whether the file's format holds a geometry of its own (raw + JSON projections, RabbitCT, an MRC
// tilt series by the rule above). Reads headers only.
bool carriesGeometry(const std::filesystem::path& projections);

}  // namespace tomowb::io
