// DicomPixelData.cpp: checkJpegFrameSizes (DicomPixelData.h): the frame size every JPEG or
// JPEG-LS fragment declares in its start-of-frame marker, held against the header's rows and
// columns before DCMTK decodes a byte.
#include "recon/io/dicom/DicomPixelData.h"

#include <dcmtk/dcmdata/dcpxitem.h>

#include <optional>
#include <utility>

namespace tomowb::io::dicom::detail {

namespace {

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

}  // namespace

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

}  // namespace tomowb::io::dicom::detail
