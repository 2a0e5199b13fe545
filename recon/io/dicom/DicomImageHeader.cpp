// DicomImageHeader.cpp: readHeader and loadHeader (DicomImageHeader.h): a CT, Enhanced CT or PET
// image file's attributes, each checked strictly (finite numbers, orthogonal directions, one
// orientation and spacing for every frame), the per-frame functional groups included.
#include "recon/io/dicom/DicomImageHeader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "recon/io/ReaderLimits.h"
#include "recon/io/dicom/DicomGeometry.h"
#include "recon/io/dicom/DicomNesting.h"
#include "recon/io/dicom/DicomPetModules.h"

namespace tomowb::io::dicom::detail {

namespace {

// Attribute values up to this length are read while scanning headers; longer ones (the pixel
// data) are left in the file until the pixels are read.
constexpr Uint32 kHeaderReadLength = 4096;

}  // namespace

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

namespace {

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

std::string text(DcmItem& item, const DcmTagKey& key) {
  return getString(item, key).value_or("");
}

}  // namespace

FormatError fileError(const fs::path& path, std::string_view problem) {
  return FormatError(path, problem);
}

namespace {

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

}  // namespace

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
  if (h.kind == ImageKind::Pet) h.pet = readPetAcquisition(d);
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

}  // namespace tomowb::io::dicom::detail
