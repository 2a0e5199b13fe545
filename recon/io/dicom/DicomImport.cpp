// DicomImport.cpp: see the header. Finds a folder's image files and series, then sorts the planes
// and assembles the volume; one file's header is read in DicomImageHeader.cpp, its pixels are
// decoded in DicomPixelData.h/.cpp.
#include "recon/io/dicom/DicomImport.h"

#include <sys/mman.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "recon/core/Error.h"
#include "recon/io/InputFile.h"
#include "recon/io/ReaderLimits.h"
#include "recon/io/dicom/DicomDcmtkSupport.h"  // DCMTK first (osconfig.h)
#include "recon/io/dicom/DicomGeometry.h"
#include "recon/io/dicom/DicomImageHeader.h"
#include "recon/io/dicom/DicomNesting.h"
#include "recon/io/dicom/DicomPixelData.h"
#include "recon/job/JobContext.h"

namespace tomowb::io::dicom {

namespace fs = std::filesystem;

namespace {

using detail::decodePixels;
using detail::fileError;
using detail::ImageHeader;
using detail::ImageKind;
using detail::kDirectionTolerance;
using detail::kindName;
using detail::loadHeader;
using detail::Plane;
using detail::readHeader;
using detail::storedValue;
using detail::UnsupportedObject;

constexpr double kSpacingTolerance = 0.01;  // relative unevenness of slice positions

bool hasDicomExtension(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".dcm" || ext == ".dicom" || ext == ".ima";
}

std::vector<fs::path> candidateFiles(const fs::path& fileOrFolder) {
  std::error_code ec;
  if (fs::is_regular_file(fileOrFolder, ec)) return {fileOrFolder};
  if (!fs::is_directory(fileOrFolder, ec))
    throw IoError(fileOrFolder, "is neither a file nor a folder");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fileOrFolder, ec)) {
    // A pipe or device named like a slice is kept, so that reading it fails naming it.
    if (entry.is_directory(ec) || (!entry.is_regular_file(ec) && !hasDicomExtension(entry.path())))
      continue;
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || name == "DICOMDIR") continue;
    files.push_back(entry.path());
    if (static_cast<std::int64_t>(files.size()) > kMaxSeriesFiles)
      throw FormatError(fileOrFolder,
                        "holds more than " + std::to_string(kMaxSeriesFiles) + " files");
  }
  if (ec) throw IoError(fileOrFolder, "cannot list the folder: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

// Through InputFile: a FIFO or device in a folder is refused by name, never waited on.
bool hasDicomPreamble(const fs::path& path) {
  const InputFile file(path);
  if (file.size() < 132) return false;
  return file.readString(128, 4, "preamble") == "DICM";
}

// The image files of a folder, read as headers. A file that claims to be DICOM (the preamble, or
// a .dcm/.dicom/.ima name) and cannot be read is an error naming it: a slice is never dropped
// quietly. Other files (no preamble, another name) and DICOM objects that are not CT/PET images
// are skipped with a warning; a single file given by name must be a readable image.
std::vector<ImageHeader> scanHeaders(const fs::path& fileOrFolder, const JobContext* context,
                                     std::vector<std::string>* warnings) {
  initialiseDcmtk();
  const bool single = fs::is_regular_file(fileOrFolder);
  std::vector<ImageHeader> headers;
  const std::vector<fs::path> files = candidateFiles(fileOrFolder);
  std::string firstProblem;
  std::vector<std::string> notDicom, notImages;
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (context) {
      context->throwIfCancelled();
      context->reportProgress("reading DICOM headers", 0.2 * static_cast<double>(i) / files.size());
    }
    const bool named = hasDicomExtension(files[i]);
    bool claimsDicom = named;
    try {
      claimsDicom = hasDicomPreamble(files[i]) || named;
    } catch (const Error&) {
      if (single || named) throw;  // cannot be opened, or a pipe or device: named, so an error
    }
    if (!single && !claimsDicom) {
      notDicom.push_back(files[i].filename().string());
      continue;
    }
    try {
      headers.push_back(loadHeader(files[i]));
    } catch (const UnsupportedObject& e) {
      if (single) throw;
      if (firstProblem.empty()) firstProblem = e.what();
      notImages.push_back(files[i].filename().string());
    }
  }
  if (headers.empty())
    throw FormatError(fileOrFolder,
                      firstProblem.empty()
                          ? std::string("holds no DICOM image files")
                          : "holds no readable CT, Enhanced CT or PET image: " + firstProblem);
  const auto warnSkipped = [&](const std::vector<std::string>& names, const std::string& what) {
    if (names.empty() || !warnings) return;
    std::string shown;
    for (std::size_t k = 0; k < names.size() && k < 3; ++k) shown += (k ? ", " : "") + names[k];
    if (names.size() > 3) shown += ", ...";
    warnings->push_back(fileOrFolder.string() + ": skipped " + std::to_string(names.size()) + " " +
                        what + " (" + shown + ")");
  };
  warnSkipped(notDicom, "file(s) without the DICOM preamble or a .dcm name");
  warnSkipped(notImages, "DICOM object(s) that are not CT, Enhanced CT or PET images");
  return headers;
}

std::vector<DicomSeriesInfo> summarise(const std::vector<ImageHeader>& headers) {
  std::vector<DicomSeriesInfo> list;
  std::map<std::string, std::size_t> bySeries;
  for (const ImageHeader& h : headers) {
    auto [it, inserted] = bySeries.try_emplace(h.series.seriesInstanceUid, list.size());
    if (inserted) {
      list.push_back(h.series);
      continue;
    }
    DicomSeriesInfo& s = list[it->second];
    s.files += 1;
    s.frames += h.frames;
  }
  return list;
}

std::string describeSeries(const DicomSeriesInfo& s) {
  return "'" +
         (s.seriesDescription.empty() ? std::string("(no description)") : s.seriesDescription) +
         "' (" + s.sopClass + ", " + std::to_string(s.frames) + " images, UID " +
         s.seriesInstanceUid + ")";
}

}  // namespace

bool looksLikeDicom(const fs::path& fileOrFolder) {
  std::error_code ec;
  if (fs::is_regular_file(fileOrFolder, ec)) {
    // A .dcm name is a claim too: reading it then says what is wrong with it.
    if (hasDicomExtension(fileOrFolder)) return true;
    try {
      return hasDicomPreamble(fileOrFolder);
    } catch (const Error&) {
      return false;
    }
  }
  if (!fs::is_directory(fileOrFolder, ec)) return false;
  int looked = 0;
  for (const auto& entry : fs::directory_iterator(fileOrFolder, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    try {
      if (hasDicomPreamble(entry.path())) return true;
    } catch (const Error&) {
      // unreadable: not evidence either way
    }
    if (++looked >= 64) break;  // a folder of something else: stop early
  }
  return false;
}

std::vector<DicomSeriesInfo> listDicomSeries(const fs::path& fileOrFolder,
                                             std::vector<std::string>* warnings) {
  return summarise(scanHeaders(fileOrFolder, nullptr, warnings));
}

DicomVolume readDicomSeries(const fs::path& fileOrFolder, const DicomReadOptions& options,
                            const JobContext& context) {
  std::vector<std::string> skipped;
  std::vector<ImageHeader> all = scanHeaders(fileOrFolder, &context, &skipped);
  const std::vector<DicomSeriesInfo> series = summarise(all);
  std::string uid = options.seriesInstanceUid;
  if (uid.empty()) {
    if (series.size() > 1) {
      std::string names;
      for (const auto& s : series) names += "\n  " + describeSeries(s);
      throw FormatError(fileOrFolder,
                        "holds " + std::to_string(series.size()) + " series; choose one:" + names);
    }
    uid = series.front().seriesInstanceUid;
  }
  std::vector<ImageHeader> headers;
  for (ImageHeader& h : all)
    if (h.series.seriesInstanceUid == uid) headers.push_back(std::move(h));
  if (headers.empty()) throw FormatError(fileOrFolder, "holds no series with UID " + uid);

  // One kind, size, pixel format, orientation and spacing for the whole series.
  const ImageHeader& first = headers.front();
  for (const ImageHeader& h : headers) {
    const auto mixed = [&](const std::string& what) {
      return FormatError(h.path, "does not match " + first.path.filename().string() + " (" + what +
                                     "): the series is mixed");
    };
    if (h.kind != first.kind) throw mixed(kindName(h.kind) + " vs " + kindName(first.kind));
    if (h.rows != first.rows || h.columns != first.columns)
      throw mixed(std::to_string(h.columns) + " x " + std::to_string(h.rows) + " vs " +
                  std::to_string(first.columns) + " x " + std::to_string(first.rows) + " pixels");
    if (!(h.format == first.format)) throw mixed("pixel format");
    if ((h.rowDirection - first.rowDirection).cwiseAbs().maxCoeff() > kDirectionTolerance ||
        (h.columnDirection - first.columnDirection).cwiseAbs().maxCoeff() > kDirectionTolerance)
      throw mixed("orientation");
    if (std::abs(h.rowSpacingMm - first.rowSpacingMm) > 1e-6 * first.rowSpacingMm ||
        std::abs(h.columnSpacingMm - first.columnSpacingMm) > 1e-6 * first.columnSpacingMm)
      throw mixed("pixel spacing");
  }
  if (first.kind == ImageKind::EnhancedCt && headers.size() > 1)
    throw FormatError(fileOrFolder, "series " + uid + " has " + std::to_string(headers.size()) +
                                        " Enhanced CT files; open one file at a time");

  // Sort every plane by its position along the normal; never by file name.
  const Eigen::Vector3d normal = first.rowDirection.cross(first.columnDirection);
  std::vector<Plane> planes;
  for (std::size_t f = 0; f < headers.size(); ++f)
    for (Plane p : headers[f].planes) {
      p.fileIndex = f;
      p.along = p.positionLps.dot(normal);
      planes.push_back(p);
    }
  std::stable_sort(planes.begin(), planes.end(),
                   [](const Plane& a, const Plane& b) { return a.along < b.along; });
  const auto planeName = [&](const Plane& p) {
    std::string name = headers[p.fileIndex].path.filename().string();
    if (first.kind == ImageKind::EnhancedCt) name += " frame " + std::to_string(p.frame + 1);
    return name;
  };
  double sliceSpacing = first.spacingBetweenSlicesMm > 0
                            ? first.spacingBetweenSlicesMm
                            : (first.sliceThicknessMm > 0 ? first.sliceThicknessMm : 1.0);
  DicomVolume result;
  if (planes.size() > 1) {
    sliceSpacing =
        (planes.back().along - planes.front().along) / static_cast<double>(planes.size() - 1);
    for (std::size_t i = 1; i < planes.size(); ++i)
      if (std::abs(planes[i].along - planes[i - 1].along) <
          1e-6 * std::max(1.0, std::abs(sliceSpacing)))
        throw FormatError(fileOrFolder, planeName(planes[i - 1]) + " and " + planeName(planes[i]) +
                                            " lie at the same position: duplicate slices");
    for (std::size_t i = 1; i < planes.size(); ++i) {
      const double gap = planes[i].along - planes[i - 1].along;
      if (std::abs(gap - sliceSpacing) > kSpacingTolerance * sliceSpacing)
        throw FormatError(fileOrFolder, "uneven slice spacing: " + formatDecimalString(gap) +
                                            " mm between " + planeName(planes[i - 1]) + " and " +
                                            planeName(planes[i]) + ", " +
                                            formatDecimalString(sliceSpacing) +
                                            " mm on average (a missing slice?)");
      const Eigen::Vector3d inPlane =
          planes[i].positionLps - planes[i - 1].positionLps - gap * normal;
      if (inPlane.norm() > 0.01 * std::max(first.rowSpacingMm, first.columnSpacingMm) + 1e-6)
        result.warnings.push_back("slices are shifted in plane (a gantry tilt?) by up to " +
                                  formatDecimalString(inPlane.norm()) +
                                  " mm; the volume ignores it");
    }
  }
  if (result.warnings.size() > 1) result.warnings.resize(1);
  result.warnings.insert(result.warnings.begin(), skipped.begin(), skipped.end());

  // Geometry: the patient position's map to world axes, or the file's own grid when oblique.
  PatientPosition position = PatientPosition::HFS;
  if (first.patientPosition)
    position = *first.patientPosition;
  else
    result.warnings.push_back(
        "no Patient Position: world axes = patient LPS axes (as head first, supine)");
  const Eigen::Vector3d fileSpacing(first.columnSpacingMm, first.rowSpacingMm, sliceSpacing);
  const Eigen::Vector3d fileCounts(static_cast<double>(first.columns),
                                   static_cast<double>(first.rows),
                                   static_cast<double>(planes.size()));
  auto grid = worldGridFromDicom(first.rowDirection, first.columnDirection,
                                 planes.front().positionLps, fileSpacing, fileCounts, position);
  if (!grid) {
    result.oblique = true;
    WorldGridFromDicom own;
    own.voxelSizeMm = fileSpacing;
    own.originMm = planes.front().positionLps;
    grid = own;
    result.warnings.push_back(
        "the slices are oblique: the volume keeps the images' own row, column "
        "and slice axes, with its origin at the first voxel's LPS position");
  }
  VolumeShape shape;
  std::int64_t* extents[3] = {&shape.nx, &shape.ny, &shape.nz};
  for (int axis = 0; axis < 3; ++axis)
    *extents[axis] = static_cast<std::int64_t>(fileCounts[grid->fileAxis[axis]]);
  context.throwIfCancelled();
  Volume volume(shape, grid->voxelSizeMm, grid->originMm);

  // Values: HU back to attenuation when the water value is known.
  const bool pet = first.kind == ImageKind::Pet;
  std::string units = pet ? (first.petUnits.empty() ? "PET (no Units)" : first.petUnits)
                          : (first.rescaleType.empty() ? "HU" : first.rescaleType);
  if (!pet && units == "US" && first.nativeUnits) units = *first.nativeUnits;
  std::optional<double> water =
      options.waterAttenuationPerMm ? options.waterAttenuationPerMm : first.waterAttenuationPerMm;
  const bool toAttenuation = !pet && units == "HU" && water && !options.keepHounsfield;
  if (toAttenuation) units = "1/mm";

  // Pixels: file by file, each plane into its place.
  std::vector<std::int64_t> sliceOfPlane(planes.size());
  std::map<std::pair<std::size_t, std::int64_t>, std::int64_t> sliceIndex;
  for (std::size_t i = 0; i < planes.size(); ++i)
    sliceIndex[{planes[i].fileIndex, planes[i].frame}] = static_cast<std::int64_t>(i);
  std::int64_t stride[3] = {1, shape.nx, shape.nx * shape.ny};
  std::int64_t fileStride[3] = {0, 0, 0}, fileStart = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const int fa = grid->fileAxis[axis];
    const std::int64_t n = *extents[axis];
    fileStride[fa] = grid->reversed[axis] ? -stride[axis] : stride[axis];
    if (grid->reversed[axis]) fileStart += (n - 1) * stride[axis];
  }
  float* out = volume.data();
  for (std::size_t f = 0; f < headers.size(); ++f) {
    context.throwIfCancelled();
    context.reportProgress("reading DICOM pixels",
                           0.2 + 0.8 * static_cast<double>(f) / headers.size());
    const ImageHeader& h = headers[f];
    checkDicomNesting(h.path);  // again: the file may have changed since its header was read
    DcmFileFormat file;
    const OFCondition c = file.loadFile(h.path.c_str());
    if (c.bad()) throw fileError(h.path, "is not a readable DICOM file: " + conditionText(c));
    decodePixels(h.path, file, h, [&](std::int64_t frame, const std::uint8_t* bytes) {
      const std::int64_t s = sliceIndex.at({f, frame});
      const Plane& plane = h.planes[static_cast<std::size_t>(frame)];
      const std::int64_t base = fileStart + s * fileStride[2];
      for (std::int64_t r = 0; r < h.rows; ++r)
        for (std::int64_t col = 0; col < h.columns; ++col) {
          double v = storedValue(bytes, static_cast<std::size_t>(r * h.columns + col), h.format) *
                         plane.slope +
                     plane.intercept;
          if (toAttenuation) v = *water * (1.0 + v / 1000.0);
          out[base + r * fileStride[1] + col * fileStride[0]] = static_cast<float>(v);
        }
    });
  }
  context.reportProgress("reading DICOM pixels", 1.0);

  result.volume = std::move(volume);
  result.series = summarise(headers).front();
  result.units = units;
  result.patientPosition = position;
  result.provenance = first.provenance;
  result.rescaleSlope = planes.front().slope;
  result.rescaleIntercept = planes.front().intercept;
  // Slopes in the volume's z order: planes run along the normal, which world z may reverse.
  for (const Plane& plane : planes) result.sliceRescaleSlopes.push_back(plane.slope);
  if (grid->reversed[2] && grid->fileAxis[2] == 2)
    std::reverse(result.sliceRescaleSlopes.begin(), result.sliceRescaleSlopes.end());
  result.pet = first.pet;
  return result;
}

std::int64_t parseDicomImageBuffer(const std::uint8_t* data, std::size_t size,
                                   const fs::path& nameForErrors) {
  initialiseDcmtk();
  // DCMTK checks an element's declared length against the bytes left only for file streams (a
  // buffer stream would allocate up to 4 GiB for a corrupt length first), so the bytes go into
  // an anonymous in-memory file that DCMTK reads as a file.
  const int fd = ::memfd_create("tomowb-dicom", MFD_CLOEXEC);
  if (fd < 0) throw IoError(nameForErrors, "cannot create an in-memory file");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  for (std::size_t written = 0; written < size;) {
    const ssize_t n = ::write(fd, data + written, size - written);
    if (n <= 0) throw IoError(nameForErrors, "cannot write the in-memory file");
    written += static_cast<std::size_t>(n);
  }
  checkDicomNesting(std::span(data, size), nameForErrors);
  DcmFileFormat file;
  const std::string procPath = "/proc/self/fd/" + std::to_string(fd);
  const OFCondition c = file.loadFile(procPath.c_str());
  if (c.bad()) throw fileError(nameForErrors, "is not a readable DICOM file: " + conditionText(c));
  const ImageHeader h = readHeader(nameForErrors, file);
  const std::uint64_t voxels = static_cast<std::uint64_t>(h.rows) *
                               static_cast<std::uint64_t>(h.columns) *
                               static_cast<std::uint64_t>(h.frames);
  if (voxels > (std::uint64_t{1} << 28))
    throw fileError(nameForErrors, "too many pixels for an in-memory check");
  std::int64_t frames = 0;
  volatile double sum = 0;  // keeps the decode from being optimised away
  decodePixels(nameForErrors, file, h, [&](std::int64_t frame, const std::uint8_t* bytes) {
    const Plane& plane = h.planes[static_cast<std::size_t>(frame)];
    for (std::int64_t i = 0; i < h.rows * h.columns; ++i)
      sum = sum + storedValue(bytes, static_cast<std::size_t>(i), h.format) * plane.slope +
            plane.intercept;
    ++frames;
  });
  return frames;
}

}  // namespace tomowb::io::dicom
