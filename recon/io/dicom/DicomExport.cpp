#include "recon/io/dicom/DicomExport.h"

#include <dcmtk/dcmdata/dcrlerp.h>
#include <dcmtk/dcmjpeg/djrplol.h>
#include <dcmtk/dcmjpls/djrparam.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <vector>

#include "recon/core/Error.h"
#include "recon/io/AtomicDirectoryWriter.h"
#include "recon/io/dicom/DicomDcmtkSupport.h"
#include "recon/io/dicom/DicomGeometry.h"
#include "recon/io/dicom/DicomPetModules.h"
#include "recon/io/dicom/DicomUid.h"
#include "recon/job/JobContext.h"

namespace tomowb::io::dicom {

namespace {

constexpr double kStoredMin = -32768.0;
constexpr double kStoredMax = 32767.0;
constexpr std::size_t kMaxLo = 64;

IndexRange resolve(const IndexRange& range, std::int64_t n, std::string_view parameter) {
  IndexRange r{range.begin, range.end < 0 ? n : range.end};
  if (r.begin < 0 || r.begin >= n || r.end > n || r.end <= r.begin)
    throw ParameterError(parameter,
                         "range [" + std::to_string(range.begin) + ", " +
                             (range.end < 0 ? std::string("end") : std::to_string(range.end)) +
                             ") is empty or outside 0.." + std::to_string(n));
  return r;
}

// --- Values -----------------------------------------------------------------------------

// The value written for voxel value v: HU, native, or PET units.
struct ValueMap {
  bool hounsfield = false;
  double waterPerMm = 1;
  double operator()(double v) const {
    return hounsfield ? 1000.0 * (v - waterPerMm) / waterPerMm : v;
  }
};

double parsedDecimal(double value) {
  return std::stod(formatDecimalString(value));
}

// The PET slope for values up to `magnitude`: the smallest DS value with magnitude / slope <=
// 32767 as a reader parses it; 1 for an all-zero slice.
double petSlope(double magnitude) {
  if (!(magnitude > 0)) return 1.0;
  double slope = parsedDecimal(magnitude / 32767.0 * (1 + 1e-12));
  if (slope * 32767.0 < magnitude) slope = parsedDecimal(slope * (1 + 1e-9));
  return slope;
}

std::string todayDate(const std::tm& t) {
  char b[16];
  std::strftime(b, sizeof b, "%Y%m%d", &t);
  return b;
}
std::string nowTime(const std::tm& t) {
  char b[16];
  std::strftime(b, sizeof b, "%H%M%S", &t);
  return b;
}

std::string defaultSeriesDescription(const DicomExportOptions& o) {
  std::string d = o.provenance.algorithm.empty() ? "Tomo Workbench volume" : o.provenance.algorithm;
  if (!o.provenance.variant.empty()) d += " " + o.provenance.variant;
  if (o.provenance.iterations > 0) d += " " + std::to_string(o.provenance.iterations) + " it";
  if (d.size() > kMaxLo) d.resize(kMaxLo);
  return d;
}

std::string derivationDescription(const DicomExportOptions& o, const DicomExportPlan& plan) {
  const DicomProvenance& p = o.provenance;
  std::string d = "Tomo Workbench " TOMOWB_VERSION " reconstruction";
  if (!p.algorithm.empty()) d += "; algorithm " + p.algorithm;
  if (!p.variant.empty()) d += "; kernel variant " + p.variant;
  if (!p.tunables.empty()) d += " (" + p.tunables + ")";
  if (p.iterations > 0) d += "; " + std::to_string(p.iterations) + " iterations";
  if (!p.geometryHash.empty()) d += "; geometry sha256 " + p.geometryHash;
  d += "; values in " + plan.units;
  if (o.values == DicomValueMode::Hounsfield && o.type != DicomObjectType::PetImage)
    d += " from attenuation with water " + formatDecimalString(o.waterAttenuationPerMm) + " /mm";
  d += "; quantisation <= " + formatDecimalString(plan.maxQuantisationError) + " " + plan.units;
  if (!p.sourceDescription.empty()) d += "; from " + p.sourceDescription;
  if (d.size() > 1024) d.resize(1024);  // ST; the private block keeps everything
  return d;
}

E_TransferSyntax transferSyntax(DicomCompression c) {
  switch (c) {
    case DicomCompression::None:
      return EXS_LittleEndianExplicit;
    case DicomCompression::RleLossless:
      return EXS_RLELossless;
    case DicomCompression::JpegLsLossless:
      return EXS_JPEGLSLossless;
    case DicomCompression::JpegLossless:
      return EXS_JPEGProcess14SV1;
  }
  return EXS_LittleEndianExplicit;
}

std::string fileName(std::string_view prefix, std::int64_t index, std::int64_t count) {
  const std::size_t width = std::max<std::size_t>(4, std::to_string(count).size());
  std::string number = std::to_string(index + 1);
  if (number.size() < width) number.insert(0, width - number.size(), '0');
  return std::string(prefix) + number + ".dcm";
}

std::string joinDs(std::initializer_list<double> values) {
  std::string s;
  for (double v : values) s += (s.empty() ? "" : "\\") + formatDecimalString(v);
  return s;
}

// --- The writer ---------------------------------------------------------------------------

class SeriesWriter {
 public:
  SeriesWriter(const Volume& volume, const DicomExportOptions& options, const DicomExportPlan& plan)
      : volume_(volume), o_(options), plan_(plan) {
    const std::time_t now = std::time(nullptr);
    localtime_r(&now, &now_);
    const DicomIdentity& id = o_.identity;
    root_ = id.uidRoot;
    studyUid_ = id.studyInstanceUid.empty() ? newUid(root_) : id.studyInstanceUid;
    seriesUid_ = id.seriesInstanceUid.empty() ? newUid(root_) : id.seriesInstanceUid;
    if (!id.frameOfReferenceUid.empty())
      forUid_ = id.frameOfReferenceUid;
    else if (!o_.provenance.acquisitionKey.empty())
      forUid_ = uidForKey("frame-of-reference:" + o_.provenance.acquisitionKey, root_);
    else
      forUid_ = newUid(root_);
    geometry_ = sliceGeometry(volume_, o_.patientPosition, plan_.x0, plan_.y0, plan_.z0);
    map_.hounsfield =
        o_.values == DicomValueMode::Hounsfield && o_.type != DicomObjectType::PetImage;
    map_.waterPerMm = o_.waterAttenuationPerMm;
    seriesDescription_ =
        id.seriesDescription.empty() ? defaultSeriesDescription(o_) : id.seriesDescription;
    // The Series Date and Time: the export's, or a PET acquisition's start (the reference of its
    // decay correction and Frame Reference Time).
    seriesDate_ = todayDate(now_);
    seriesTime_ = nowTime(now_);
    if (o_.type == DicomObjectType::PetImage) {
      pet_ = detail::resolvePetAttributes(o_);
      if (!pet_->acquisitionDate.empty()) {
        seriesDate_ = pet_->acquisitionDate;
        seriesTime_ = pet_->acquisitionTime;
      }
    }
  }

  const std::string& studyUid() const { return studyUid_; }
  const std::string& seriesUid() const { return seriesUid_; }
  const std::string& forUid() const { return forUid_; }

  // Stores slice z (relative to the plan's first) as int16 and returns the largest rounding
  // error of a finite value, in output units.
  double quantiseSlice(std::int64_t zRelative, Sint16* out) const {
    double maxError = 0;
    const std::int64_t z = plan_.z0 + zRelative;
    const double slope = slopeOf(zRelative), intercept = plan_.rescaleIntercept;
    for (std::int64_t y = 0; y < plan_.rows; ++y) {
      const float* row = volume_.data() + volume_.index(plan_.x0, plan_.y0 + y, z);
      for (std::int64_t x = 0; x < plan_.columns; ++x) {
        double v = row[x];
        const bool finite = std::isfinite(v);
        double value = finite ? map_(v) : plan_.minValue;
        double stored = std::nearbyint((value - intercept) / slope);
        stored = std::clamp(stored, kStoredMin, kStoredMax);  // only DS rounding can reach here
        if (finite) maxError = std::max(maxError, std::abs(stored * slope + intercept - value));
        out[y * plan_.columns + x] = static_cast<Sint16>(stored);
      }
    }
    return maxError;
  }

  // PET has a slope per slice; CT one for the series.
  double slopeOf(std::int64_t zRelative) const {
    return plan_.sliceRescaleSlopes.empty()
               ? plan_.rescaleSlope
               : plan_.sliceRescaleSlopes[static_cast<std::size_t>(zRelative)];
  }

  void putCommon(DcmItem& d, const char* sopClass, const std::string& sopInstance,
                 const char* modality) const {
    const DicomIdentity& id = o_.identity;
    const std::string date = todayDate(now_), time = nowTime(now_);
    putString(d, DCM_SpecificCharacterSet, "ISO_IR 192");
    putString(d, DCM_SOPClassUID, sopClass);
    putString(d, DCM_SOPInstanceUID, sopInstance);
    putString(d, DCM_InstanceCreationDate, date);
    putString(d, DCM_InstanceCreationTime, time);
    // Patient
    putString(d, DCM_PatientName, id.patientName);
    putString(d, DCM_PatientID, id.patientId);
    putString(d, DCM_PatientBirthDate, id.patientBirthDate);
    putString(d, DCM_PatientSex, id.patientSex);
    // General Study
    putString(d, DCM_StudyInstanceUID, studyUid_);
    // A study without its own date began no later than its series.
    putString(d, DCM_StudyDate, id.studyDate.empty() ? seriesDate_ : id.studyDate);
    putString(d, DCM_StudyTime, id.studyTime.empty() ? seriesTime_ : id.studyTime);
    putString(d, DCM_ReferringPhysicianName, id.referringPhysicianName);
    putString(d, DCM_StudyID, id.studyId);
    putString(d, DCM_AccessionNumber, id.accessionNumber);
    putString(d, DCM_StudyDescription, id.studyDescription);
    // General Series
    putString(d, DCM_Modality, modality);
    putString(d, DCM_SeriesInstanceUID, seriesUid_);
    putString(d, DCM_SeriesNumber, std::to_string(id.seriesNumber));
    putString(d, DCM_SeriesDate, seriesDate_);
    putString(d, DCM_SeriesTime, seriesTime_);
    putString(d, DCM_SeriesDescription, seriesDescription_);
    // PET carries the position in its (type 2) Patient Orientation Code Sequence instead, and
    // then must not have Patient Position; our private block keeps it for every type.
    if (o_.type != DicomObjectType::PetImage)
      putString(d, DCM_PatientPosition, toString(o_.patientPosition));
    putPrivate(d, PrivateElement::PatientPosition, EVR_CS, toString(o_.patientPosition));
    // Type 2C: empty, the body part is unknown (Enhanced CT has Frame Laterality instead).
    if (o_.type != DicomObjectType::EnhancedCtImage) putString(d, DCM_Laterality, "");
    // Frame of Reference
    putString(d, DCM_FrameOfReferenceUID, forUid_);
    putString(d, DCM_PositionReferenceIndicator, "");
    // General Equipment
    putString(d, DCM_Manufacturer, "Tomo Workbench");
    if (!id.institutionName.empty()) putString(d, DCM_InstitutionName, id.institutionName);
    putString(d, DCM_ManufacturerModelName, "Tomo Workbench");
    putPrivateCreator(d);
    putProvenance(d);
    putString(d, DCM_SoftwareVersions, TOMOWB_VERSION);
    putString(d, DCM_DeviceSerialNumber, "0");
    // Image (common parts)
    putString(d, DCM_ContentDate, date);
    putString(d, DCM_ContentTime, time);
    putString(d, DCM_AcquisitionNumber, "1");
    // Enhanced CT has no Derivation Description outside its functional groups: the same text
    // goes into Image Comments there.
    if (o_.type == DicomObjectType::EnhancedCtImage)
      putString(d, DCM_ImageComments, derivationDescription(o_, plan_));
    else
      putString(d, DCM_DerivationDescription, derivationDescription(o_, plan_));
    putString(d, DCM_BurnedInAnnotation, "NO");
    putString(d, DCM_LossyImageCompression, "00");
  }

  void putProvenance(DcmItem& d) const {
    const DicomProvenance& p = o_.provenance;
    putPrivate(d, PrivateElement::SoftwareVersion, EVR_LO, TOMOWB_VERSION);
    if (!p.algorithm.empty()) putPrivate(d, PrivateElement::Algorithm, EVR_LO, p.algorithm);
    if (!p.variant.empty()) putPrivate(d, PrivateElement::Variant, EVR_LO, p.variant);
    if (!p.tunables.empty()) putPrivate(d, PrivateElement::Tunables, EVR_LT, p.tunables);
    putPrivate(d, PrivateElement::Iterations, EVR_IS, std::to_string(p.iterations));
    if (!p.geometryHash.empty())
      putPrivate(d, PrivateElement::GeometryHash, EVR_LO, p.geometryHash);
    if (!p.acquisitionKey.empty())
      putPrivate(d, PrivateElement::AcquisitionKey, EVR_LT, p.acquisitionKey);
    if (!p.sourceDescription.empty())
      putPrivate(d, PrivateElement::SourceDescription, EVR_LT, p.sourceDescription);
    if (!p.parameters.empty()) putPrivate(d, PrivateElement::Parameters, EVR_UT, p.parameters);
    if (map_.hounsfield)
      putPrivate(d, PrivateElement::WaterAttenuationPerMm, EVR_DS,
                 formatDecimalString(o_.waterAttenuationPerMm));
    if (o_.type != DicomObjectType::PetImage)
      putPrivate(d, PrivateElement::NativeUnits, EVR_LO, o_.nativeUnits);
  }

  void putImagePixel(DcmItem& d) const {
    putUint16(d, DCM_SamplesPerPixel, 1);
    putString(d, DCM_PhotometricInterpretation, "MONOCHROME2");
    putUint16(d, DCM_Rows, static_cast<Uint16>(plan_.rows));
    putUint16(d, DCM_Columns, static_cast<Uint16>(plan_.columns));
    putUint16(d, DCM_BitsAllocated, 16);
    putUint16(d, DCM_BitsStored, 16);
    putUint16(d, DCM_HighBit, 15);
    putUint16(d, DCM_PixelRepresentation, 1);
  }

  std::string pixelSpacing() const {
    return joinDs({geometry_.rowSpacingMm, geometry_.columnSpacingMm});
  }
  std::string orientation() const {
    const auto& r = geometry_.rowDirection;
    const auto& c = geometry_.columnDirection;
    return joinDs({r.x(), r.y(), r.z(), c.x(), c.y(), c.z()});
  }
  std::string position(std::int64_t zRelative) const {
    const Eigen::Vector3d p = geometry_.positionOfSlice(zRelative);
    return joinDs({p.x(), p.y(), p.z()});
  }
  double sliceLocation(std::int64_t zRelative) const {
    return geometry_.positionOfSlice(zRelative).dot(geometry_.normal);
  }

  void putWindow(DcmItem& d) const {
    // A default window over the exported range, so viewers open it sensibly.
    putString(d, DCM_WindowCenter, formatDecimalString(0.5 * (plan_.minValue + plan_.maxValue)));
    putString(d, DCM_WindowWidth,
              formatDecimalString(std::max(plan_.maxValue - plan_.minValue, 1e-6)));
    if (plan_.maxValue - plan_.minValue < 1) putString(d, DCM_VOILUTFunction, "LINEAR_EXACT");
  }

  // One single-frame CT or PET file for slice zRelative.
  double writeSliceFile(const std::filesystem::path& path, std::int64_t zRelative) const {
    DcmFileFormat file;
    DcmDataset& d = *file.getDataset();
    const bool pet = o_.type == DicomObjectType::PetImage;
    putCommon(d, pet ? UID_PositronEmissionTomographyImageStorage : UID_CTImageStorage,
              newUid(root_), pet ? "PT" : "CT");
    // CT Image takes SECONDARY; PET and Enhanced CT enumerate value 2 as PRIMARY only.
    putString(d, DCM_ImageType, pet ? "DERIVED\\PRIMARY" : "DERIVED\\SECONDARY\\AXIAL");
    putString(d, DCM_InstanceNumber, std::to_string(zRelative + 1));
    putString(d, DCM_PixelSpacing, pixelSpacing());
    putString(d, DCM_ImageOrientationPatient, orientation());
    putString(d, DCM_ImagePositionPatient, position(zRelative));
    putString(d, DCM_SliceThickness, formatDecimalString(geometry_.sliceSpacingMm));
    putString(d, DCM_SpacingBetweenSlices, formatDecimalString(geometry_.sliceSpacingMm));
    putString(d, DCM_SliceLocation, formatDecimalString(sliceLocation(zRelative)));
    putImagePixel(d);
    putString(d, DCM_RescaleIntercept, formatDecimalString(plan_.rescaleIntercept));
    putString(d, DCM_RescaleSlope, formatDecimalString(slopeOf(zRelative)));
    putWindow(d);
    if (pet) {
      detail::putPetModules(d, *pet_, o_, zRelative + 1, plan_.slices, todayDate(now_),
                            nowTime(now_));
    } else {
      putString(d, DCM_RescaleType, plan_.rescaleType);
      putString(d, DCM_KVP, "");
    }
    std::vector<Sint16> pixels(static_cast<std::size_t>(plan_.rows * plan_.columns));
    const double error = quantiseSlice(zRelative, pixels.data());
    const OFCondition c = d.putAndInsertUint16Array(
        DCM_PixelData, reinterpret_cast<const Uint16*>(pixels.data()),  // OW: the bits as is
        static_cast<unsigned long>(pixels.size()));
    if (c.bad()) throw Error("DICOM: cannot store the pixel data: " + conditionText(c));
    save(file, path);
    verifyCompressed(path, pixels);
    return error;
  }

  // The Enhanced CT Image: one file, one frame per slice, geometry in functional groups.
  double writeEnhancedFile(const std::filesystem::path& path, const JobContext& context) const {
    DcmFileFormat file;
    DcmDataset& d = *file.getDataset();
    putCommon(d, UID_EnhancedCTImageStorage, newUid(root_), "CT");
    putString(d, DCM_ImageType, "DERIVED\\PRIMARY\\VOLUME\\NONE");
    putString(d, DCM_InstanceNumber, "1");
    putString(d, DCM_AcquisitionDateTime, todayDate(now_) + nowTime(now_));
    putString(d, DCM_ContentQualification, "RESEARCH");
    putString(d, DCM_PresentationLUTShape, "IDENTITY");
    putString(d, DCM_RecognizableVisualFeatures, "NO");
    putString(d, DCM_VolumetricProperties, "VOLUME");
    putString(d, DCM_PixelPresentation, "MONOCHROME");
    putString(d, DCM_VolumeBasedCalculationTechnique, "NONE");
    putImagePixel(d);
    putString(d, DCM_NumberOfFrames, std::to_string(plan_.slices));
    d.insertEmptyElement(DCM_AcquisitionContextSequence);

    // Multi-frame Dimension: frames are indexed by their position along the normal.
    const std::string dimensionUid = newUid(root_);
    DcmItem& organisation = addSequenceItem(d, DCM_DimensionOrganizationSequence);
    putString(organisation, DCM_DimensionOrganizationUID, dimensionUid);
    putString(d, DCM_DimensionOrganizationType, "3D");
    DcmItem& index = addSequenceItem(d, DCM_DimensionIndexSequence);
    putString(index, DCM_DimensionOrganizationUID, dimensionUid);
    DcmTagKey positionKey = DCM_ImagePositionPatient, groupKey = DCM_PlanePositionSequence;
    check(index.putAndInsertTagKey(DCM_DimensionIndexPointer, positionKey),
          "Dimension Index Pointer");
    check(index.putAndInsertTagKey(DCM_FunctionalGroupPointer, groupKey),
          "Functional Group Pointer");
    putString(index, DCM_DimensionDescriptionLabel, "Image Position");

    // Shared functional groups
    DcmItem& shared = addSequenceItem(d, DCM_SharedFunctionalGroupsSequence);
    DcmItem& measures = addSequenceItem(shared, DCM_PixelMeasuresSequence);
    putString(measures, DCM_PixelSpacing, pixelSpacing());
    putString(measures, DCM_SliceThickness, formatDecimalString(geometry_.sliceSpacingMm));
    putString(measures, DCM_SpacingBetweenSlices, formatDecimalString(geometry_.sliceSpacingMm));
    DcmItem& orientationItem = addSequenceItem(shared, DCM_PlaneOrientationSequence);
    putString(orientationItem, DCM_ImageOrientationPatient, orientation());
    DcmItem& transform = addSequenceItem(shared, DCM_PixelValueTransformationSequence);
    putString(transform, DCM_RescaleIntercept, formatDecimalString(plan_.rescaleIntercept));
    putString(transform, DCM_RescaleSlope, formatDecimalString(plan_.rescaleSlope));
    putString(transform, DCM_RescaleType, plan_.rescaleType);
    DcmItem& voi = addSequenceItem(shared, DCM_FrameVOILUTSequence);
    putWindow(voi);
    DcmItem& frameType = addSequenceItem(shared, DCM_CTImageFrameTypeSequence);
    putString(frameType, DCM_FrameType, "DERIVED\\PRIMARY\\VOLUME\\NONE");
    putString(frameType, DCM_PixelPresentation, "MONOCHROME");
    putString(frameType, DCM_VolumetricProperties, "VOLUME");
    putString(frameType, DCM_VolumeBasedCalculationTechnique, "NONE");
    // One irradiation event: the acquisition the volume was reconstructed from.
    DcmItem& irradiation = addSequenceItem(shared, DCM_IrradiationEventIdentificationSequence);
    putString(irradiation, DCM_IrradiationEventUID,
              o_.provenance.acquisitionKey.empty()
                  ? newUid(root_)
                  : uidForKey("irradiation:" + o_.provenance.acquisitionKey, root_));
    DcmItem& anatomy = addSequenceItem(shared, DCM_FrameAnatomySequence);
    putString(anatomy, DCM_FrameLaterality, "U");
    DcmItem& region = addSequenceItem(anatomy, DCM_AnatomicRegionSequence);
    putString(region, DCM_CodeValue, "38266002");
    putString(region, DCM_CodingSchemeDesignator, "SCT");
    putString(region, DCM_CodeMeaning, "Entire body");

    // Per-frame functional groups and the pixels
    std::vector<Sint16> pixels(static_cast<std::size_t>(plan_.rows * plan_.columns * plan_.slices));
    double error = 0;
    for (std::int64_t z = 0; z < plan_.slices; ++z) {
      context.throwIfCancelled();
      DcmItem& frame = addSequenceItem(d, DCM_PerFrameFunctionalGroupsSequence);
      DcmItem& content = addSequenceItem(frame, DCM_FrameContentSequence);
      check(content.putAndInsertUint32(DCM_DimensionIndexValues, static_cast<Uint32>(z + 1)),
            "Dimension Index Values");
      putString(content, DCM_StackID, "1");
      check(content.putAndInsertUint32(DCM_InStackPositionNumber, static_cast<Uint32>(z + 1)),
            "In-Stack Position Number");
      DcmItem& plane = addSequenceItem(frame, DCM_PlanePositionSequence);
      putString(plane, DCM_ImagePositionPatient, position(z));
      error = std::max(error, quantiseSlice(z, pixels.data() + z * plan_.rows * plan_.columns));
      context.reportProgress("DICOM export",
                             0.8 * static_cast<double>(z + 1) / static_cast<double>(plan_.slices));
    }
    const OFCondition c = d.putAndInsertUint16Array(
        DCM_PixelData, reinterpret_cast<const Uint16*>(pixels.data()),  // OW: the bits as is
        static_cast<unsigned long>(pixels.size()));
    if (c.bad()) throw Error("DICOM: cannot store the pixel data: " + conditionText(c));
    context.throwIfCancelled();
    save(file, path);
    verifyCompressed(path, pixels);
    return error;
  }

 private:
  static void check(const OFCondition& c, const char* what) {
    if (c.bad()) throw Error(std::string("DICOM: cannot write ") + what + ": " + conditionText(c));
  }

  // Compressed files are read back and decoded, and must give the same stored pixels: the
  // export promises lossless compression, and a codec bug (see initialiseDcmtk) must become an
  // error, never a silently different series.
  void verifyCompressed(const std::filesystem::path& path,
                        const std::vector<Sint16>& pixels) const {
    if (o_.compression == DicomCompression::None) return;
    DcmFileFormat file;
    OFCondition c = file.loadFile(path.c_str());
    DcmDataset& d = *file.getDataset();
    if (c.good()) c = d.chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
    const Uint16* back = nullptr;
    unsigned long count = 0;
    if (c.good()) c = d.findAndGetUint16Array(DCM_PixelData, back, &count);
    const bool same = c.good() && back && count >= pixels.size() &&
                      std::memcmp(back, pixels.data(), pixels.size() * sizeof(Sint16)) == 0;
    if (!same)
      throw IoError(path, "the " + toString(o_.compression) +
                              " encoder wrote pixels that do not decode to the same values (" +
                              (c.bad() ? conditionText(c) : std::string("values differ")) +
                              "); export uncompressed or with another compression");
  }

  void save(DcmFileFormat& file, const std::filesystem::path& path) const {
    const E_TransferSyntax syntax = transferSyntax(o_.compression);
    DcmDataset& d = *file.getDataset();
    if (o_.compression != DicomCompression::None) {
      OFCondition c;
      if (o_.compression == DicomCompression::RleLossless) {
        DcmRLERepresentationParameter parameter;
        c = d.chooseRepresentation(syntax, &parameter);
      } else if (o_.compression == DicomCompression::JpegLsLossless) {
        DJLSRepresentationParameter parameter(2, OFTrue);
        c = d.chooseRepresentation(syntax, &parameter);
      } else {
        DJ_RPLossless parameter(1, 0);
        c = d.chooseRepresentation(syntax, &parameter);
      }
      if (c.bad() || !d.canWriteXfer(syntax))
        throw Error("DICOM: cannot compress with " + toString(o_.compression) + ": " +
                    conditionText(c));
      // DCMTK's JPEG encoder notes the compression in Derivation Description, which the
      // Enhanced CT IOD does not have at the top level (ours is in Image Comments there).
      if (o_.type == DicomObjectType::EnhancedCtImage) {
        const std::unique_ptr<DcmElement> removed(d.remove(DCM_DerivationDescription));
      }
    }
    const OFCondition c = file.saveFile(path.c_str(), syntax, EET_ExplicitLength, EGL_recalcGL,
                                        EPD_noChange, 0, 0, EWM_fileformat);
    if (c.bad()) {
      std::string problem = "cannot write the file: " + conditionText(c);
      std::error_code ec;
      const auto space = std::filesystem::space(path.parent_path(), ec);
      if (!ec && space.available < (std::uint64_t{1} << 20))
        problem = "the disk is full (" + std::to_string(space.available >> 10) +
                  " KiB free); nothing was exported";
      throw IoError(path, problem);
    }
  }

  const Volume& volume_;
  const DicomExportOptions& o_;
  const DicomExportPlan& plan_;
  std::tm now_{};
  std::string root_, studyUid_, seriesUid_, forUid_, seriesDescription_;
  std::string seriesDate_, seriesTime_;
  std::optional<detail::PetSeriesAttributes> pet_;
  DicomSliceGeometry geometry_;
  ValueMap map_;
};

}  // namespace

namespace {

// The exported values' range, and per slice (for PET) the largest magnitude and whether a
// NaN/Inf voxel, written as the smallest value, is there.
struct ValueRange {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::int64_t nonFinite = 0;
  std::vector<double> sliceMagnitude;
  std::vector<bool> sliceNonFinite;
};

ValueRange scanValues(const Volume& volume, const DicomExportPlan& plan, const ValueMap& map) {
  ValueRange r;
  r.sliceMagnitude.assign(static_cast<std::size_t>(plan.slices), 0.0);
  r.sliceNonFinite.assign(static_cast<std::size_t>(plan.slices), false);
  for (std::int64_t z = plan.z0; z < plan.z0 + plan.slices; ++z) {
    const auto s = static_cast<std::size_t>(z - plan.z0);
    for (std::int64_t y = plan.y0; y < plan.y0 + plan.rows; ++y) {
      const float* row = volume.data() + volume.index(plan.x0, y, z);
      for (std::int64_t x = 0; x < plan.columns; ++x) {
        if (!std::isfinite(row[x])) {
          ++r.nonFinite;
          r.sliceNonFinite[s] = true;
          continue;
        }
        const double v = map(row[x]);
        r.lo = std::min(r.lo, v);
        r.hi = std::max(r.hi, v);
        r.sliceMagnitude[s] = std::max(r.sliceMagnitude[s], std::abs(v));
      }
    }
  }
  return r;
}

// The sub-grid, its size and the file count; ParameterError for ranges and grids DICOM refuses.
DicomExportPlan planGrid(const Volume& volume, const DicomExportOptions& options) {
  const IndexRange xs = resolve(options.cropX, volume.nx(), "crop x");
  const IndexRange ys = resolve(options.cropY, volume.ny(), "crop y");
  const IndexRange zs = resolve(options.slices, volume.nz(), "slices");
  DicomExportPlan plan;
  plan.x0 = xs.begin;
  plan.y0 = ys.begin;
  plan.z0 = zs.begin;
  plan.columns = xs.end - xs.begin;
  plan.rows = ys.end - ys.begin;
  plan.slices = zs.end - zs.begin;
  if (plan.columns > 65535 || plan.rows > 65535)
    throw ParameterError("crop", "DICOM images have at most 65535 rows and columns");
  const Eigen::Vector3d& spacing = volume.voxelSizeMm();
  if (!(spacing.minCoeff() > 0) || !spacing.allFinite())
    throw ParameterError("volume", "the voxel size must be positive to export DICOM");
  const bool enhanced = options.type == DicomObjectType::EnhancedCtImage;
  if (enhanced && options.values == DicomValueMode::Native)
    throw ParameterError("units",
                         "Enhanced CT stores Hounsfield units only (its Rescale Type "
                         "must be HU): export HU, or native values as CT Image");
  if (enhanced && plan.rows * plan.columns * plan.slices * 2 > (std::int64_t{1} << 32) - 2)
    throw ParameterError("format",
                         "an Enhanced CT file holds at most 4 GiB of pixels; export "
                         "fewer slices or use CT Image (one file per slice)");
  plan.files = enhanced ? 1 : plan.slices;
  plan.estimatedBytes = static_cast<std::uint64_t>(plan.rows * plan.columns * plan.slices * 2) +
                        static_cast<std::uint64_t>(plan.files) * 4096 +
                        (enhanced ? static_cast<std::uint64_t>(plan.slices) * 400 : 0);
  return plan;
}

// PET: Rescale Intercept 0 and a slope per image, each slice's covering its own largest
// magnitude; the PET attributes checked and resolved (DicomPetModules.h).
void planPetValues(DicomExportPlan& plan, const DicomExportOptions& options, ValueRange& range) {
  if (plan.slices > 65535)  // Number of Slices and Image Index are US
    throw ParameterError(
        "slices", "a PET series has at most 65535 slices, got " + std::to_string(plan.slices));
  const detail::PetSeriesAttributes attributes = detail::resolvePetAttributes(options);
  plan.units = attributes.units;
  plan.petDecayFactor = attributes.decayFactor;
  plan.petFrameReferenceTimeMs = attributes.frameReferenceTimeMs;
  plan.warnings.insert(plan.warnings.end(), attributes.warnings.begin(), attributes.warnings.end());
  if (range.lo < 0)
    plan.warnings.push_back("negative values (down to " + formatDecimalString(range.lo) +
                            ") in a PET series: PET viewers may not expect them");
  std::vector<double>& magnitude = range.sliceMagnitude;
  for (std::size_t s = 0; s < magnitude.size(); ++s)
    if (range.sliceNonFinite[s]) magnitude[s] = std::max(magnitude[s], std::abs(range.lo));
  plan.rescaleIntercept = 0;
  plan.sliceRescaleSlopes.resize(magnitude.size());
  std::transform(magnitude.begin(), magnitude.end(), plan.sliceRescaleSlopes.begin(), petSlope);
  plan.rescaleSlope =
      *std::max_element(plan.sliceRescaleSlopes.begin(), plan.sliceRescaleSlopes.end());
  // An all-zero slice takes the series' largest slope rather than 1 (any slope stores 0).
  for (std::size_t s = 0; s < magnitude.size(); ++s)
    if (!(magnitude[s] > 0)) plan.sliceRescaleSlopes[s] = plan.rescaleSlope;
}

// CT: one slope and intercept spreading the range over all 65536 codes.
void planCtValues(DicomExportPlan& plan, const DicomExportOptions& options, double lo, double hi) {
  const bool hu = options.values == DicomValueMode::Hounsfield;
  plan.units = hu ? "HU" : options.nativeUnits;
  plan.rescaleType = hu ? "HU" : "US";
  if (!(hi > lo)) {
    plan.rescaleSlope = 1;
    plan.rescaleIntercept = parsedDecimal(lo);
    plan.warnings.push_back("the exported values are all " + formatDecimalString(lo));
    return;
  }
  // The DS text of slope and intercept is what a reader sees, so the quantisation uses the
  // parsed-back values.
  double slope = parsedDecimal((hi - lo) / 65534.0);
  double intercept = parsedDecimal(lo - kStoredMin * slope);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const double storedLo = (lo - intercept) / slope, storedHi = (hi - intercept) / slope;
    if (storedLo >= kStoredMin - 0.5 && storedHi <= kStoredMax + 0.5) break;
    slope = parsedDecimal(slope * (1 + 1e-6));
    intercept = parsedDecimal(lo - (kStoredMin + 0.25) * slope);
  }
  plan.rescaleSlope = slope;
  plan.rescaleIntercept = intercept;
}

}  // namespace

DicomExportPlan planDicomExport(const Volume& volume, const DicomExportOptions& options) {
  if (volume.empty()) throw ParameterError("volume", "there is no volume to export");
  checkExportOptions(options);
  DicomExportPlan plan = planGrid(volume, options);
  const bool pet = options.type == DicomObjectType::PetImage;
  const ValueMap map{options.values == DicomValueMode::Hounsfield && !pet,
                     options.waterAttenuationPerMm};
  ValueRange range = scanValues(volume, plan, map);
  if (range.nonFinite > 0)
    plan.warnings.push_back(std::to_string(range.nonFinite) +
                            " voxels are NaN or infinite; they are written as the smallest value");
  if (!std::isfinite(range.lo)) {
    range.lo = range.hi = 0;
    plan.warnings.push_back("no voxel has a finite value");
  }
  plan.minValue = range.lo;
  plan.maxValue = range.hi;
  if (pet)
    planPetValues(plan, options, range);
  else
    planCtValues(plan, options, range.lo, range.hi);
  plan.maxQuantisationError = 0.5 * plan.rescaleSlope;
  return plan;
}

DicomExportResult exportDicom(const Volume& volume, const std::filesystem::path& outFolder,
                              const DicomExportOptions& options, const JobContext& context,
                              bool replaceExisting) {
  const auto start = std::chrono::steady_clock::now();
  initialiseDcmtk();
  DicomExportResult result;
  result.plan = planDicomExport(volume, options);
  const DicomExportPlan& plan = result.plan;
  SeriesWriter writer(volume, options, plan);
  result.studyInstanceUid = writer.studyUid();
  result.seriesInstanceUid = writer.seriesUid();
  result.frameOfReferenceUid = writer.forUid();

  AtomicDirectoryWriter folder(outFolder, replaceExisting);
  context.reportProgress("DICOM export", 0.0);
  double error = 0;
  if (options.type == DicomObjectType::EnhancedCtImage) {
    const std::string name = "ECT" + fileName("", 0, 1);
    error = writer.writeEnhancedFile(folder.temporaryFolder() / name, context);
    result.files.push_back(name);
  } else {
    const char* prefix = options.type == DicomObjectType::PetImage ? "PT" : "CT";
    for (std::int64_t z = 0; z < plan.slices; ++z) {
      context.throwIfCancelled();
      const std::string name = fileName(prefix, z, plan.slices);
      error = std::max(error, writer.writeSliceFile(folder.temporaryFolder() / name, z));
      result.files.push_back(name);
      context.reportProgress("DICOM export",
                             static_cast<double>(z + 1) / static_cast<double>(plan.slices));
    }
  }
  context.throwIfCancelled();
  for (const auto& name : result.files) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(folder.temporaryFolder() / name, ec);
    if (!ec) result.bytesWritten += size;
  }
  folder.commit();
  result.folder = folder.finalFolder();
  // The largest rounding error actually made (never above the plan's slope / 2).
  result.plan.maxQuantisationError = std::max(error, 0.0);
  if (result.plan.maxQuantisationError > 0.5 * plan.rescaleSlope * (1 + 1e-9))
    result.plan.warnings.push_back("quantisation error above half a slope: " +
                                   formatDecimalString(result.plan.maxQuantisationError));
  context.reportProgress("DICOM export", 1.0);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace tomowb::io::dicom
