// DicomNetwork: sends a DICOM series to a PACS or any DICOM node and asks what arrived
// (docs/dicom.md, "Send to PACS"), through DCMTK's dcmnet (DcmSCU): C-ECHO to test a node,
// C-STORE of the files of a series with progress and cancel between files, and C-FIND (Study
// Root, SERIES and IMAGE level) to list what the node holds of a series.
//
// Errors say first, in plain words, which node could not do what ("The DICOM node ORTHANC at
// localhost:4242 did not answer (connection refused)"), and the DICOM detail (DIMSE status,
// DCMTK's condition) after. Public header: plain C++, no DCMTK types.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "recon/core/Error.h"

namespace tomowb {
class JobContext;
}

namespace tomowb::io::dicom {

// Where a series goes: the node's network address and the two application entity titles. A PACS
// accepts only the calling AE titles it knows, so `callingAeTitle` is what its administrator
// registered for this workstation.
struct DicomNode {
  std::string name;  // what the user calls it ("Lab PACS"); the called AE if empty
  std::string host = "localhost";
  int port = 104;
  std::string calledAeTitle = "ANY-SCP";  // the node's AE title
  std::string callingAeTitle = "TOMOWB";  // ours
  int timeoutSeconds = 10;                // connect, association and each DIMSE reply

  // "ORTHANC at localhost:4242": how errors and reports name the node.
  std::string describe() const;
};

// ParameterError naming the field for an empty host, a port outside 1..65535, an AE title that
// is empty, longer than 16 characters or not printable ASCII without a backslash, and a
// non-positive timeout.
void validateDicomNode(const DicomNode& node);

// A network or protocol failure talking to a node: what() is the whole sentence; problem() the
// plain-words part and detail() DCMTK's text (condition, DIMSE status), possibly empty.
class DicomNetworkError : public Error {
 public:
  DicomNetworkError(const DicomNode& node, std::string problem, std::string detail = {});
  const std::string& problem() const noexcept { return problem_; }
  const std::string& detail() const noexcept { return detail_; }

 private:
  std::string problem_, detail_;
};

// Opens an association, sends C-ECHO, releases it. Returns the round trip in seconds;
// DicomNetworkError when the node does not answer, refuses us or fails the echo.
double echoDicomNode(const DicomNode& node);

struct DicomStoreFileStatus {
  std::filesystem::path file;
  std::string sopInstanceUid, seriesInstanceUid, studyInstanceUid;
  bool sent = false;    // a C-STORE response came back with a success or warning status
  bool stored = false;  // the status was success (0000) or a warning (B000, B007, B006)
  std::uint16_t dimseStatus = 0;
  std::string message;  // empty when stored; else why (status text, or "not sent: cancelled")
};

struct DicomStoreResult {
  std::vector<DicomStoreFileStatus> files;  // in the order given
  std::int64_t storedCount = 0, failedCount = 0, notSentCount = 0;
  bool cancelled = false;
  double seconds = 0;
};

// Sends `files` (DICOM Part 10 files) in one association, proposing each file's SOP class with
// its own transfer syntax and the uncompressed ones (a compressed file is decompressed when the
// node accepts only those). Progress through context.reportProgress("Sending to <node>",
// files done / files); the cancel token is checked before each file: when set, the association
// is aborted and the rest are marked not sent (result.cancelled, no exception). A file the node
// refuses is recorded with its DIMSE status and the rest are still sent. DicomNetworkError when
// the node cannot be reached or refuses the association or every context; FormatError naming
// the file when a file cannot be read as DICOM (checked before connecting).
DicomStoreResult storeToDicomNode(const DicomNode& node,
                                  const std::vector<std::filesystem::path>& files,
                                  const JobContext& context);

struct DicomNodeInstance {
  std::string sopInstanceUid, sopClassUid;
  std::int64_t instanceNumber = 0;
  std::int64_t rows = 0, columns = 0;  // 0 when the node does not return them
};

struct DicomNodeSeries {
  std::string studyInstanceUid, seriesInstanceUid;
  std::string modality, seriesDescription;
  std::int64_t seriesNumber = 0;
  // Number of Series Related Instances (0020,1209) as the node says it; -1 if it does not.
  std::int64_t reportedInstances = -1;
  std::vector<DicomNodeInstance> instances;  // from an IMAGE-level C-FIND (when asked)
};

// C-FIND at SERIES level: the series of `studyInstanceUid` (every series the node has when the
// study UID is empty and `seriesInstanceUid` is given), filtered to `seriesInstanceUid` when
// given; with `listInstances`, an IMAGE-level C-FIND per series fills `instances` (sorted by
// Instance Number). An empty result when the node has none. DicomNetworkError as for echo, and
// when the node refuses the query (status detail after).
std::vector<DicomNodeSeries> queryDicomNode(const DicomNode& node,
                                            const std::string& studyInstanceUid,
                                            const std::string& seriesInstanceUid,
                                            bool listInstances);

// "12 of 12 instances arrived at ORTHANC at localhost:4242": the count the node holds of the
// series (its instances when listed, else the count it reports), out of `expected`.
std::int64_t instancesHeld(const std::vector<DicomNodeSeries>& series,
                           const std::string& seriesInstanceUid);

}  // namespace tomowb::io::dicom
