// DicomNesting: a pre-scan of a DICOM file's element structure that measures how deeply its
// sequences nest, before DCMTK parses it. DCMTK 3.6.7 reads nested sequences recursively (about
// five stack frames, 1.4 KB of stack, per level), so a 218 KB file with a sequence nested 6000
// levels deep overflowed the stack inside DcmItem::read (hostile-input review, D1). Real objects
// nest a few levels (Enhanced CT's functional groups: 3); more than kMaxDicomSequenceDepth is a
// FormatError naming the file, raised before DCMTK sees a byte.
//
// The scan walks element headers only (values are skipped, never read), in every encoding DCMTK
// could pick for the data set: the meta header's transfer syntax, and when there is none, implicit
// and explicit VR little endian and explicit VR big endian, each walked until it no longer makes
// sense. Implicit-VR sequences of defined length are recognised with DCMTK's dictionary; undefined
// lengths (and explicit "UN" with undefined length, read as implicit VR, CP-246) open a sequence as
// DCMTK does. Deflated data sets cannot be walked without inflating them and are refused.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace tomowb::io::dicom {

inline constexpr int kMaxDicomSequenceDepth = 64;

// FormatError(path, "sequence nesting", ...) past the limit; IoError/FormatError if the file
// cannot be opened as a regular file.
void checkDicomNesting(const std::filesystem::path& path);
void checkDicomNesting(std::span<const std::uint8_t> bytes,
                       const std::filesystem::path& nameForErrors);

// The deepest sequence nesting the scan finds (0: no sequence), for tests and the fuzz target;
// stops counting just past the limit.
int dicomSequenceDepth(std::span<const std::uint8_t> bytes);

}  // namespace tomowb::io::dicom
