// DicomDcmtkSupport: the DCMTK plumbing shared by DicomExport and DicomImport (internal to
// tomowb_dicom: only this folder's .cpp files include it, so no other target sees DCMTK).
// Codec registration once per process, DCMTK's log kept quiet, and checked put/get helpers
// that turn an OFCondition into an exception naming the file and the attribute.
#pragma once

#include <dcmtk/config/osconfig.h>  // must come first
#include <dcmtk/dcmdata/dctk.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace tomowb::io::dicom {

// Registers the RLE, JPEG-LS and JPEG encoders and decoders (once, thread-safe) and lowers
// DCMTK's log to errors, so the library never prints to the user's terminal.
void initialiseDcmtk();

// Our private block: group 0x0011, private creator "TOMO WORKBENCH 1" at (0011,0010), elements
// (0011,10xx).
inline constexpr Uint16 kPrivateGroup = 0x0011;
inline constexpr const char* kPrivateCreator = "TOMO WORKBENCH 1";
enum class PrivateElement : Uint16 {
  Algorithm = 0x01,
  Variant = 0x02,
  Tunables = 0x03,
  Iterations = 0x04,
  SoftwareVersion = 0x05,
  GeometryHash = 0x06,
  AcquisitionKey = 0x07,
  SourceDescription = 0x08,
  Parameters = 0x09,
  WaterAttenuationPerMm = 0x10,
  NativeUnits = 0x11,
  PatientPosition = 0x12,
};

// Puts (or replaces) a string attribute; Error naming the attribute on failure.
void putString(DcmItem& item, const DcmTagKey& key, std::string_view value);
void putUint16(DcmItem& item, const DcmTagKey& key, Uint16 value);
// A new empty or filled item of sequence `key` (created if absent).
DcmItem& addSequenceItem(DcmItem& item, const DcmTagKey& sequence);
// Our private block's creator and one element with an explicit VR.
void putPrivateCreator(DcmItem& item);
void putPrivate(DcmItem& item, PrivateElement element, DcmEVR vr, std::string_view value);
// The private element's value, if the item has our creator and that element.
std::optional<std::string> getPrivate(DcmItem& item, PrivateElement element);

// Reading: the attribute's value (all values joined by '\'), or nothing when absent or empty.
std::optional<std::string> getString(DcmItem& item, const DcmTagKey& key,
                                     bool searchIntoSub = false);
// The numeric values of a DS/IS/US/SS/UL attribute; empty when absent.
std::vector<double> getNumbers(DcmItem& item, const DcmTagKey& key, bool searchIntoSub = false);
// The first item of a sequence, or nullptr.
DcmItem* firstItem(DcmItem& item, const DcmTagKey& sequence);

// Text of an OFCondition for messages.
std::string conditionText(const OFCondition& condition);

}  // namespace tomowb::io::dicom
