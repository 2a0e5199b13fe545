// ProjectionRowSource: the detector rows a slab needs, of every view, without the whole stack in
// memory (issue #22, point 2). A source knows the stack's geometry and reads a band of rows into
// a ProjectionStack whose geometry is the same detector cropped to that band (the band's pixels
// at the same world positions), which FDK reconstructs like any stack.
//  - InMemoryRowSource: a stack already in memory (any format the readers take).
//  - RawFileRowSource: our raw projections (tomowb-projections sidecar + sample file, io/
//    RawVolumeIo.h), read band by band with pread: memory holds one band, not the file.
//  - StackFileRowSource, TiffStackRowSource: a stack in another format given with a geometry file
//    (io::describeProjectionStackOnDisk; openProjectionStackRows picks the one for it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "recon/data/ProjectionStack.h"
#include "recon/geometry/Geometry.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/RawVolumeIo.h"

namespace tomowb::io {
class InputFile;
}

namespace tomowb::scale {

// The geometry of rows [rowFirst, rowLast] of `geometry`'s detector: every view's detector
// centre moved to the band's centre. Throws ParameterError for rows outside the detector.
Geometry cropRows(const Geometry& geometry, std::int64_t rowFirst, std::int64_t rowLast);

class ProjectionRowSource {
 public:
  virtual ~ProjectionRowSource() = default;
  virtual const Geometry& geometry() const = 0;
  // Rows [rowFirst, rowLast] of every view, with cropRows' geometry.
  virtual ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) = 0;
  // The rows of several bands (inclusive [first, last] each) of every view, one band after the
  // other per view: a mirrored slab pair's two bands (fdk::FdkMirrorPair). The stack's geometry
  // is cropRows' of the first band's first row and as many rows as the bands hold, which is not
  // where the later bands lie: the caller knows the bands. This one reads each band with
  // readRows and copies it into place; sources that read a view's rows with one pread do it
  // without the copy.
  virtual ProjectionStack readRowBands(
      const std::vector<std::pair<std::int64_t, std::int64_t>>& bands);
  // Where the samples come from, for messages and run records.
  virtual std::filesystem::path path() const { return {}; }
};

class InMemoryRowSource : public ProjectionRowSource {
 public:
  explicit InMemoryRowSource(const ProjectionStack& stack) : stack_(stack) {}
  const Geometry& geometry() const override { return stack_.geometry(); }
  ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override;

 private:
  const ProjectionStack& stack_;
};

class RawFileRowSource : public ProjectionRowSource {
 public:
  // Reads and checks the sidecar and the sample file's length (FormatError naming the file).
  explicit RawFileRowSource(const std::filesystem::path& rawOrJsonPath);
  ~RawFileRowSource() override;
  RawFileRowSource(const RawFileRowSource&) = delete;
  RawFileRowSource& operator=(const RawFileRowSource&) = delete;
  RawFileRowSource(RawFileRowSource&&) = delete;
  RawFileRowSource& operator=(RawFileRowSource&&) = delete;
  const Geometry& geometry() const override { return sidecar_.geometry; }
  ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override;
  ProjectionStack readRowBands(
      const std::vector<std::pair<std::int64_t, std::int64_t>>& bands) override;
  std::filesystem::path path() const override { return sidecar_.dataPath; }

 private:
  io::RawSidecar sidecar_;
  std::unique_ptr<io::InputFile> file_;
};

// Projections whose samples lie uncompressed in one file (io::describeProjectionStackOnDisk: an
// .npy, MetaImage or MRC stack with a geometry file), in our layout or ASTRA's, read a band of rows
// at a time: one pread per view ([views][rows][cols]), one for the whole band
// ([rows][views][cols]), or one per detector column (a Fortran-order .npy in our layout; in
// ASTRA's, rows fastest: one per column and view when a view's band fills a page, else the
// column's whole span of views).
class StackFileRowSource : public ProjectionRowSource {
 public:
  explicit StackFileRowSource(io::ProjectionStackOnDisk stack);
  ~StackFileRowSource() override;
  StackFileRowSource(const StackFileRowSource&) = delete;
  StackFileRowSource& operator=(const StackFileRowSource&) = delete;
  StackFileRowSource(StackFileRowSource&&) = delete;
  StackFileRowSource& operator=(StackFileRowSource&&) = delete;
  const Geometry& geometry() const override { return stack_.geometry; }
  ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override;
  std::filesystem::path path() const override { return stack_.path; }

 private:
  // A Fortran-order stack in ASTRA's layout (rows fastest): per column, the band of every view.
  ProjectionStack readAstraFortranRows(std::int64_t rowFirst, std::int64_t rowLast);

  io::ProjectionStackOnDisk stack_;
  std::unique_ptr<io::InputFile> file_;
};

// A multi-page TIFF or a TIFF series with a geometry file (io::describeProjectionStackOnDisk,
// Storage::TiffPages), read through io::TiffRowReader: in our layout (a page per view) each band
// decodes only the strips or tiles of every page that hold its rows; in ASTRA's (a page per row)
// only the band's pages. Every page's header is checked when the source is made; a stack whose
// shape no longer matches the description is a FormatError naming it.
class TiffStackRowSource : public ProjectionRowSource {
 public:
  explicit TiffStackRowSource(io::ProjectionStackOnDisk stack);
  ~TiffStackRowSource() override;
  TiffStackRowSource(const TiffStackRowSource&) = delete;
  TiffStackRowSource& operator=(const TiffStackRowSource&) = delete;
  TiffStackRowSource(TiffStackRowSource&&) = delete;
  TiffStackRowSource& operator=(TiffStackRowSource&&) = delete;
  const Geometry& geometry() const override { return stack_.geometry; }
  ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override;
  std::filesystem::path path() const override { return stack_.path; }

 private:
  io::ProjectionStackOnDisk stack_;
  struct Reader;
  std::unique_ptr<Reader> reader_;
};

// An HDF5 /volume dataset stored chunked, compressed or as another sample type, with a geometry
// file (io::describeProjectionStackOnDisk, Storage::Hdf5Dataset), read through libhdf5 in a
// child process (io::readHdf5VolumeBox): in our layout each band reads its rows of every view,
// in ASTRA's its slices; libhdf5 decodes only the chunks those touch.
class Hdf5StackRowSource : public ProjectionRowSource {
 public:
  explicit Hdf5StackRowSource(io::ProjectionStackOnDisk stack) : stack_(std::move(stack)) {}
  const Geometry& geometry() const override { return stack_.geometry; }
  ProjectionStack readRows(std::int64_t rowFirst, std::int64_t rowLast) override;
  std::filesystem::path path() const override { return stack_.path; }

 private:
  io::ProjectionStackOnDisk stack_;
};

// The source for a described stack: StackFileRowSource, TiffStackRowSource or
// Hdf5StackRowSource.
std::unique_ptr<ProjectionRowSource> openProjectionStackRows(io::ProjectionStackOnDisk stack);

}  // namespace tomowb::scale
