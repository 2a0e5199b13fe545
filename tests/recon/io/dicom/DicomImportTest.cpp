// Reading series the workbench did not just write: shuffled names, missing and duplicate
// slices, mixed series, broken files, oblique and foreign series, unsupported pixel formats.
#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dctk.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <fstream>
#include <numbers>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/io/dicom/DicomUid.h"
#include "recon/job/JobContext.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb::io::dicom {
namespace {

namespace fs = std::filesystem;

Volume testVolume() {
  return test::randomAttenuationVolume(VolumeShape{12, 10, 6}, Eigen::Vector3d(0.5, 0.5, 2.0),
                                       Eigen::Vector3d(-2.75, -2.25, -5.0), test::randomSeed());
}

DicomExportResult exportTo(const fs::path& folder, const Volume& volume,
                           DicomExportOptions options = {}) {
  JobContext context;
  return exportDicom(volume, folder, options, context);
}

std::string errorOf(const fs::path& folder, const DicomReadOptions& options = {}) {
  JobContext context;
  try {
    readDicomSeries(folder, options, context);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Loads a file, lets `edit` change its dataset, saves it back.
template <typename Edit>
void editFile(const fs::path& path, Edit edit) {
  DcmFileFormat file;
  ASSERT_TRUE(file.loadFile(path.c_str()).good()) << path;
  edit(*file.getDataset());
  ASSERT_TRUE(file.saveFile(path.c_str(), EXS_LittleEndianExplicit).good()) << path;
}

// A minimal CT file as another tool might write it: unsigned pixels of `bits` bits, values
// stored = x + 10 y + 100 z, rescale slope 2, intercept -1000, no Patient Position.
void writeForeignCt(const fs::path& path, int z, Uint16 bitsAllocated, const std::string& series,
                    const Eigen::Vector3d& row = {1, 0, 0},
                    const Eigen::Vector3d& col = {0, 1, 0}) {
  DcmFileFormat file;
  DcmDataset& d = *file.getDataset();
  const Eigen::Vector3d normal = row.cross(col);
  const Eigen::Vector3d position = Eigen::Vector3d(5, 6, 7) + 1.5 * z * normal;
  char ipp[128], iop[256];
  std::snprintf(ipp, sizeof ipp, "%.10g\\%.10g\\%.10g", position.x(), position.y(), position.z());
  std::snprintf(iop, sizeof iop, "%.10g\\%.10g\\%.10g\\%.10g\\%.10g\\%.10g", row.x(), row.y(),
                row.z(), col.x(), col.y(), col.z());
  d.putAndInsertString(DCM_SOPClassUID, UID_CTImageStorage);
  d.putAndInsertString(DCM_SOPInstanceUID, newUid().c_str());
  d.putAndInsertString(DCM_StudyInstanceUID, "1.2.3.4");
  d.putAndInsertString(DCM_SeriesInstanceUID, series.c_str());
  d.putAndInsertString(DCM_Modality, "CT");
  d.putAndInsertString(DCM_ImagePositionPatient, ipp);
  d.putAndInsertString(DCM_ImageOrientationPatient, iop);
  d.putAndInsertString(DCM_PixelSpacing, "0.8\\0.6");
  d.putAndInsertString(DCM_RescaleSlope, "2");
  d.putAndInsertString(DCM_RescaleIntercept, "-1000");
  d.putAndInsertUint16(DCM_SamplesPerPixel, 1);
  d.putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
  d.putAndInsertUint16(DCM_Rows, 4);
  d.putAndInsertUint16(DCM_Columns, 3);
  d.putAndInsertUint16(DCM_BitsAllocated, bitsAllocated);
  d.putAndInsertUint16(DCM_BitsStored, bitsAllocated == 16 ? 12 : bitsAllocated);
  d.putAndInsertUint16(DCM_HighBit, bitsAllocated == 16 ? 11 : bitsAllocated - 1);
  d.putAndInsertUint16(DCM_PixelRepresentation, 0);
  if (bitsAllocated == 8) {
    std::vector<Uint8> pixels(12);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 3; ++x) pixels[y * 3 + x] = static_cast<Uint8>(x + 10 * y + 100 * z);
    d.putAndInsertUint8Array(DCM_PixelData, pixels.data(), 12);
  } else {
    std::vector<Uint16> pixels(12);
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < 3; ++x) pixels[y * 3 + x] = static_cast<Uint16>(x + 10 * y + 100 * z);
    d.putAndInsertUint16Array(DCM_PixelData, pixels.data(), 12);
  }
  ASSERT_TRUE(file.saveFile(path.c_str(), EXS_LittleEndianExplicit).good());
}

TEST(DicomImport, SortsSlicesByPositionNotByFileName) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  // Name the files against their order: the last slice gets the first name.
  for (std::size_t i = 0; i < r.files.size(); ++i)
    fs::rename(dir / "s" / r.files[i], dir / "s" / ("tmp" + std::to_string(i)));
  for (std::size_t i = 0; i < r.files.size(); ++i)
    fs::rename(dir / "s" / ("tmp" + std::to_string(i)),
               dir / "s" / ("IMG" + std::to_string(100 - i)));
  JobContext context;
  const DicomVolume back = readDicomSeries(dir / "s", {}, context);
  ASSERT_EQ(back.volume.shape(), volume.shape());
  for (std::int64_t z = 0; z < volume.nz(); ++z)
    EXPECT_NEAR(back.volume.at(3, 4, z), volume.at(3, 4, z), 1e-6) << z;
}

TEST(DicomImport, MissingAndDuplicateSlicesAreErrors) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  fs::copy(dir / "s", dir / "dup");
  fs::remove(dir / "s" / r.files[2]);
  const std::string missing = errorOf(dir / "s");
  EXPECT_NE(missing.find("uneven slice spacing"), std::string::npos) << missing;
  EXPECT_NE(missing.find("missing slice"), std::string::npos) << missing;
  // A copy of slice 3 under another name and SOP instance: two slices at one position.
  fs::copy_file(dir / "dup" / r.files[3], dir / "dup" / "copy.dcm");
  editFile(dir / "dup" / "copy.dcm",
           [](DcmDataset& d) { d.putAndInsertString(DCM_SOPInstanceUID, newUid().c_str()); });
  const std::string duplicate = errorOf(dir / "dup");
  EXPECT_NE(duplicate.find("same position"), std::string::npos) << duplicate;
  EXPECT_NE(duplicate.find("copy.dcm"), std::string::npos) << duplicate;
}

TEST(DicomImport, MixedSeriesAreErrors) {
  test::TempDir dir;
  DicomExportOptions o;
  o.identity.seriesInstanceUid = newUid();
  const auto a = exportTo(dir / "a", testVolume(), o);
  // Same series UID, other image size: a broken series.
  const Volume other = test::randomAttenuationVolume(
      VolumeShape{8, 10, 2}, Eigen::Vector3d(0.5, 0.5, 2.0), Eigen::Vector3d(0, 0, 20), 7);
  const auto b = exportTo(dir / "b", other, o);
  fs::copy_file(dir / "b" / b.files[0], dir / "a" / "other.dcm");
  const std::string message = errorOf(dir / "a");
  EXPECT_NE(message.find("mixed"), std::string::npos) << message;
  EXPECT_NE(message.find("8 x 10"), std::string::npos) << message;
}

TEST(DicomImport, BrokenFilesAreErrorsNamingTheFile) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  const fs::path victim = dir / "s" / r.files[1];
  fs::resize_file(victim, fs::file_size(victim) - 300);  // pixels cut short
  const std::string message = errorOf(dir / "s");
  EXPECT_NE(message.find(r.files[1].string()), std::string::npos) << message;
  // A header cut short.
  fs::resize_file(victim, 200);
  const std::string header = errorOf(dir / "s");
  EXPECT_NE(header.find(r.files[1].string()), std::string::npos) << header;
  // Not DICOM at all.
  fs::create_directory(dir / "text");
  std::ofstream(dir / "text" / "notes.txt") << "hello";
  EXPECT_NE(errorOf(dir / "text").find("no DICOM image"), std::string::npos);
  EXPECT_FALSE(looksLikeDicom(dir / "text"));
  EXPECT_TRUE(looksLikeDicom(dir / "s"));
}

TEST(DicomImport, UnsupportedPixelFormatsAreErrors) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  for (const auto& f : r.files)
    editFile(dir / "s" / f, [](DcmDataset& d) { d.putAndInsertUint16(DCM_BitsAllocated, 12); });
  const std::string message = errorOf(dir / "s");
  EXPECT_NE(message.find("Bits Allocated"), std::string::npos) << message;
  // Another SOP class alone: named, not read.
  editFile(dir / "s" / r.files[0],
           [](DcmDataset& d) { d.putAndInsertString(DCM_SOPClassUID, UID_MRImageStorage); });
  JobContext context;
  try {
    readDicomSeries(dir / "s" / r.files[0], {}, context);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("MR"), std::string::npos) << e.what();
  }
}

TEST(DicomImport, ForeignUnsignedSeriesWithoutPatientPosition) {
  for (Uint16 bits : {Uint16{8}, Uint16{16}}) {
    test::TempDir dir;
    for (int z = 0; z < 3; ++z) writeForeignCt(dir / ("f" + std::to_string(z)), z, bits, "1.2.3.5");
    JobContext context;
    const DicomVolume v = readDicomSeries(dir.path(), {}, context);
    ASSERT_EQ(v.volume.shape(), (VolumeShape{3, 4, 3}));
    EXPECT_EQ(v.units, "HU");
    EXPECT_EQ(v.patientPosition, PatientPosition::HFS);
    ASSERT_FALSE(v.warnings.empty());
    EXPECT_NE(v.warnings[0].find("Patient Position"), std::string::npos);
    EXPECT_TRUE(v.volume.voxelSizeMm().isApprox(Eigen::Vector3d(0.6, 0.8, 1.5)));
    EXPECT_TRUE(v.volume.originMm().isApprox(Eigen::Vector3d(5, 6, 7)));
    for (int z = 0; z < 3; ++z)
      EXPECT_FLOAT_EQ(v.volume.at(2, 3, z), 2.0f * static_cast<float>(2 + 30 + 100 * z) - 1000.0f);
  }
}

TEST(DicomImport, ObliqueSeriesKeepTheirOwnGrid) {
  test::TempDir dir;
  const double a = 10.0 * std::numbers::pi / 180;
  const Eigen::Vector3d row(std::cos(a), std::sin(a), 0), col(-std::sin(a), std::cos(a), 0);
  for (int z = 0; z < 4; ++z)
    writeForeignCt(dir / ("f" + std::to_string(z)), z, 16, "1.2.3.6", row, col);
  JobContext context;
  const DicomVolume v = readDicomSeries(dir.path(), {}, context);
  EXPECT_TRUE(v.oblique);
  EXPECT_EQ(v.volume.shape(), (VolumeShape{3, 4, 4}));
  bool warned = false;
  for (const auto& w : v.warnings) warned = warned || w.find("oblique") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(DicomImport, SagittalSeriesIsTurnedOntoTheWorldAxes) {
  // Rows along world -z, columns along +y: the reader flips and permutes into an x, y, z grid.
  test::TempDir dir;
  for (int z = 0; z < 2; ++z)
    writeForeignCt(dir / ("f" + std::to_string(z)), z, 16, "1.2.3.7", {0, 1, 0}, {0, 0, -1});
  JobContext context;
  const DicomVolume v = readDicomSeries(dir.path(), {}, context);
  EXPECT_FALSE(v.oblique);
  ASSERT_EQ(v.volume.shape(), (VolumeShape{2, 3, 4}));
  // File pixel (column 2, row 3) of slice z sits at world (x: slice, y: column, z: row reversed).
  // Slices run along -x, so volume x = 0 is the last slice (z = 1).
  EXPECT_FLOAT_EQ(v.volume.at(0, 2, 0), 2.0f * (2 + 30 + 100) - 1000.0f);
  EXPECT_FLOAT_EQ(v.volume.at(1, 0, 3), 2.0f * (0 + 0 + 0) - 1000.0f);
}

TEST(DicomImport, BufferParserSurvivesTruncationAtEveryByte) {
  const Volume volume = test::randomAttenuationVolume(VolumeShape{5, 4, 1}, Eigen::Vector3d::Ones(),
                                                      Eigen::Vector3d::Zero(), 3);
  test::TempDir dir;
  for (auto type : {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage}) {
    for (auto compression : {DicomCompression::None, DicomCompression::RleLossless}) {
      DicomExportOptions o;
      o.type = type;
      o.compression = compression;
      const fs::path folder = dir / (toString(type) + toString(compression));
      const auto r = exportTo(folder, volume, o);
      std::ifstream in(folder / r.files[0], std::ios::binary);
      const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
      EXPECT_EQ(parseDicomImageBuffer(bytes.data(), bytes.size(), "whole"), 1);
      for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        try {
          parseDicomImageBuffer(bytes.data(), cut, "cut");
        } catch (const Error&) {
          // expected for most cuts; what matters is no crash and no other exception
        }
      }
    }
  }
}

// Inputs the fuzzer found (fuzz/README.md): each must be a clean FormatError.
TEST(DicomImport, FuzzFindingsAreFormatErrors) {
  const fs::path folder = fs::path(TOMOWB_TEST_DATA_DIR) / "io" / "fuzz-crashers" / "dicom";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
    EXPECT_THROW(parseDicomImageBuffer(bytes.data(), bytes.size(), entry.path()), FormatError)
        << entry.path();
    JobContext context;
    EXPECT_THROW(readDicomSeries(entry.path(), {}, context), FormatError) << entry.path();
    ++count;
  }
  EXPECT_GT(count, 0);
}

// D11 of the hostile-input review: a .dcm that is empty, has a damaged DICM magic or holds text
// was dropped quietly, and the series came back one slice short.
TEST(DicomImport, AnUnreadableSliceNamedDcmIsAnErrorNamingIt) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  const fs::path last = dir / "s" / r.files.back();
  const std::string original = [&] {
    std::ifstream in(last, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }();
  const auto rewrite = [&](const std::string& bytes) {
    std::ofstream(last, std::ios::binary | std::ios::trunc) << bytes;
  };
  std::string badMagic = original;
  badMagic[128] = 'X';
  for (const std::string& bytes : {std::string(), badMagic, std::string("just some text\n")}) {
    rewrite(bytes);
    const std::string message = errorOf(dir / "s");
    EXPECT_NE(message.find(r.files.back().string()), std::string::npos)
        << bytes.size() << ": " << message;
  }
  // Files that do not claim to be DICOM are skipped, with a warning naming them.
  rewrite(original);
  std::ofstream(dir / "s" / "README.txt") << "scanned on Tuesday";
  JobContext context;
  const DicomVolume back = readDicomSeries(dir / "s", {}, context);
  EXPECT_EQ(back.volume.shape(), volume.shape());
  ASSERT_FALSE(back.warnings.empty());
  EXPECT_NE(back.warnings.front().find("README.txt"), std::string::npos) << back.warnings.front();
  std::vector<std::string> listWarnings;
  listDicomSeries(dir / "s", &listWarnings);
  ASSERT_EQ(listWarnings.size(), 1u);
  EXPECT_NE(listWarnings.front().find("skipped 1 file"), std::string::npos) << listWarnings[0];
}

// D12: an unparsable Rescale Slope silently became 1.0 (values up to 28x off, exit 0).
TEST(DicomImport, UnparsableRescaleValuesAreErrorsNamingFileAndAttribute) {
  const Volume volume = testVolume();
  test::TempDir dir;
  const auto r = exportTo(dir / "s", volume);
  fs::copy(dir / "s", dir / "t");
  for (const char* value : {"nan", "1e400", "1.5x", "inf"}) {
    editFile(dir / "s" / r.files[2],
             [&](DcmDataset& d) { d.putAndInsertString(DCM_RescaleSlope, value); });
    const std::string message = errorOf(dir / "s");
    EXPECT_NE(message.find(r.files[2].string()), std::string::npos) << value << ": " << message;
    EXPECT_NE(message.find("Rescale Slope"), std::string::npos) << value << ": " << message;
  }
  editFile(dir / "t" / r.files[0],
           [&](DcmDataset& d) { d.putAndInsertString(DCM_RescaleIntercept, "-1024 HU"); });
  const std::string message = errorOf(dir / "t");
  EXPECT_NE(message.find("Rescale Intercept"), std::string::npos) << message;
}

}  // namespace
}  // namespace tomowb::io::dicom
