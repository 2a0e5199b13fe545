// libFuzzer target for the DICOM reader (recon/io/dicom, DCMTK underneath): the input is one DICOM
// file, parsed from memory with every per-file check and the pixel decode (parseDicomImageBuffer),
// then read as a one-file series from disk (readDicomSeries), as the GUI and the CLI do.
#include "FuzzSupport.h"
#include "recon/core/Error.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/job/JobContext.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tomowb;
  try {
    io::dicom::parseDicomImageBuffer(data, size, "in.dcm");
  } catch (const Error&) {
  }
  const auto path =
      fuzz::writeScratchFile("in.dcm", std::string_view(reinterpret_cast<const char*>(data), size));
  try {
    JobContext context;
    io::dicom::readDicomSeries(path, {}, context);
  } catch (const Error&) {
  }
  return 0;
}
