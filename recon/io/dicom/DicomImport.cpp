#include "recon/io/dicom/DicomImport.h"

#include <dcmtk/dcmdata/dcpxitem.h>
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
#include "recon/io/dicom/DicomNesting.h"
#include "recon/job/JobContext.h"

namespace tomowb::io::dicom {

namespace fs = std::filesystem;

namespace {

// Attribute values up to this length are read while scanning headers; longer ones (the pixel
// data) are left in the file until the pixels are read.
constexpr Uint32 kHeaderReadLength = 4096;
constexpr double kDirectionTolerance = 1e-4;
constexpr double kSpacingTolerance = 0.01;  // relative unevenness of slice positions

enum class ImageKind { Ct, EnhancedCt, Pet };

std::string kindName(ImageKind kind) {
  switch (kind) {
    case ImageKind::Ct:
      return "CT Image";
    case ImageKind::EnhancedCt:
      return "Enhanced CT Image";
    case ImageKind::Pet:
      return "PET Image";
  }
  return "?";
}

std::optional<ImageKind> kindOfSopClass(std::string_view uid) {
  if (uid == UID_CTImageStorage) return ImageKind::Ct;
  if (uid == UID_EnhancedCTImageStorage) return ImageKind::EnhancedCt;
  if (uid == UID_PositronEmissionTomographyImageStorage) return ImageKind::Pet;
  return std::nullopt;
}

std::string sopClassName(std::string_view uid) {
  const char* name = dcmFindNameOfUID(std::string(uid).c_str(), nullptr);
  return name ? name : std::string(uid);
}

// A readable DICOM object of a class we do not read (a report, a localizer of another class):
// skipped in folders, an error when named alone.
class UnsupportedObject : public FormatError {
 public:
  using FormatError::FormatError;
};

// One image plane of a series: where it is and how its stored values map to real values.
struct Plane {
  std::size_t fileIndex = 0;
  std::int64_t frame = 0;  // within its file
  Eigen::Vector3d positionLps = Eigen::Vector3d::Zero();
  double slope = 1, intercept = 0;
  double along = 0;  // position along the slice normal
};

struct PixelFormat {
  Uint16 bitsAllocated = 0, bitsStored = 0, highBit = 0, pixelRepresentation = 0, samples = 0;
  std::string photometric;
  bool operator==(const PixelFormat&) const = default;
};

// What one file says about itself (no pixels).
struct ImageHeader {
  fs::path path;
  ImageKind kind = ImageKind::Ct;
  std::string sopClassUid;
  DicomSeriesInfo series;
  std::int64_t rows = 0, columns = 0, frames = 1;
  PixelFormat format;
  Eigen::Vector3d rowDirection = Eigen::Vector3d::UnitX(),
                  columnDirection = Eigen::Vector3d::UnitY();
  double rowSpacingMm = 0, columnSpacingMm = 0;  // Pixel Spacing = row spacing \ column spacing
  double sliceThicknessMm = 0, spacingBetweenSlicesMm = 0;
  std::string rescaleType, petUnits;
  std::optional<PatientPosition> patientPosition;
  std::vector<Plane> planes;  // one per frame
  std::optional<DicomProvenance> provenance;
  std::optional<double> waterAttenuationPerMm;
  std::optional<std::string> nativeUnits;
};

std::string text(DcmItem& item, const DcmTagKey& key) {
  return getString(item, key).value_or("");
}

FormatError fileError(const fs::path& path, std::string_view problem) {
  return FormatError(path, problem);
}

Eigen::Vector3d vector3(const std::vector<double>& v, std::size_t offset) {
  return Eigen::Vector3d(v[offset], v[offset + 1], v[offset + 2]);
}

// The values of a numeric attribute, each of which must be a finite number: a present value that
// does not parse ("nan", "1e400", "1.5x") is a FormatError naming the file and the attribute,
// never the attribute's default. Absent or empty (zero length): no values.
std::vector<double> strictNumbers(const fs::path& path, DcmItem& item, const DcmTagKey& key,
                                  const char* field) {
  DcmElement* element = nullptr;
  if (item.findAndGetElement(key, element).bad() || !element || element->getLength() == 0)
    return {};
  std::vector<double> values = getNumbers(item, key);
  const bool allFinite =
      std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
  if (values.size() != element->getVM() || !allFinite) {
    OFString text;
    element->getOFStringArray(text);
    std::string shown(text.c_str(), std::min<std::size_t>(text.length(), 40));
    for (char& c : shown)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    throw FormatError(
        path, field, "'" + shown + (text.length() > 40 ? "...'" : "'") + " is not a finite number");
  }
  return values;
}

// An attribute looked up in the per-frame item, then the shared item, then the top level. With
// `path` and `field`, values are read strictly (strictNumbers).
std::vector<double> numbersFromGroups(DcmItem* perFrame, DcmItem* shared, const DcmTagKey& sequence,
                                      const DcmTagKey& key, const fs::path* path = nullptr,
                                      const char* field = nullptr) {
  for (DcmItem* group : {perFrame, shared}) {
    if (!group) continue;
    if (DcmItem* item = firstItem(*group, sequence)) {
      std::vector<double> values =
          path ? strictNumbers(*path, *item, key, field) : getNumbers(*item, key);
      if (!values.empty()) return values;
    }
  }
  return {};
}

std::optional<std::string> stringFromGroups(DcmItem* perFrame, DcmItem* shared,
                                            const DcmTagKey& sequence, const DcmTagKey& key) {
  for (DcmItem* group : {perFrame, shared}) {
    if (!group) continue;
    if (DcmItem* item = firstItem(*group, sequence))
      if (auto value = getString(*item, key)) return value;
  }
  return std::nullopt;
}

void checkDirections(const fs::path& path, const std::vector<double>& orientation) {
  if (orientation.size() != 6)
    throw fileError(path, "Image Orientation (Patient) needs 6 values, got " +
                              std::to_string(orientation.size()));
  const Eigen::Vector3d r = vector3(orientation, 0), c = vector3(orientation, 3);
  if (!r.allFinite() || !c.allFinite() || std::abs(r.norm() - 1) > 1e-3 ||
      std::abs(c.norm() - 1) > 1e-3 || std::abs(r.dot(c)) > 1e-3)
    throw fileError(path, "Image Orientation (Patient) is not two orthogonal unit vectors");
}

void readPlaneGeometry(ImageHeader& h, const std::vector<double>& orientation,
                       const std::vector<double>& spacing) {
  checkDirections(h.path, orientation);
  h.rowDirection = vector3(orientation, 0).normalized();
  h.columnDirection = vector3(orientation, 3).normalized();
  if (spacing.size() != 2 || !(spacing[0] > 0) || !(spacing[1] > 0) || !std::isfinite(spacing[0]) ||
      !std::isfinite(spacing[1]))
    throw fileError(h.path, "Pixel Spacing must be two positive numbers");
  h.rowSpacingMm = spacing[0];
  h.columnSpacingMm = spacing[1];
}

Eigen::Vector3d readPosition(const fs::path& path, const std::vector<double>& position) {
  if (position.size() != 3 || !vector3(position, 0).allFinite())
    throw fileError(path, "Image Position (Patient) needs 3 finite values");
  return vector3(position, 0);
}

std::pair<double, double> readRescale(const fs::path& path, const std::vector<double>& slope,
                                      const std::vector<double>& intercept) {
  const double s = slope.empty() ? 1.0 : slope[0];
  const double i = intercept.empty() ? 0.0 : intercept[0];
  if (!std::isfinite(s) || s == 0 || !std::isfinite(i))
    throw fileError(path, "Rescale Slope must be finite and non-zero, Rescale Intercept finite");
  return {s, i};
}

std::int64_t readCount(const fs::path& path, DcmItem& d, const DcmTagKey& key, const char* field,
                       std::int64_t fallback) {
  const std::vector<double> v = getNumbers(d, key);
  if (v.empty()) {
    if (fallback > 0) return fallback;
    throw FormatError(path, field, "missing");
  }
  if (!(v[0] >= 1) || v[0] > static_cast<double>(kMaxAxisLength) || v[0] != std::floor(v[0]))
    throw FormatError(path, field,
                      "must be a whole number from 1 to " + std::to_string(kMaxAxisLength) +
                          ", got " + std::to_string(v[0]));
  return static_cast<std::int64_t>(v[0]);
}

ImageHeader readHeader(const fs::path& path, DcmFileFormat& file) {
  DcmDataset& d = *file.getDataset();
  ImageHeader h;
  h.path = path;
  h.sopClassUid = text(d, DCM_SOPClassUID);
  const auto kind = kindOfSopClass(h.sopClassUid);
  if (!kind)
    throw UnsupportedObject(path, "is a " + sopClassName(h.sopClassUid) +
                                      " object; the workbench reads CT Image, Enhanced CT Image "
                                      "and PET Image series");
  h.kind = *kind;
  DicomSeriesInfo& s = h.series;
  s.seriesInstanceUid = text(d, DCM_SeriesInstanceUID);
  if (s.seriesInstanceUid.empty()) throw FormatError(path, "Series Instance UID", "missing");
  s.studyInstanceUid = text(d, DCM_StudyInstanceUID);
  s.frameOfReferenceUid = text(d, DCM_FrameOfReferenceUID);
  s.modality = text(d, DCM_Modality);
  s.sopClass = kindName(h.kind);
  s.seriesDescription = text(d, DCM_SeriesDescription);
  s.patientName = text(d, DCM_PatientName);
  s.patientId = text(d, DCM_PatientID);
  if (auto n = getNumbers(d, DCM_SeriesNumber); !n.empty() && std::isfinite(n[0]))
    s.seriesNumber = static_cast<std::int64_t>(n[0]);

  h.rows = readCount(path, d, DCM_Rows, "Rows", 0);
  h.columns = readCount(path, d, DCM_Columns, "Columns", 0);
  h.frames = readCount(path, d, DCM_NumberOfFrames, "Number of Frames", 1);
  if (h.kind != ImageKind::EnhancedCt && h.frames != 1)
    throw FormatError(
        path, "Number of Frames",
        "a " + kindName(h.kind) + " file has one frame, got " + std::to_string(h.frames));
  auto u16 = [&](const DcmTagKey& key, const char* field) -> Uint16 {
    const std::vector<double> v = getNumbers(d, key);
    if (v.empty()) throw FormatError(path, field, "missing");
    return static_cast<Uint16>(std::clamp(v[0], 0.0, 65535.0));
  };
  h.format.samples = u16(DCM_SamplesPerPixel, "Samples per Pixel");
  h.format.bitsAllocated = u16(DCM_BitsAllocated, "Bits Allocated");
  h.format.bitsStored = u16(DCM_BitsStored, "Bits Stored");
  h.format.highBit = u16(DCM_HighBit, "High Bit");
  h.format.pixelRepresentation = u16(DCM_PixelRepresentation, "Pixel Representation");
  h.format.photometric = text(d, DCM_PhotometricInterpretation);
  const PixelFormat& f = h.format;
  if (f.samples != 1) throw FormatError(path, "Samples per Pixel", "must be 1 (grey images)");
  if (f.photometric != "MONOCHROME1" && f.photometric != "MONOCHROME2")
    throw FormatError(path, "Photometric Interpretation",
                      "must be MONOCHROME1 or MONOCHROME2, got '" + f.photometric + "'");
  if (f.bitsAllocated != 8 && f.bitsAllocated != 16 && f.bitsAllocated != 32)
    throw FormatError(path, "Bits Allocated",
                      "must be 8, 16 or 32, got " + std::to_string(f.bitsAllocated));
  if (f.bitsStored < 1 || f.bitsStored > f.bitsAllocated || f.highBit != f.bitsStored - 1)
    throw FormatError(path, "Bits Stored",
                      "must be 1.." + std::to_string(f.bitsAllocated) +
                          " with High Bit = Bits Stored - 1 (got " + std::to_string(f.bitsStored) +
                          ", " + std::to_string(f.highBit) + ")");
  if (f.pixelRepresentation > 1) throw FormatError(path, "Pixel Representation", "must be 0 or 1");

  h.rescaleType = text(d, DCM_RescaleType);
  h.petUnits = text(d, DCM_Units);
  if (auto t = strictNumbers(path, d, DCM_SliceThickness, "Slice Thickness (0018,0050)");
      !t.empty())
    h.sliceThicknessMm = t[0];
  if (auto b =
          strictNumbers(path, d, DCM_SpacingBetweenSlices, "Spacing Between Slices (0018,0088)");
      !b.empty())
    h.spacingBetweenSlicesMm = b[0];
  std::optional<std::string> position = getString(d, DCM_PatientPosition);
  if (!position) position = getPrivate(d, PrivateElement::PatientPosition);
  if (position) {
    try {
      h.patientPosition = parsePatientPosition(*position);
    } catch (const ParameterError&) {
      // An unknown position (e.g. "SITTING") keeps the identity map; the caller warns.
    }
  }

  if (h.kind == ImageKind::EnhancedCt) {
    DcmItem* shared = firstItem(d, DCM_SharedFunctionalGroupsSequence);
    DcmSequenceOfItems* perFrame = nullptr;
    if (d.findAndGetSequence(DCM_PerFrameFunctionalGroupsSequence, perFrame).bad() || !perFrame ||
        static_cast<std::int64_t>(perFrame->card()) != h.frames)
      throw FormatError(path, "Per-frame Functional Groups Sequence",
                        "must have one item per frame (" + std::to_string(h.frames) + ")");
    std::vector<double> orientation0;
    for (std::int64_t i = 0; i < h.frames; ++i) {
      DcmItem* frame = perFrame->getItem(static_cast<unsigned long>(i));
      const auto orientation = numbersFromGroups(frame, shared, DCM_PlaneOrientationSequence,
                                                 DCM_ImageOrientationPatient);
      const auto spacing =
          numbersFromGroups(frame, shared, DCM_PixelMeasuresSequence, DCM_PixelSpacing);
      if (i == 0) {
        readPlaneGeometry(h, orientation, spacing);
        orientation0 = orientation;
        const auto thickness =
            numbersFromGroups(frame, shared, DCM_PixelMeasuresSequence, DCM_SliceThickness);
        const auto between =
            numbersFromGroups(frame, shared, DCM_PixelMeasuresSequence, DCM_SpacingBetweenSlices);
        if (!thickness.empty()) h.sliceThicknessMm = thickness[0];
        if (!between.empty()) h.spacingBetweenSlicesMm = between[0];
        if (auto type = stringFromGroups(frame, shared, DCM_PixelValueTransformationSequence,
                                         DCM_RescaleType))
          h.rescaleType = *type;
      } else {
        checkDirections(path, orientation);
        for (int k = 0; k < 6; ++k)
          if (std::abs(orientation[k] - orientation0[k]) > kDirectionTolerance)
            throw fileError(path, "frame " + std::to_string(i + 1) +
                                      " has another orientation than frame 1; the workbench reads "
                                      "frames of one orientation");
        if (spacing.size() != 2 || std::abs(spacing[0] - h.rowSpacingMm) > 1e-6 * h.rowSpacingMm ||
            std::abs(spacing[1] - h.columnSpacingMm) > 1e-6 * h.columnSpacingMm)
          throw fileError(path, "frame " + std::to_string(i + 1) + " has another pixel spacing");
      }
      Plane plane;
      plane.frame = i;
      plane.positionLps = readPosition(
          path,
          numbersFromGroups(frame, shared, DCM_PlanePositionSequence, DCM_ImagePositionPatient));
      std::tie(plane.slope, plane.intercept) = readRescale(
          path,
          numbersFromGroups(frame, shared, DCM_PixelValueTransformationSequence, DCM_RescaleSlope,
                            &path, "Rescale Slope (0028,1053)"),
          numbersFromGroups(frame, shared, DCM_PixelValueTransformationSequence,
                            DCM_RescaleIntercept, &path, "Rescale Intercept (0028,1052)"));
      h.planes.push_back(plane);
    }
  } else {
    readPlaneGeometry(h, getNumbers(d, DCM_ImageOrientationPatient),
                      getNumbers(d, DCM_PixelSpacing));
    Plane plane;
    plane.positionLps = readPosition(path, getNumbers(d, DCM_ImagePositionPatient));
    std::tie(plane.slope, plane.intercept) =
        readRescale(path, strictNumbers(path, d, DCM_RescaleSlope, "Rescale Slope (0028,1053)"),
                    strictNumbers(path, d, DCM_RescaleIntercept, "Rescale Intercept (0028,1052)"));
    h.planes.push_back(plane);
  }
  s.rows = h.rows;
  s.columns = h.columns;
  s.frames = h.frames;
  s.files = 1;

  if (getPrivate(d, PrivateElement::SoftwareVersion)) {
    DicomProvenance p;
    p.algorithm = getPrivate(d, PrivateElement::Algorithm).value_or("");
    p.variant = getPrivate(d, PrivateElement::Variant).value_or("");
    p.tunables = getPrivate(d, PrivateElement::Tunables).value_or("");
    const auto iterations = getPrivate(d, PrivateElement::Iterations);
    p.iterations = iterations ? std::atoll(iterations->c_str()) : 0;
    p.geometryHash = getPrivate(d, PrivateElement::GeometryHash).value_or("");
    p.acquisitionKey = getPrivate(d, PrivateElement::AcquisitionKey).value_or("");
    p.sourceDescription = getPrivate(d, PrivateElement::SourceDescription).value_or("");
    p.parameters = getPrivate(d, PrivateElement::Parameters).value_or("");
    h.provenance = p;
    if (auto water = getPrivate(d, PrivateElement::WaterAttenuationPerMm)) {
      char* end = nullptr;
      const double value = std::strtod(water->c_str(), &end);
      if (end != water->c_str() && value > 0 && std::isfinite(value))
        h.waterAttenuationPerMm = value;
    }
    h.nativeUnits = getPrivate(d, PrivateElement::NativeUnits);
  }
  return h;
}

// Loads a file's header (values longer than kHeaderReadLength stay on disk). The nesting is
// checked first: DCMTK's recursive parser must never see a deeply nested file.
ImageHeader loadHeader(const fs::path& path) {
  checkDicomNesting(path);
  DcmFileFormat file;
  const OFCondition c = file.loadFile(path.c_str(), EXS_Unknown, EGL_noChange, kHeaderReadLength);
  if (c.bad()) throw fileError(path, "is not a readable DICOM file: " + conditionText(c));
  return readHeader(path, file);
}

// The stored value of pixel i of a decoded frame as a signed/unsigned integer.
double storedValue(const std::uint8_t* bytes, std::size_t i, const PixelFormat& f) {
  std::uint32_t raw = 0;
  switch (f.bitsAllocated) {
    case 8:
      raw = bytes[i];
      break;
    case 16: {
      std::uint16_t v;
      std::memcpy(&v, bytes + 2 * i, 2);
      raw = v;
      break;
    }
    default:
      std::memcpy(&raw, bytes + 4 * i, 4);
      break;
  }
  const std::uint32_t mask = f.bitsStored >= 32 ? 0xFFFFFFFFu : ((1u << f.bitsStored) - 1u);
  raw &= mask;
  if (f.pixelRepresentation == 1 && f.bitsStored < 32 && (raw >> (f.bitsStored - 1)) & 1u)
    return static_cast<double>(static_cast<std::int64_t>(raw) - (std::int64_t{1} << f.bitsStored));
  if (f.pixelRepresentation == 1 && f.bitsStored == 32) return static_cast<std::int32_t>(raw);
  return raw;
}

// The frame size a JPEG or JPEG-LS stream declares in its start-of-frame marker (SOF0-SOF15
// but DHT, JPG and DAC; SOF55 for JPEG-LS), or nothing when the fragment holds none or the
// height is left to a later DNL marker.
std::optional<std::pair<std::int64_t, std::int64_t>> jpegFrameSize(const Uint8* bytes,
                                                                   std::size_t length) {
  for (std::size_t i = 0; i + 9 <= length; ++i) {
    if (bytes[i] != 0xFF) continue;
    const Uint8 m = bytes[i + 1];
    const bool sof = (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) || m == 0xF7;
    if (!sof) continue;
    const std::int64_t height = (std::int64_t(bytes[i + 5]) << 8) | bytes[i + 6];
    const std::int64_t width = (std::int64_t(bytes[i + 7]) << 8) | bytes[i + 8];
    if (height == 0) return std::nullopt;
    return std::pair{height, width};
  }
  return std::nullopt;
}

// A JPEG-compressed frame must be the size the header says: DCMTK decodes a 6 x 8 stream into a
// 4102 x 63752 frame without a word (a decompression bomb the fuzzer found: 522 MB and seconds
// of decoding from 2 KB), the rest of the frame made up.
void checkJpegFrameSizes(const fs::path& path, DcmDataset& d, const ImageHeader& h) {
  const E_TransferSyntax xfer = d.getOriginalXfer();
  const bool jpeg = (xfer >= EXS_JPEGProcess1 && xfer <= EXS_JPEGProcess14SV1) ||
                    xfer == EXS_JPEGLSLossless || xfer == EXS_JPEGLSLossy;
  if (!jpeg) return;
  DcmElement* element = nullptr;
  if (d.findAndGetElement(DCM_PixelData, element).bad() || !element) return;
  auto* pixelData = dynamic_cast<DcmPixelData*>(element);
  DcmPixelSequence* sequence = nullptr;
  if (!pixelData || pixelData->getEncapsulatedRepresentation(xfer, nullptr, sequence).bad() ||
      !sequence)
    return;
  // Item 0 is the offset table; a frame starts a fragment, so every SOF found is a frame's.
  for (unsigned long i = 1; i < sequence->card(); ++i) {
    DcmPixelItem* item = nullptr;
    Uint8* bytes = nullptr;
    if (sequence->getItem(item, i).bad() || !item || item->getUint8Array(bytes).bad() || !bytes)
      continue;
    const auto size = jpegFrameSize(bytes, item->getLength());
    if (size && (size->first != h.rows || size->second != h.columns))
      throw FormatError(path, "Pixel Data",
                        "a JPEG frame holds " + std::to_string(size->second) + " x " +
                            std::to_string(size->first) + " pixels, the header says " +
                            std::to_string(h.columns) + " x " + std::to_string(h.rows) +
                            " (columns x rows)");
  }
}

// Decodes the file's pixel data (decompressing if needed) and hands each frame's stored bytes
// to `frameBytes(frameIndex, bytes)`.
template <typename FrameFn>
void decodePixels(const fs::path& path, DcmFileFormat& file, const ImageHeader& h,
                  FrameFn frameBytes) {
  DcmDataset& d = *file.getDataset();
  checkJpegFrameSizes(path, d, h);
  if (d.getOriginalXfer() != EXS_LittleEndianExplicit &&
      d.getOriginalXfer() != EXS_LittleEndianImplicit &&
      d.getOriginalXfer() != EXS_BigEndianExplicit) {
    const OFCondition c = d.chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
    if (c.bad() || !d.canWriteXfer(EXS_LittleEndianExplicit))
      throw fileError(path, "cannot decode the compressed pixel data (" +
                                std::string(DcmXfer(d.getOriginalXfer()).getXferName()) +
                                "): " + conditionText(c));
  }
  DcmElement* pixelData = nullptr;
  if (d.findAndGetElement(DCM_PixelData, pixelData).bad() || !pixelData)
    throw FormatError(path, "Pixel Data", "missing (float pixel data is not read)");
  const std::uint64_t frameBytesCount = static_cast<std::uint64_t>(h.rows) *
                                        static_cast<std::uint64_t>(h.columns) *
                                        (h.format.bitsAllocated / 8);
  const std::uint64_t needed = frameBytesCount * static_cast<std::uint64_t>(h.frames);
  if (pixelData->getLength() < needed)
    throw FormatError(path, "Pixel Data",
                      "holds " + std::to_string(pixelData->getLength()) +
                          " bytes, the header says " + std::to_string(h.rows) + " x " +
                          std::to_string(h.columns) + " x " + std::to_string(h.frames) +
                          " frames of " + std::to_string(h.format.bitsAllocated) + " bits (" +
                          std::to_string(needed) + " bytes)");
  const std::uint8_t* bytes = nullptr;
  OFCondition c;
  if (h.format.bitsAllocated == 8) {
    const Uint8* p = nullptr;
    c = pixelData->getUint8Array(const_cast<Uint8*&>(p));
    bytes = p;
  } else if (h.format.bitsAllocated == 16) {
    Uint16* p = nullptr;
    c = pixelData->getUint16Array(p);
    bytes = reinterpret_cast<const std::uint8_t*>(p);
  } else {
    Uint8* p = nullptr;
    c = pixelData->getUint8Array(p);
    bytes = p;
  }
  if (c.bad() || !bytes) throw fileError(path, "cannot read the pixel data: " + conditionText(c));
  for (std::int64_t frame = 0; frame < h.frames; ++frame)
    frameBytes(frame, bytes + static_cast<std::size_t>(frame) * frameBytesCount);
}

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
