// DicomNetwork: C-ECHO, C-STORE and C-FIND through DCMTK's DcmSCU (DicomNetwork.h). DCMTK's
// conditions are turned into sentences that say which node could not do what, in the words a
// lab would use, with DCMTK's own text after it for whoever runs the PACS.
#include "recon/io/dicom/DicomNetwork.h"

#include <dcmtk/config/osconfig.h>  // must come first
#include <dcmtk/dcmdata/dctk.h>
#include <dcmtk/dcmnet/diutil.h>
#include <dcmtk/dcmnet/scu.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "recon/io/dicom/DicomDcmtkSupport.h"
#include "recon/job/JobContext.h"

namespace tomowb::io::dicom {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxAeTitleLength = 16;
constexpr Uint16 kStatusPending = 0xFF00, kStatusPendingWarning = 0xFF01;

bool isWarningStatus(Uint16 status) {
  return status == 0xB000 || status == 0xB007 || status == 0xB006;
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// The plain-words reason a connection or association failed.
[[noreturn]] void throwAssociationFailure(const DicomNode& node, const OFCondition& cond) {
  const std::string text = conditionText(cond);
  const std::string port = std::to_string(node.port);
  if (cond == DUL_ASSOCIATIONREJECTED || contains(text, "Rejected"))
    throw DicomNetworkError(node,
                            "refused the connection: it does not accept our AE title '" +
                                node.callingAeTitle + "' or its own AE title is not '" +
                                node.calledAeTitle +
                                "' (ask its administrator to register this workstation)",
                            text);
  if (cond == NET_EC_NoAcceptablePresentationContexts || contains(text, "No Acceptable"))
    throw DicomNetworkError(node, "accepts none of the kinds of DICOM object we offered", text);
  if (contains(text, "refused"))
    throw DicomNetworkError(
        node, "did not answer (connection refused: nothing listens on port " + port + " there)",
        text);
  if (contains(text, "imeout") || contains(text, "timed out"))
    throw DicomNetworkError(node,
                            "did not answer within " + std::to_string(node.timeoutSeconds) +
                                " s (check the host, the port and the firewall)",
                            text);
  if (contains(text, "not known") || contains(text, "resolve") || contains(text, "unknown host") ||
      contains(text, "No address"))
    throw DicomNetworkError(node, "could not be found (unknown host name '" + node.host + "')",
                            text);
  throw DicomNetworkError(node, "could not be reached", text);
}

// One association with a node; aborted in the destructor when still open (an exception, a
// cancel), released by release().
class Association {
 public:
  explicit Association(const DicomNode& node) : node_(node) {
    initialiseDcmtk();
    validateDicomNode(node);
    scu_.setAETitle(node.callingAeTitle.c_str());
    scu_.setPeerAETitle(node.calledAeTitle.c_str());
    scu_.setPeerHostName(node.host.c_str());
    scu_.setPeerPort(static_cast<Uint16>(node.port));
    const auto timeout = static_cast<Uint32>(node.timeoutSeconds);
    scu_.setConnectionTimeout(node.timeoutSeconds);
    scu_.setACSETimeout(timeout);
    scu_.setDIMSETimeout(timeout);
    scu_.setDIMSEBlockingMode(DIMSE_NONBLOCKING);
    scu_.setVerbosePCMode(OFFalse);
    scu_.setDatasetConversionMode(OFTrue);  // decompress when the node takes only uncompressed
  }
  ~Association() {
    if (scu_.isConnected()) scu_.abortAssociation();
  }
  Association(const Association&) = delete;
  Association& operator=(const Association&) = delete;
  Association(Association&&) = delete;
  Association& operator=(Association&&) = delete;

  void offer(const std::string& sopClass, const std::vector<std::string>& transferSyntaxes) {
    OFList<OFString> syntaxes;
    for (const std::string& ts : transferSyntaxes) syntaxes.push_back(ts.c_str());
    const OFCondition cond = scu_.addPresentationContext(sopClass.c_str(), syntaxes);
    if (cond.bad())
      throw DicomNetworkError(node_, "could not be offered the object kind " + sopClass,
                              conditionText(cond));
  }
  void offerUncompressed(const std::string& sopClass) {
    offer(sopClass,
          {UID_LittleEndianExplicitTransferSyntax, UID_LittleEndianImplicitTransferSyntax});
  }

  void open() {
    OFCondition cond = scu_.initNetwork();
    if (cond.bad())
      throw DicomNetworkError(node_, "could not start the network", conditionText(cond));
    cond = scu_.negotiateAssociation();
    if (cond.bad()) throwAssociationFailure(node_, cond);
  }
  void release() {
    if (scu_.isConnected()) scu_.releaseAssociation();
  }
  void abort() {
    if (scu_.isConnected()) scu_.abortAssociation();
  }
  DcmSCU& scu() { return scu_; }
  const DicomNode& node() const { return node_; }

 private:
  DicomNode node_;
  DcmSCU scu_;
};

struct FileHeader {
  std::string sopClass, sopInstance, transferSyntax, series, study;
};

// The meta header of a Part 10 file, without loading large values (pixel data).
FileHeader readHeader(const fs::path& file) {
  DcmFileFormat format;
  const OFCondition cond =
      format.loadFile(OFFilename(file.c_str()), EXS_Unknown, EGL_noChange, 1024);
  if (cond.bad()) throw FormatError(file, "cannot be read as DICOM: " + conditionText(cond));
  FileHeader h;
  OFString value;
  DcmMetaInfo* meta = format.getMetaInfo();
  if (meta->findAndGetOFString(DCM_MediaStorageSOPClassUID, value).good())
    h.sopClass = value.c_str();
  if (meta->findAndGetOFString(DCM_MediaStorageSOPInstanceUID, value).good())
    h.sopInstance = value.c_str();
  if (meta->findAndGetOFString(DCM_TransferSyntaxUID, value).good())
    h.transferSyntax = value.c_str();
  DcmDataset* data = format.getDataset();
  if (h.sopClass.empty() && data->findAndGetOFString(DCM_SOPClassUID, value).good())
    h.sopClass = value.c_str();
  if (h.sopInstance.empty() && data->findAndGetOFString(DCM_SOPInstanceUID, value).good())
    h.sopInstance = value.c_str();
  if (data->findAndGetOFString(DCM_SeriesInstanceUID, value).good()) h.series = value.c_str();
  if (data->findAndGetOFString(DCM_StudyInstanceUID, value).good()) h.study = value.c_str();
  if (h.transferSyntax.empty()) h.transferSyntax = DcmXfer(data->getOriginalXfer()).getXferID();
  if (h.sopClass.empty() || h.sopInstance.empty())
    throw FormatError(file, "has no SOP Class or SOP Instance UID: not a DICOM object to send");
  return h;
}

std::string statusText(Uint16 status) {
  char hex[8];
  std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(status));
  return std::string(DU_cstoreStatusString(status)) + " (status " + hex + ")";
}

// Each SOP class with each file's own transfer syntax, and with the uncompressed ones (DcmSCU
// decompresses a file when only those are accepted).
void offerForFiles(Association& association, const std::vector<FileHeader>& headers) {
  std::map<std::string, std::set<std::string>> syntaxesByClass;
  for (const FileHeader& h : headers) syntaxesByClass[h.sopClass].insert(h.transferSyntax);
  for (const auto& [sopClass, syntaxes] : syntaxesByClass) {
    for (const std::string& ts : syntaxes)
      if (ts != UID_LittleEndianExplicitTransferSyntax &&
          ts != UID_LittleEndianImplicitTransferSyntax)
        association.offer(sopClass, {ts});
    association.offerUncompressed(sopClass);
  }
}

constexpr const char* kNotStored = "not stored: ";

// One C-STORE; fills `status`. Returns why the rest cannot be sent (the connection was lost), or
// nothing.
std::string sendFile(Association& association, const FileHeader& header, const fs::path& file,
                     DicomStoreFileStatus& status) {
  const T_ASC_PresentationContextID presentation = association.scu().findAnyPresentationContextID(
      header.sopClass.c_str(), header.transferSyntax.c_str());
  if (presentation == 0) {
    status.message = "not sent: the node accepts no object of this kind (" + header.sopClass + ")";
    return {};
  }
  Uint16 dimse = 0;
  const OFCondition cond =
      association.scu().sendSTORERequest(presentation, OFFilename(file.c_str()), nullptr, dimse);
  if (cond.bad()) {
    status.message = kNotStored + conditionText(cond);
    if (!association.scu().isConnected())
      return "not sent: the connection was lost (" + conditionText(cond) + ")";
    return {};
  }
  status.sent = true;
  status.dimseStatus = dimse;
  status.stored = dimse == 0 || isWarningStatus(dimse);
  if (!status.stored || dimse != 0) status.message = statusText(dimse);
  return {};
}

std::string getText(DcmItem& item, const DcmTagKey& key) {
  OFString value;
  if (item.findAndGetOFStringArray(key, value).good()) return value.c_str();
  return {};
}

std::int64_t getInteger(DcmItem& item, const DcmTagKey& key, std::int64_t fallback) {
  const std::string text = getText(item, key);
  if (text.empty()) return fallback;
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return fallback;
  }
}

using Responses = std::vector<std::unique_ptr<QRResponse>>;

// One C-FIND; the pending responses' identifiers. A failure status throws, naming it.
Responses runFind(Association& association, DcmDataset& keys, const char* level) {
  const T_ASC_PresentationContextID context = association.scu().findPresentationContextID(
      UID_FINDStudyRootQueryRetrieveInformationModel, "");
  if (context == 0)
    throw DicomNetworkError(association.node(), "does not accept queries (C-FIND, Study Root)");
  OFList<QRResponse*> raw;
  const OFCondition cond = association.scu().sendFINDRequest(context, &keys, &raw);
  Responses responses;
  for (QRResponse* r : raw) responses.emplace_back(r);
  if (cond.bad())
    throw DicomNetworkError(association.node(),
                            std::string("did not complete the ") + level + "-level query",
                            conditionText(cond));
  for (const auto& r : responses) {
    if (r->m_status == kStatusPending || r->m_status == kStatusPendingWarning || r->m_status == 0)
      continue;
    char hex[8];
    std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(r->m_status));
    throw DicomNetworkError(
        association.node(), std::string("refused the ") + level + "-level query",
        std::string(DU_cfindStatusString(r->m_status)) + " (status " + hex + ")");
  }
  return responses;
}

}  // namespace

std::string DicomNode::describe() const {
  std::string where = calledAeTitle + " at " + host + ":" + std::to_string(port);
  if (!name.empty() && name != calledAeTitle) where = name + " (" + where + ")";
  return where;
}

void validateDicomNode(const DicomNode& node) {
  if (node.host.empty()) throw ParameterError("host", "the node's host name or address is empty");
  if (node.port < 1 || node.port > 65535)
    throw ParameterError("port", "must be 1 to 65535, got " + std::to_string(node.port));
  const auto checkAe = [](const std::string& ae, const char* field) {
    if (ae.empty() || ae.find_first_not_of(' ') == std::string::npos)
      throw ParameterError(field, "an AE title is needed (1 to 16 characters)");
    if (ae.size() > kMaxAeTitleLength)
      throw ParameterError(field, "'" + ae + "' is longer than 16 characters");
    for (const char c : ae)
      if (c < 0x20 || c > 0x7e || c == '\\')
        throw ParameterError(field, "'" + ae +
                                        "' may hold only printable ASCII characters without a "
                                        "backslash");
  };
  checkAe(node.calledAeTitle, "called AE title");
  checkAe(node.callingAeTitle, "calling AE title");
  if (node.timeoutSeconds <= 0)
    throw ParameterError("timeout",
                         "must be at least 1 s, got " + std::to_string(node.timeoutSeconds));
}

DicomNetworkError::DicomNetworkError(const DicomNode& node, std::string problem, std::string detail)
    : Error("The DICOM node " + node.describe() + " " + problem +
            (detail.empty() ? std::string(".") : ". DICOM detail: " + detail)),
      problem_(std::move(problem)),
      detail_(std::move(detail)) {}

double echoDicomNode(const DicomNode& node) {
  const auto start = std::chrono::steady_clock::now();
  Association association(node);
  association.offerUncompressed(UID_VerificationSOPClass);
  association.open();
  const OFCondition cond = association.scu().sendECHORequest(0);
  if (cond.bad())
    throw DicomNetworkError(node, "did not answer the echo (C-ECHO)", conditionText(cond));
  association.release();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

DicomStoreResult storeToDicomNode(const DicomNode& node, const std::vector<fs::path>& files,
                                  const JobContext& context) {
  initialiseDcmtk();
  validateDicomNode(node);
  const auto start = std::chrono::steady_clock::now();
  if (files.empty()) throw ParameterError("files", "there is nothing to send");
  std::vector<FileHeader> headers;
  headers.reserve(files.size());
  for (const fs::path& file : files) headers.push_back(readHeader(file));
  Association association(node);
  offerForFiles(association, headers);
  association.open();

  const std::string stage = "Sending to " + node.describe();
  DicomStoreResult result;
  result.files.resize(files.size());
  std::string interruption;  // once set, the rest are not sent, for this reason
  for (std::size_t i = 0; i < files.size(); ++i) {
    DicomStoreFileStatus& status = result.files[i];
    status.file = files[i];
    status.sopInstanceUid = headers[i].sopInstance;
    status.seriesInstanceUid = headers[i].series;
    status.studyInstanceUid = headers[i].study;
    if (interruption.empty() && context.cancelToken().requested()) {
      association.abort();
      result.cancelled = true;
      interruption = "not sent: cancelled";
    }
    if (!interruption.empty()) {
      status.message = interruption;
      continue;
    }
    context.reportProgress(stage, static_cast<double>(i) / static_cast<double>(files.size()));
    interruption = sendFile(association, headers[i], files[i], status);
  }
  if (!result.cancelled) {
    association.release();
    context.reportProgress(stage, 1.0);
  }
  for (const DicomStoreFileStatus& s : result.files) {
    if (s.stored)
      ++result.storedCount;
    else if (s.sent || s.message.rfind(kNotStored, 0) == 0)
      ++result.failedCount;
    else
      ++result.notSentCount;
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<DicomNodeSeries> queryDicomNode(const DicomNode& node,
                                            const std::string& studyInstanceUid,
                                            const std::string& seriesInstanceUid,
                                            bool listInstances) {
  if (studyInstanceUid.empty() && seriesInstanceUid.empty())
    throw ParameterError("query", "give a study UID, a series UID or both");
  Association association(node);
  association.offerUncompressed(UID_FINDStudyRootQueryRetrieveInformationModel);
  association.open();

  DcmDataset keys;
  putString(keys, DCM_QueryRetrieveLevel, "SERIES");
  putString(keys, DCM_StudyInstanceUID, studyInstanceUid);
  putString(keys, DCM_SeriesInstanceUID, seriesInstanceUid);
  putString(keys, DCM_Modality, "");
  putString(keys, DCM_SeriesDescription, "");
  putString(keys, DCM_SeriesNumber, "");
  putString(keys, DCM_NumberOfSeriesRelatedInstances, "");
  std::vector<DicomNodeSeries> all;
  for (const auto& r : runFind(association, keys, "series")) {
    if (!r->m_dataset) continue;
    DcmDataset& d = *r->m_dataset;
    DicomNodeSeries s;
    s.studyInstanceUid = getText(d, DCM_StudyInstanceUID);
    s.seriesInstanceUid = getText(d, DCM_SeriesInstanceUID);
    if (!seriesInstanceUid.empty() && s.seriesInstanceUid != seriesInstanceUid) continue;
    if (s.studyInstanceUid.empty()) s.studyInstanceUid = studyInstanceUid;
    s.modality = getText(d, DCM_Modality);
    s.seriesDescription = getText(d, DCM_SeriesDescription);
    s.seriesNumber = getInteger(d, DCM_SeriesNumber, 0);
    s.reportedInstances = getInteger(d, DCM_NumberOfSeriesRelatedInstances, -1);
    all.push_back(std::move(s));
  }
  if (listInstances) {
    for (DicomNodeSeries& s : all) {
      DcmDataset image;
      putString(image, DCM_QueryRetrieveLevel, "IMAGE");
      putString(image, DCM_StudyInstanceUID, s.studyInstanceUid);
      putString(image, DCM_SeriesInstanceUID, s.seriesInstanceUid);
      putString(image, DCM_SOPInstanceUID, "");
      putString(image, DCM_SOPClassUID, "");
      putString(image, DCM_InstanceNumber, "");
      putString(image, DCM_Rows, "");
      putString(image, DCM_Columns, "");
      for (const auto& r : runFind(association, image, "image")) {
        if (!r->m_dataset) continue;
        DcmDataset& d = *r->m_dataset;
        DicomNodeInstance instance;
        instance.sopInstanceUid = getText(d, DCM_SOPInstanceUID);
        instance.sopClassUid = getText(d, DCM_SOPClassUID);
        instance.instanceNumber = getInteger(d, DCM_InstanceNumber, 0);
        instance.rows = getInteger(d, DCM_Rows, 0);
        instance.columns = getInteger(d, DCM_Columns, 0);
        s.instances.push_back(std::move(instance));
      }
      std::sort(s.instances.begin(), s.instances.end(),
                [](const DicomNodeInstance& a, const DicomNodeInstance& b) {
                  return a.instanceNumber < b.instanceNumber;
                });
    }
  }
  association.release();
  return all;
}

std::int64_t instancesHeld(const std::vector<DicomNodeSeries>& series,
                           const std::string& seriesInstanceUid) {
  for (const DicomNodeSeries& s : series) {
    if (s.seriesInstanceUid != seriesInstanceUid) continue;
    if (!s.instances.empty()) return static_cast<std::int64_t>(s.instances.size());
    return std::max<std::int64_t>(s.reportedInstances, 0);
  }
  return 0;
}

}  // namespace tomowb::io::dicom
