#include "recon/io/ProjectionsWithGeometry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <utility>

#include "recon/core/Error.h"
#include "recon/geometry/MatrixGeometry.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/GeometryJson.h"
#include "recon/io/Hdf5Volume.h"
#include "recon/io/ImodFiles.h"
#include "recon/io/MetaImageIo.h"
#include "recon/io/MrcIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/RabbitCtReader.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiffIo.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::io {

namespace {

constexpr double kRadPerDeg = std::numbers::pi / 180.0;

std::string lowerExtension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

std::string shapeText(std::int64_t cols, std::int64_t rows) {
  return std::to_string(cols) + " x " + std::to_string(rows);
}

// The geometry file, read but not yet attached: its views, and its detector where it has one.
struct GeometrySource {
  std::filesystem::path path;
  GeometryFileFormat format = GeometryFileFormat::Json;
  std::string reason;
  std::int64_t views = 0;
  std::optional<DetectorShape> detector;     // our JSON only
  Geometry json;                             // Json
  std::vector<std::array<double, 12>> rows;  // ASTRA vectors, matrices
  std::vector<double> tiltsDeg;              // IMOD tilt angles

  std::string what() const {
    std::string text = std::to_string(views) + " views";
    if (detector) text += " of " + shapeText(detector->cols, detector->rows);
    return text;
  }
};

GeometrySource readGeometrySource(const GeometryAttachment& a) {
  GeometrySource s;
  s.path = a.geometryFile;
  if (a.geometryFormat) {
    s.format = *a.geometryFormat;
    s.reason = "given as " + std::string(toString(s.format));
  } else {
    DetectedGeometryFormat detected = detectGeometryFileFormat(a.geometryFile);
    s.format = detected.format;
    s.reason = std::move(detected.reason);
  }
  switch (s.format) {
    case GeometryFileFormat::Json:
      s.json = loadGeometry(a.geometryFile);
      s.views = s.json.viewCount();
      s.detector = s.json.detector();
      break;
    case GeometryFileFormat::AstraCone:
    case GeometryFileFormat::AstraParallel:
      s.rows = readTwelveNumbersPerView(a.geometryFile);
      s.views = static_cast<std::int64_t>(s.rows.size());
      break;
    case GeometryFileFormat::Matrices:
      s.rows = readTwelveNumbersPerView(a.geometryFile, true);
      s.views = static_cast<std::int64_t>(s.rows.size());
      break;
    case GeometryFileFormat::ImodTilts:
      s.tiltsDeg = readTiltAnglesDeg(a.geometryFile);
      s.views = static_cast<std::int64_t>(s.tiltsDeg.size());
      break;
  }
  return s;
}

Eigen::Vector3d vec(const std::array<double, 12>& r, int first) {
  return {r[first], r[first + 1], r[first + 2]};
}

// The geometry for a detector of `detector` pixels; `pixelSizeMm` (> 0) for tilt angles.
Geometry attach(const GeometrySource& s, DetectorShape detector, double pixelSizeMm,
                const GeometryAttachment& a) {
  try {
    switch (s.format) {
      case GeometryFileFormat::Json:
        return s.json;
      case GeometryFileFormat::AstraCone:
      case GeometryFileFormat::AstraParallel: {
        const bool cone = s.format == GeometryFileFormat::AstraCone;
        std::vector<View> views;
        views.reserve(s.rows.size());
        for (const auto& r : s.rows) {
          View view;
          if (cone)
            view.source = vec(r, 0);
          else
            view.rayDirection = vec(r, 0).normalized();
          view.detectorCentre = vec(r, 3);
          view.u = vec(r, 6);
          view.v = vec(r, 9);
          views.push_back(view);
        }
        Geometry g(cone ? BeamKind::Cone : BeamKind::Parallel, detector, std::move(views));
        g.validate();
        return g;
      }
      case GeometryFileFormat::Matrices: {
        std::vector<ProjectionMatrix> matrices;
        matrices.reserve(s.rows.size());
        for (const auto& r : s.rows) {
          ProjectionMatrix p;
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 4; ++j)
              p(i, j) = r[4 * static_cast<std::size_t>(i) + static_cast<std::size_t>(j)];
          matrices.push_back(p);
        }
        return geometryFromMatrices(beamOfMatrices(s.rows), detector, matrices,
                                    a.matrixPixelPitchMm);
      }
      case GeometryFileFormat::ImodTilts: {
        TiltSeriesParams p;
        p.cols = detector.cols;
        p.rows = detector.rows;
        p.pixelSizeMm = pixelSizeMm;
        for (double deg : s.tiltsDeg) p.tiltAnglesRad.push_back(deg * kRadPerDeg);
        p.tiltAxisAngleRad = a.tilt.tiltAxisAngleRad;
        p.tiltAxisShiftPixels = a.tilt.tiltAxisShiftPixels;
        Geometry g = tiltSeries(p);
        if (a.tilt.xAxisTiltRad != 0)
          applyXAxisTilts(g, std::vector<double>(s.tiltsDeg.size(), a.tilt.xAxisTiltRad));
        return g;
      }
    }
  } catch (const ParameterError& e) {
    throw FormatError(s.path, e.what());
  }
  throw FormatError(s.path, "unknown geometry format");
}

// Which layout a stack a[slow][middle][fast] = (nz, ny, nx) has, by the geometry's views (and
// detector); FormatError naming both files when none fits, or when both do.
ProjectionLayout chooseLayout(const std::filesystem::path& data, VolumeShape shape,
                              const GeometrySource& s, ProjectionLayout requested) {
  const auto detectorFits = [&](std::int64_t rows) {
    return !s.detector || (s.detector->cols == shape.nx && s.detector->rows == rows);
  };
  const bool fitsViews = shape.nz == s.views && detectorFits(shape.ny);
  const bool fitsAstra = shape.ny == s.views && detectorFits(shape.nz);
  const std::string stack = "holds an array of " + std::to_string(shape.nz) + " x " +
                            std::to_string(shape.ny) + " x " + std::to_string(shape.nx) +
                            " (slowest axis first; the last is the detector's columns)";
  const std::string geometry =
      "the geometry " + s.path.string() + " (" + describe(s.format) + ") has " + s.what();
  const auto mismatch = [&](const std::string& expected) {
    return FormatError(data, stack + " but " + geometry + "; " + expected);
  };
  switch (requested) {
    case ProjectionLayout::Views:
      if (!fitsViews)
        throw mismatch(
            "with --layout views the first axis must be the views and the other two " +
            std::string(s.detector ? "the detector's rows and columns" : "the detector") +
            " ([views][rows][cols])");
      return ProjectionLayout::Views;
    case ProjectionLayout::Astra:
      if (!fitsAstra)
        throw mismatch(
            "with --layout astra the middle axis must be the views ([rows][views][cols])");
      return ProjectionLayout::Astra;
    case ProjectionLayout::Auto:
      break;
  }
  // With one row or one view both readings are the same memory.
  if (fitsViews && (!fitsAstra || shape.ny == 1 || shape.nz == 1)) return ProjectionLayout::Views;
  if (fitsAstra && !fitsViews) return ProjectionLayout::Astra;
  if (fitsViews)
    throw FormatError(data, stack + ", and " + geometry +
                                ": the views could be the first axis ([views][rows][cols], ours "
                                "and TIGRE's) or the middle one (ASTRA's [rows][views][cols]); "
                                "say which with --layout views or --layout astra");
  throw mismatch(
      "the view count must match the first axis ([views][rows][cols], ours and TIGRE's) or the "
      "middle axis (ASTRA's [rows][views][cols])" +
      std::string(s.detector ? ", and the other two the detector's rows and columns" : ""));
}

// A stack read as a volume a[slow][middle][fast], as projections in `layout`.
ProjectionStack arrange(Volume stack, Geometry geometry, ProjectionLayout layout) {
  if (layout == ProjectionLayout::Views)
    return {std::move(geometry), std::move(stack).takeVoxels()};
  // ASTRA: a[row][view][col] -> [view][row][col], one detector line at a time.
  ProjectionStack out(std::move(geometry));
  const std::int64_t rows = stack.nz(), views = stack.ny(), cols = stack.nx();
  const float* in = stack.data();
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t v = 0; v < views; ++v) {
      const float* line = in + (r * views + v) * cols;
      std::copy(line, line + cols, &out.at(v, r, 0));
    }
  return out;
}

std::string layoutText(ProjectionLayout layout) {
  return layout == ProjectionLayout::Astra ? "ASTRA layout [rows][views][cols]"
                                           : "layout [views][rows][cols]";
}

void summarise(LoadedProjections& out, const std::filesystem::path& data, const GeometrySource* s) {
  const ProjectionStack& p = out.projections;
  out.summary = data.filename().string() + ": " + std::to_string(p.viewCount()) + " views of " +
                shapeText(p.cols(), p.rows()) + " (" + layoutText(out.layout) + ")";
  if (s)
    out.summary += " with " + describe(s->format) + " from " + s->path.filename().string() + " (" +
                   s->reason + ")";
}

}  // namespace

std::string_view toString(ProjectionLayout layout) {
  switch (layout) {
    case ProjectionLayout::Auto:
      return "auto";
    case ProjectionLayout::Views:
      return "views";
    case ProjectionLayout::Astra:
      return "astra";
  }
  return "auto";
}

ProjectionLayout projectionLayoutFromName(std::string_view name, std::string_view option) {
  for (ProjectionLayout l :
       {ProjectionLayout::Auto, ProjectionLayout::Views, ProjectionLayout::Astra})
    if (name == toString(l)) return l;
  throw ParameterError(option,
                       "must be auto, views ([views][rows][cols], ours and TIGRE's) or "
                       "astra ([rows][views][cols]), got '" +
                           std::string(name) + "'");
}

bool mrcHoldsTiltSeries(const std::filesystem::path& path, const MrcHeader& header) {
  const std::string ext = lowerExtension(path);
  if (ext == ".st" || ext == ".ali" || ext == ".mrcs" || ext == ".preali") return true;
  if (ext != ".mrc" || header.nz < 2) return false;
  // Tilt angles beside it make it a tilt series whatever the space group (mrcfile and other
  // Python pipelines write ispg 1 for stacks); a SerialEM header alone only with ispg 0.
  if (!findCompanionFiles(path).tiltAngles.empty()) return true;
  return header.spaceGroup == 0 && header.tiltAnglesDeg.has_value();
}

bool carriesGeometry(const std::filesystem::path& projections) {
  switch (dataFormatForPath(projections)) {
    case DataFormat::RawJson:
      return readRawSidecar(projections).content == RawContent::Projections;
    case DataFormat::RabbitCt:
      return true;
    case DataFormat::Mrc:
      return mrcHoldsTiltSeries(projections, readMrcHeader(projections));
    default:
      return false;
  }
}

namespace {

// `out` with `projections`, read as [view][row][col], and its summary.
LoadedProjections asViews(LoadedProjections out, ProjectionStack projections,
                          const std::filesystem::path& data, const GeometrySource* s) {
  out.projections = std::move(projections);
  out.layout = ProjectionLayout::Views;
  summarise(out, data, s);
  return out;
}

// No geometry file: only the files that carry their own geometry.
LoadedProjections loadWithItsOwnGeometry(const std::filesystem::path& data, DataFormat format,
                                         const GeometryAttachment& a) {
  if (a.layout == ProjectionLayout::Astra)
    throw ParameterError("--layout",
                         "astra needs --geometry: the files that carry their own "
                         "geometry hold [views][rows][cols]");
  if (format != DataFormat::RawJson && format != DataFormat::RabbitCt && format != DataFormat::Mrc)
    throw ParameterError("--geometry",
                         "'" + data.string() + "' is " + toString(format) +
                             ", which carries no geometry: give --geometry FILE (our geometry "
                             "JSON, ASTRA cone_vec or parallel3d_vec text, 3x4 matrices or an "
                             "IMOD .tlt; docs/astra-users.md)");
  LoadedProjections out;
  ProjectionStack p = readProjections(data, &out.warnings);
  return asViews(std::move(out), std::move(p), data, nullptr);
}

// An MRC or multi-page TIFF stack with tilt angles: the tilt-series loader (header pixel size,
// .xf / .xtilt beside the stack).
LoadedProjections loadTiltSeriesStack(const std::filesystem::path& data,
                                      const GeometryAttachment& a, const GeometrySource& s,
                                      LoadedProjections out) {
  TiltSeriesSources sources = findCompanionFiles(data);
  sources.stack = data;
  sources.tiltAngles = a.geometryFile;
  if (!a.alignment.empty()) sources.alignment = a.alignment;
  if (!a.xAxisTilts.empty()) sources.xAxisTilts = a.xAxisTilts;
  LoadedTiltSeries loaded = loadTiltSeries(sources, a.tilt);
  out.warnings = std::move(loaded.warnings);
  return asViews(std::move(out), std::move(loaded.projections), data, &s);
}

// Files with a geometry of their own (RabbitCT, our raw projections): their pixels are
// [view][row][col]; the new geometry replaces theirs.
LoadedProjections loadReplacingItsGeometry(const std::filesystem::path& data, DataFormat format,
                                           const GeometryAttachment& a, const GeometrySource& s,
                                           LoadedProjections out) {
  if (a.layout == ProjectionLayout::Astra)
    throw ParameterError("--layout", "'" + data.string() +
                                         "' says its own layout, [views][rows][cols]; leave "
                                         "--layout out");
  ProjectionStack p = format == DataFormat::RabbitCt ? std::move(readRabbitCt(data).projections)
                                                     : readProjectionsRaw(data);
  chooseLayout(data, {p.cols(), p.rows(), p.viewCount()}, s, ProjectionLayout::Views);
  p.geometry() =
      attach(s, p.geometry().detector(), a.tilt.pixelSizeMm > 0 ? a.tilt.pixelSizeMm : 1.0, a);
  out.warnings.push_back("the geometry of " + data.string() + " is replaced by " +
                         a.geometryFile.string());
  return asViews(std::move(out), std::move(p), data, &s);
}

// Everything else is a stack of images read as a volume a[slow][middle][fast].
LoadedProjections loadStackOfImages(const std::filesystem::path& data, DataFormat format,
                                    const GeometryAttachment& a, const GeometrySource& s,
                                    LoadedProjections out) {
  Volume stack =
      format == DataFormat::Mrc ? readMrcVolume(data, {}, &out.warnings) : readVolume(data);
  out.layout = chooseLayout(data, stack.shape(), s, a.layout);
  const std::int64_t rows = out.layout == ProjectionLayout::Astra ? stack.nz() : stack.ny();
  double pixelSizeMm = a.tilt.pixelSizeMm;
  if (s.format == GeometryFileFormat::ImodTilts && !(pixelSizeMm > 0)) {
    if (format == DataFormat::Npy || format == DataFormat::TiffSeries) {
      pixelSizeMm = 1.0;
      out.warnings.push_back(data.string() +
                             ": pixel size unknown (the file has none): using 1 mm per pixel, so "
                             "lengths are in pixels; set the pixel size to get millimetres");
    } else {
      pixelSizeMm = stack.voxelSizeMm().x();
    }
  }
  Geometry g = attach(s, {stack.nx(), rows}, pixelSizeMm > 0 ? pixelSizeMm : 1.0, a);
  out.projections = arrange(std::move(stack), std::move(g), out.layout);
  summarise(out, data, &s);
  return out;
}

}  // namespace

LoadedProjections loadProjectionsWithGeometry(const std::filesystem::path& data,
                                              const GeometryAttachment& a) {
  const DataFormat format = dataFormatForPath(data);
  if (a.geometryFile.empty()) return loadWithItsOwnGeometry(data, format, a);
  const GeometrySource s = readGeometrySource(a);
  LoadedProjections out;
  out.geometryFormat = s.format;
  out.geometryFormatReason = s.reason;
  if (s.format == GeometryFileFormat::ImodTilts &&
      (format == DataFormat::Mrc || format == DataFormat::Tiff) &&
      a.layout != ProjectionLayout::Astra)
    return loadTiltSeriesStack(data, a, s, std::move(out));
  const bool ownGeometry =
      format == DataFormat::RabbitCt ||
      (format == DataFormat::RawJson && readRawSidecar(data).content == RawContent::Projections);
  if (ownGeometry) return loadReplacingItsGeometry(data, format, a, s, std::move(out));
  return loadStackOfImages(data, format, a, s, std::move(out));
}

namespace {

// Where a stack's samples lie, read from its header: the file, offset, sample type, byte order,
// the shape as a volume a[slow][middle][fast], and the header's pixel size (0: none).
struct StackSamples {
  std::filesystem::path dataPath;
  std::uint64_t offset = 0;
  SampleType sampleType = SampleType::Float32;
  ByteOrder byteOrder = ByteOrder::Little;
  VolumeShape shape;
  double pixelSizeMm = 0;
  std::vector<std::string> warnings;  // the header's oddities (MRC)
  bool throughHdf5 = false;           // an HDF5 dataset libhdf5 must read (Storage::Hdf5Dataset)
  bool fortranOrder = false;          // a Fortran-order .npy: the first axis fastest
};

std::optional<StackSamples> stackSamples(const std::filesystem::path& data, DataFormat format) {
  StackSamples out;
  switch (format) {
    case DataFormat::Npy: {
      const NpyHeader header = readNpyHeader(data);
      // As readNpy: the last three axes (slowest first), the others 1.
      std::int64_t dims[3] = {1, 1, 1};
      const std::size_t n = header.shape.size();
      for (std::size_t k = 0; k < std::min<std::size_t>(n, 3); ++k)
        dims[2 - k] = header.shape[n - 1 - k];
      out = {data,
             header.dataOffset,
             header.sampleType,
             header.byteOrder,
             VolumeShape{dims[2], dims[1], dims[0]},
             0.0,
             {}};
      out.fortranOrder = header.fortranOrder;
      return out;
    }
    case DataFormat::MetaImage: {
      const MetaImageHeader header = readMetaImageHeader(data);
      out = {header.dataPath,
             header.dataOffset,
             header.sampleType,
             header.byteOrder,
             header.shape,
             header.spacingMm.x(),
             {}};
      return out;
    }
    case DataFormat::Mrc: {
      const MrcHeader header = readMrcHeader(data);
      const std::optional<SampleType> type = plainSampleType(header.sampleType);
      if (!type) return std::nullopt;
      out = {data,
             header.dataOffset,
             *type,
             header.byteOrder,
             VolumeShape{header.nx, header.ny, header.nz},
             header.spacingMm.x(),
             header.warnings};
      return out;
    }
    case DataFormat::Hdf5: {
      // Our /volume dataset read as [views][rows][cols] (or ASTRA's [rows][views][cols]), as
      // readVolume gives it: by pread when it lies contiguously as float32, else through libhdf5.
      if (!hdf5VolumesSupported()) return std::nullopt;
      const Hdf5VolumeLayout layout = readHdf5VolumeLayout(data);
      out.dataPath = data;
      out.offset = layout.contiguousOffset.value_or(0);
      out.throughHdf5 = !layout.contiguousOffset;
      out.shape = layout.grid.shape;
      out.pixelSizeMm = layout.grid.voxelSizeMm.x();
      return out;
    }
#if TOMOWB_HAVE_TIFF
    case DataFormat::Tiff:
    case DataFormat::TiffSeries: {
      // As readVolume: pages (or files) along z. A series holds no pixel size we take (as
      // loadProjectionsWithGeometry).
      const TiffInfo info = readTiffInfo(data);
      out.dataPath = data;
      out.shape = {info.width, info.height, info.pages};
      out.pixelSizeMm = format == DataFormat::Tiff ? info.voxelSizeMm.x() : 0.0;
      return out;
    }
#endif
    default:
      return std::nullopt;
  }
}

// A RabbitCT file: its views lie one after the other, each a matrix then the pixels. Its own
// geometry, or (with a geometry file) that file's, as loadProjectionsWithGeometry gives them.
ProjectionStackOnDisk describeRabbitCtOnDisk(const std::filesystem::path& data,
                                             const GeometryAttachment& a) {
  if (!a.geometryFile.empty() && a.layout == ProjectionLayout::Astra)
    throw ParameterError("--layout", "'" + data.string() +
                                         "' says its own layout, [views][rows][cols]; leave "
                                         "--layout out");
  RabbitCtLayout rct = readRabbitCtLayout(data);
  ProjectionStackOnDisk out;
  out.path = data;
  out.dataOffset = rct.pixelsOffset;
  out.viewStrideBytes = rct.viewStrideBytes;
  out.layout = ProjectionLayout::Views;
  const DetectorShape detector = rct.geometry.detector();
  std::string from = "its own matrices";
  if (a.geometryFile.empty()) {
    out.geometry = std::move(rct.geometry);
  } else {
    const GeometrySource s = readGeometrySource(a);
    chooseLayout(data, {detector.cols, detector.rows, rct.geometry.viewCount()}, s,
                 ProjectionLayout::Views);
    out.geometry = attach(s, detector, a.tilt.pixelSizeMm > 0 ? a.tilt.pixelSizeMm : 1.0, a);
    out.warnings.push_back("the geometry of " + data.string() + " is replaced by " +
                           a.geometryFile.string());
    from = describe(s.format) + " from " + s.path.filename().string() + " (" + s.reason + ")";
  }
  out.summary = data.filename().string() + ": " + std::to_string(out.geometry.viewCount()) +
                " views of " + shapeText(detector.cols, detector.rows) + " (RabbitCT) with " +
                from + ", read a band of rows at a time";
  return out;
}

}  // namespace

std::optional<ProjectionStackOnDisk> describeTiltSeriesOnDisk(const TiltSeriesSources& sources,
                                                              const TiltSeriesOptions& options) {
  const DataFormat format = dataFormatForPath(sources.stack);
  if (format != DataFormat::Mrc && format != DataFormat::Tiff) return std::nullopt;
  const std::optional<StackSamples> samples = stackSamples(sources.stack, format);
  if (!samples) return std::nullopt;  // (a TIFF without libtiff: the loader says so)
  TiltSeriesDescription d = describeTiltSeries(sources, options);
  const VolumeShape& shape = samples->shape;
  if (d.isMrc != (format == DataFormat::Mrc) || shape.nx != d.cols || shape.ny != d.rows ||
      shape.nz != d.views)
    return std::nullopt;
  ProjectionStackOnDisk out;
  out.storage = format == DataFormat::Mrc ? ProjectionStackOnDisk::Storage::Contiguous
                                          : ProjectionStackOnDisk::Storage::TiffPages;
  out.path = samples->dataPath;
  out.dataOffset = samples->offset;
  out.sampleType = samples->sampleType;
  out.byteOrder = samples->byteOrder;
  out.layout = ProjectionLayout::Views;
  out.warnings = std::move(d.warnings);  // the header's own warnings among them
  out.geometry = std::move(d.geometry);
  out.summary = sources.stack.filename().string() + ": " + std::to_string(d.views) + " views of " +
                shapeText(d.cols, d.rows) + " (tilt series) with tilt angles from " +
                (sources.tiltAngles.empty() ? std::string("its header")
                                            : sources.tiltAngles.filename().string()) +
                (sources.alignment.empty() ? "" : ", " + sources.alignment.filename().string()) +
                (sources.xAxisTilts.empty() ? "" : ", " + sources.xAxisTilts.filename().string()) +
                ", read a band of rows at a time";
  return out;
}

std::optional<ProjectionStackOnDisk> describeProjectionStackOnDisk(
    const std::filesystem::path& data, const GeometryAttachment& a) {
  const DataFormat format = dataFormatForPath(data);
  if (format == DataFormat::RabbitCt) return describeRabbitCtOnDisk(data, a);
  if (a.geometryFile.empty()) return std::nullopt;
  const bool tiff = format == DataFormat::Tiff || format == DataFormat::TiffSeries;
  if (format != DataFormat::Npy && format != DataFormat::MetaImage && format != DataFormat::Mrc &&
      format != DataFormat::Hdf5 && !tiff)
    return std::nullopt;  // (TIFF without libtiff, HDF5 without libhdf5: stackSamples says so)
  const GeometrySource s = readGeometrySource(a);
  // An MRC or TIFF tilt series with tilt angles goes through the tilt-series loader (alignment
  // files beside it), as loadProjectionsWithGeometry does.
  if ((format == DataFormat::Mrc || format == DataFormat::Tiff) &&
      s.format == GeometryFileFormat::ImodTilts && a.layout != ProjectionLayout::Astra)
    return std::nullopt;
  const std::optional<StackSamples> samples = stackSamples(data, format);
  if (!samples) return std::nullopt;
  const VolumeShape shape = samples->shape;
  ProjectionStackOnDisk out;
  out.storage = tiff                   ? ProjectionStackOnDisk::Storage::TiffPages
                : samples->throughHdf5 ? ProjectionStackOnDisk::Storage::Hdf5Dataset
                                       : ProjectionStackOnDisk::Storage::Contiguous;
  out.path = samples->dataPath;
  out.dataOffset = samples->offset;
  out.sampleType = samples->sampleType;
  out.byteOrder = samples->byteOrder;
  out.warnings = samples->warnings;
  out.layout = chooseLayout(data, shape, s, a.layout);
  out.fortranOrder = samples->fortranOrder;
  const std::int64_t rows = out.layout == ProjectionLayout::Astra ? shape.nz : shape.ny;
  double pixelSizeMm = a.tilt.pixelSizeMm;
  if (s.format == GeometryFileFormat::ImodTilts && !(pixelSizeMm > 0)) {
    // As loadProjectionsWithGeometry: the header's pixel size (MRC, MetaImage, a TIFF file),
    // else 1 mm.
    pixelSizeMm = samples->pixelSizeMm;
    if (!(pixelSizeMm > 0))
      out.warnings.push_back(data.string() +
                             ": pixel size unknown (the file has none): using 1 mm per pixel, so "
                             "lengths are in pixels; set the pixel size to get millimetres");
  }
  out.geometry = attach(s, {shape.nx, rows}, pixelSizeMm > 0 ? pixelSizeMm : 1.0, a);
  out.summary = data.filename().string() + ": " + std::to_string(out.geometry.viewCount()) +
                " views of " + shapeText(shape.nx, rows) + " (" + layoutText(out.layout) +
                ") with " + describe(s.format) + " from " + s.path.filename().string() + " (" +
                s.reason + "), read a band of rows at a time";
  return out;
}

}  // namespace tomowb::io
