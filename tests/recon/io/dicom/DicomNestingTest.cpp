// The nesting pre-scan (D1 of the hostile-input review): a CT slice with a sequence nested far
// deeper than any real object crashed DCMTK's recursive parser (SIGSEGV at 6000 levels). Files
// are made the way the review's mkdeep.py made them: the nesting is inserted before Patient Name.
#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/io/dicom/DicomNesting.h"
#include "recon/job/JobContext.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb::io::dicom {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

Bytes readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), {});
}

void writeAll(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

void put16(Bytes& b, std::uint16_t v) {
  b.push_back(static_cast<std::uint8_t>(v & 0xff));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}
void put32(Bytes& b, std::uint32_t v) {
  put16(b, static_cast<std::uint16_t>(v & 0xffff));
  put16(b, static_cast<std::uint16_t>(v >> 16));
}

// Inserts `depth` nested Referenced Image Sequences (0008,1140) of undefined length, each holding
// one item of undefined length, before Patient Name (0010,0010); little endian, explicit or
// implicit VR as the file is.
Bytes withNestedSequences(Bytes file, int depth, bool explicitVr) {
  Bytes marker = {0x10, 0x00, 0x10, 0x00};
  if (explicitVr) marker.insert(marker.end(), {'P', 'N'});
  const auto at = std::search(file.begin(), file.end(), marker.begin(), marker.end());
  EXPECT_NE(at, file.end()) << "no Patient Name";
  Bytes nest;
  for (int i = 0; i < depth; ++i) {
    put16(nest, 0x0008);
    put16(nest, 0x1140);
    if (explicitVr) {
      nest.push_back('S');
      nest.push_back('Q');
      put16(nest, 0);
    }
    put32(nest, 0xFFFFFFFFu);
    put16(nest, 0xFFFE);
    put16(nest, 0xE000);
    put32(nest, 0xFFFFFFFFu);
  }
  for (int i = 0; i < depth; ++i) {
    put16(nest, 0xFFFE);
    put16(nest, 0xE00D);
    put32(nest, 0);
    put16(nest, 0xFFFE);
    put16(nest, 0xE0DD);
    put32(nest, 0);
  }
  file.insert(at, nest.begin(), nest.end());
  return file;
}

// One exported CT slice, saved again in `transferSyntax`.
Bytes ctSlice(const test::TempDir& dir, E_TransferSyntax transferSyntax) {
  const Volume volume = test::randomAttenuationVolume(
      VolumeShape{16, 16, 1}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero(), 5);
  JobContext context;
  const fs::path folder = dir / ("s" + std::to_string(static_cast<int>(transferSyntax)));
  const auto r = exportDicom(volume, folder, {}, context);
  const fs::path path = folder / r.files.at(0);
  DcmFileFormat file;
  EXPECT_TRUE(file.loadFile(path.c_str()).good());
  EXPECT_TRUE(file.saveFile(path.c_str(), transferSyntax).good());
  return readAll(path);
}

TEST(DicomNesting, RefusesASliceNestedThousandsOfLevelsNamingTheFile) {
  test::TempDir dir;
  const Bytes slice = ctSlice(dir, EXS_LittleEndianExplicit);
  EXPECT_LE(dicomSequenceDepth(slice), 2);
  const fs::path deep = dir / "deep.dcm";
  writeAll(deep, withNestedSequences(slice, 6000, true));  // crashed DCMTK before the check
  JobContext context;
  for (const auto& read : std::vector<std::function<void()>>{
           [&] { readDicomSeries(deep, {}, context); }, [&] { listDicomSeries(deep); },
           [&] {
             const Bytes b = readAll(deep);
             parseDicomImageBuffer(b.data(), b.size(), deep);
           }}) {
    try {
      read();
      ADD_FAILURE() << "read";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(deep.string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("nested more than 64"), std::string::npos) << e.what();
    }
  }
  // The same file in a folder of slices: the series is refused, naming it.
  const fs::path folder = dir / ("s" + std::to_string(static_cast<int>(EXS_LittleEndianExplicit)));
  fs::copy_file(deep, folder / "deep.dcm");
  try {
    readDicomSeries(folder, {}, context);
    ADD_FAILURE() << "folder";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("deep.dcm"), std::string::npos) << e.what();
  }
}

TEST(DicomNesting, CountsNestingInEveryLittleEndianEncodingAndAcceptsTheLimit) {
  test::TempDir dir;
  for (bool explicitVr : {true, false}) {
    const Bytes slice =
        ctSlice(dir, explicitVr ? EXS_LittleEndianExplicit : EXS_LittleEndianImplicit);
    EXPECT_EQ(dicomSequenceDepth(withNestedSequences(slice, 100, explicitVr)), 65) << explicitVr;
    EXPECT_EQ(dicomSequenceDepth(withNestedSequences(slice, 64, explicitVr)), 64) << explicitVr;
    // 64 levels are allowed and read (DCMTK copes with that many).
    const Bytes allowed = withNestedSequences(slice, 64, explicitVr);
    EXPECT_EQ(parseDicomImageBuffer(allowed.data(), allowed.size(), "allowed"), 1);
    const Bytes refused = withNestedSequences(slice, 65, explicitVr);
    EXPECT_THROW(parseDicomImageBuffer(refused.data(), refused.size(), "refused"), FormatError);
    // Without the preamble and meta header (a bare data set, as old files are) every encoding is
    // tried. The meta header starts with its group length (0002,0000) UL at byte 132.
    const Bytes deep = withNestedSequences(slice, 100, explicitVr);
    std::uint32_t metaLength = 0;
    std::memcpy(&metaLength, deep.data() + 140, 4);
    const Bytes bare(deep.begin() + 144 + metaLength, deep.end());
    EXPECT_EQ(dicomSequenceDepth(bare), 65) << explicitVr;
  }
}

TEST(DicomNesting, AcceptsAnEnhancedCtWithItsFunctionalGroups) {
  test::TempDir dir;
  const Volume volume = test::randomAttenuationVolume(VolumeShape{8, 8, 3}, Eigen::Vector3d::Ones(),
                                                      Eigen::Vector3d::Zero(), 9);
  DicomExportOptions o;
  o.type = DicomObjectType::EnhancedCtImage;
  JobContext context;
  const auto r = exportDicom(volume, dir / "e", o, context);
  const Bytes bytes = readAll(dir / "e" / r.files.at(0));
  const int depth = dicomSequenceDepth(bytes);
  EXPECT_GE(depth, 2);
  EXPECT_LE(depth, 4);
  EXPECT_NO_THROW(checkDicomNesting(dir / "e" / r.files.at(0)));
}

}  // namespace
}  // namespace tomowb::io::dicom
