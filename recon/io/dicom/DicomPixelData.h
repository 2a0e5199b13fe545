// DicomPixelData: a DICOM file's pixel data decoded frame by frame (internal to DicomImport.cpp):
// compressed syntaxes through DCMTK's codecs after the JPEG frame-size check, the stored bytes
// checked against the header's size, each stored value read as the integer it is.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "recon/io/dicom/DicomImageHeader.h"

namespace tomowb::io::dicom::detail {

// The stored value of pixel i of a decoded frame as a signed/unsigned integer (inline: it runs
// once per pixel).
inline double storedValue(const std::uint8_t* bytes, std::size_t i, const PixelFormat& f) {
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

// A JPEG-compressed frame must be the size the header says: DCMTK decodes a 6 x 8 stream into a
// 4102 x 63752 frame without a word (a decompression bomb the fuzzer found: 522 MB and seconds
// of decoding from 2 KB), the rest of the frame made up.
void checkJpegFrameSizes(const fs::path& path, DcmDataset& d, const ImageHeader& h);

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

}  // namespace tomowb::io::dicom::detail
