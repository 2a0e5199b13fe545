#include "recon/io/dicom/DicomDcmtkSupport.h"

#include <dcmtk/dcmdata/dcrledrg.h>
#include <dcmtk/dcmdata/dcrleerg.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/dcmjpeg/djencode.h>
#include <dcmtk/dcmjpls/djdecode.h>
#include <dcmtk/dcmjpls/djencode.h>
#include <dcmtk/oflog/oflog.h>

#include <charconv>
#include <cstdlib>
#include <mutex>
#include <string_view>

#include "recon/core/Error.h"

namespace tomowb::io::dicom {

namespace {

std::string tagName(const DcmTagKey& key) {
  DcmTag tag(key);
  const char* name = tag.getTagName();
  std::string text = key.toString().c_str();
  if (name && std::string_view(name) != "Unknown Tag & Data") text = std::string(name) + " " + text;
  return text;
}

void check(const OFCondition& condition, const DcmTagKey& key, std::string_view what) {
  if (condition.bad())
    throw Error("DICOM: cannot " + std::string(what) + " " + tagName(key) + ": " +
                conditionText(condition));
}

DcmTag privateTag(PrivateElement element, DcmEVR vr) {
  DcmTag tag(kPrivateGroup, static_cast<Uint16>(0x1000 | static_cast<Uint16>(element)), vr);
  tag.setPrivateCreator(kPrivateCreator);
  return tag;
}

}  // namespace

void initialiseDcmtk() {
  static std::once_flag once;
  std::call_once(once, [] {
    OFLog::configure(OFLogger::ERROR_LOG_LEVEL);
    // Quiet DCMTK's own loggers (codecs print "I: ..." at info level).
    OFLog::getLogger("dcmtk").setLogLevel(OFLogger::FATAL_LOG_LEVEL);
    DcmRLEEncoderRegistration::registerCodecs();
    DcmRLEDecoderRegistration::registerCodecs();
    // JPEG-LS: the "raw" encoder. DCMTK 3.6.7's default "cooked" encoder wrote invalid streams
    // and corrupted the heap for 12- and 16-bit frames of some widths (23 columns did it every
    // time; 64 did not), found by our round-trip tests and checked with valgrind; the raw encoder
    // round-trips every width we tried (1 to 511).
    DJLSEncoderRegistration::registerCodecs(0, 0, 0, 0, /*preferCookedEncoding=*/OFFalse);
    DJLSDecoderRegistration::registerCodecs();
    DJEncoderRegistration::registerCodecs();
    DJDecoderRegistration::registerCodecs();
    // Deregistration at exit is left to the process end: codecs may be used until then.
  });
}

std::string conditionText(const OFCondition& condition) {
  return condition.text() ? condition.text() : "unknown DCMTK error";
}

void putString(DcmItem& item, const DcmTagKey& key, std::string_view value) {
  check(item.putAndInsertString(key, std::string(value).c_str()), key, "write");
}

void putUint16(DcmItem& item, const DcmTagKey& key, Uint16 value) {
  check(item.putAndInsertUint16(key, value), key, "write");
}

DcmItem& addSequenceItem(DcmItem& item, const DcmTagKey& sequence) {
  DcmItem* child = nullptr;
  check(item.findOrCreateSequenceItem(sequence, child, -2), sequence, "create an item of");
  if (!child) throw Error("DICOM: cannot create an item of " + tagName(sequence));
  return *child;
}

void putPrivateCreator(DcmItem& item) {
  check(item.putAndInsertString(DcmTag(kPrivateGroup, 0x0010, EVR_LO), kPrivateCreator),
        DcmTagKey(kPrivateGroup, 0x0010), "write");
}

void putPrivate(DcmItem& item, PrivateElement element, DcmEVR vr, std::string_view value) {
  const DcmTag tag = privateTag(element, vr);
  check(item.putAndInsertString(tag, std::string(value).c_str()), tag, "write");
}

std::optional<std::string> getPrivate(DcmItem& item, PrivateElement element) {
  OFString creator;
  if (item.findAndGetOFString(DcmTagKey(kPrivateGroup, 0x0010), creator).bad() ||
      creator != kPrivateCreator)
    return std::nullopt;
  return getString(
      item, DcmTagKey(kPrivateGroup, static_cast<Uint16>(0x1000 | static_cast<Uint16>(element))));
}

std::optional<std::string> getString(DcmItem& item, const DcmTagKey& key, bool searchIntoSub) {
  OFString value;
  if (item.findAndGetOFStringArray(key, value, searchIntoSub).bad() || value.empty())
    return std::nullopt;
  return std::string(value.c_str());
}

std::vector<double> getNumbers(DcmItem& item, const DcmTagKey& key, bool searchIntoSub) {
  DcmElement* element = nullptr;
  if (item.findAndGetElement(key, element, searchIntoSub).bad() || !element) return {};
  std::vector<double> values;
  const unsigned long count = element->getVM();
  for (unsigned long i = 0; i < count; ++i) {
    switch (element->ident()) {
      case EVR_US: {
        Uint16 v = 0;
        if (element->getUint16(v, i).good()) values.push_back(v);
        break;
      }
      case EVR_SS: {
        Sint16 v = 0;
        if (element->getSint16(v, i).good()) values.push_back(v);
        break;
      }
      case EVR_UL: {
        Uint32 v = 0;
        if (element->getUint32(v, i).good()) values.push_back(v);
        break;
      }
      case EVR_SL: {
        Sint32 v = 0;
        if (element->getSint32(v, i).good()) values.push_back(v);
        break;
      }
      case EVR_FD: {
        Float64 v = 0;
        if (element->getFloat64(v, i).good()) values.push_back(v);
        break;
      }
      case EVR_FL: {
        Float32 v = 0;
        if (element->getFloat32(v, i).good()) values.push_back(v);
        break;
      }
      default: {
        // The whole value must be a number (spaces around it allowed): "1.5x" is not 1.5.
        OFString text;
        if (element->getOFString(text, i).bad()) break;
        std::string_view t(text.c_str(), text.length());
        while (!t.empty() && (t.front() == ' ' || t.front() == '\0')) t.remove_prefix(1);
        while (!t.empty() && (t.back() == ' ' || t.back() == '\0')) t.remove_suffix(1);
        if (!t.empty() && t.front() == '+') t.remove_prefix(1);
        double v = 0;
        const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), v);
        if (!t.empty() && error == std::errc() && end == t.data() + t.size()) values.push_back(v);
        break;
      }
    }
  }
  return values;
}

DcmItem* firstItem(DcmItem& item, const DcmTagKey& sequence) {
  DcmItem* child = nullptr;
  if (item.findAndGetSequenceItem(sequence, child, 0).bad()) return nullptr;
  return child;
}

}  // namespace tomowb::io::dicom
