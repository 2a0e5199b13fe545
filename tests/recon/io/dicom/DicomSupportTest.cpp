// UIDs, the patient-position axis maps and DS formatting of the DICOM module.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <set>

#include "recon/core/Error.h"
#include "recon/io/dicom/DicomGeometry.h"
#include "recon/io/dicom/DicomOptions.h"
#include "recon/io/dicom/DicomUid.h"
#include "recon/io/dicom/Sha256.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"

namespace tomowb::io::dicom {
namespace {

TEST(DicomUid, ValidityRules) {
  EXPECT_TRUE(isValidUid("1.2.840.10008.1.2.1"));
  EXPECT_TRUE(isValidUid("2.25.0"));
  EXPECT_FALSE(isValidUid(""));
  EXPECT_FALSE(isValidUid("1..2"));
  EXPECT_FALSE(isValidUid("1.2."));
  EXPECT_FALSE(isValidUid(".1.2"));
  EXPECT_FALSE(isValidUid("1.02"));
  EXPECT_FALSE(isValidUid("1.2a"));
  EXPECT_FALSE(isValidUid(std::string(65, '1')));
  EXPECT_TRUE(isValidUid(std::string(64, '1')));
}

TEST(DicomUid, NewUuidUidsAreValidAndUnique) {
  std::set<std::string> seen;
  for (int i = 0; i < 20000; ++i) {
    const std::string uid = newUid();
    ASSERT_TRUE(isValidUid(uid)) << uid;
    ASSERT_EQ(uid.rfind("2.25.", 0), 0u) << uid;
    ASSERT_LE(uid.size(), 44u) << uid;
    ASSERT_TRUE(seen.insert(uid).second) << "duplicate " << uid;
  }
}

TEST(DicomUid, OrganisationRootUidsAreValidAndUnique) {
  const std::string root = "1.2.826.0.1.3680043.10.999";
  std::set<std::string> seen;
  for (int i = 0; i < 5000; ++i) {
    const std::string uid = newUid(root);
    ASSERT_TRUE(isValidUid(uid)) << uid;
    ASSERT_EQ(uid.rfind(root + ".", 0), 0u) << uid;
    ASSERT_TRUE(seen.insert(uid).second) << "duplicate " << uid;
  }
  // The longest root we accept still leaves valid UIDs.
  const std::string longRoot = "1.2.3.4.5.6.7.8.9.10.11.12.13.14.15.1617";
  ASSERT_EQ(longRoot.size(), 40u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(isValidUid(newUid(longRoot)));
  EXPECT_THROW(newUid(longRoot + "1"), ParameterError);
  EXPECT_THROW(newUid("1.2.03"), ParameterError);
  EXPECT_THROW(newUid("abc"), ParameterError);
}

TEST(DicomUid, KeyedUidsAreStablePerKey) {
  EXPECT_EQ(uidForKey("scan-1"), uidForKey("scan-1"));
  EXPECT_NE(uidForKey("scan-1"), uidForKey("scan-2"));
  EXPECT_TRUE(isValidUid(uidForKey("scan-1")));
  EXPECT_TRUE(isValidUid(uidForKey("scan-1", "1.2.826.0.1.3680043.10.999")));
  EXPECT_EQ(uidForKey("k", "1.2.3"), uidForKey("k", "1.2.3"));
}

TEST(Sha256, KnownDigests) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  test::TempDir dir;
  {
    std::FILE* f = std::fopen((dir / "x.txt").c_str(), "wb");
    std::fputs("abc", f);
    std::fclose(f);
  }
  EXPECT_EQ(sha256HexOfFile(dir / "x.txt"), sha256Hex("abc"));
  EXPECT_THROW(sha256HexOfFile(dir / "missing"), IoError);
}

TEST(DicomGeometry, EveryPatientPositionIsARotation) {
  for (PatientPosition p : allPatientPositions()) {
    const Eigen::Matrix3d m = worldToPatient(p);
    EXPECT_NEAR(m.determinant(), 1.0, 1e-12) << toString(p);
    EXPECT_TRUE((m.transpose() * m).isApprox(Eigen::Matrix3d::Identity())) << toString(p);
    EXPECT_EQ(parsePatientPosition(toString(p)), p);
  }
  EXPECT_TRUE(worldToPatient(PatientPosition::HFS).isIdentity());
  // Feet first supine: the head is at world -z, the patient's left at world -x.
  EXPECT_TRUE(worldToPatient(PatientPosition::FFS).col(2).isApprox(Eigen::Vector3d(0, 0, -1)));
  EXPECT_TRUE(worldToPatient(PatientPosition::FFS).col(0).isApprox(Eigen::Vector3d(-1, 0, 0)));
  // Prone: world +y (towards the table) is the patient's anterior.
  EXPECT_TRUE(worldToPatient(PatientPosition::HFP).col(1).isApprox(Eigen::Vector3d(0, -1, 0)));
  // Decubitus left: the patient's left side lies on the table (+y).
  EXPECT_TRUE(worldToPatient(PatientPosition::HFDL).col(1).isApprox(Eigen::Vector3d(1, 0, 0)));
  EXPECT_TRUE(worldToPatient(PatientPosition::HFDR).col(1).isApprox(Eigen::Vector3d(-1, 0, 0)));
  EXPECT_THROW(parsePatientPosition("SITTING"), ParameterError);
}

TEST(DicomGeometry, SliceGeometryInvertsToTheSameWorldGrid) {
  std::mt19937_64 generator(test::randomSeed());
  std::uniform_real_distribution<double> spacing(0.1, 3.0), origin(-200, 200);
  for (PatientPosition p : allPatientPositions()) {
    const Eigen::Vector3d voxel(spacing(generator), spacing(generator), spacing(generator));
    const Eigen::Vector3d start(origin(generator), origin(generator), origin(generator));
    Volume v(VolumeShape{7, 5, 4}, voxel, start);
    const DicomSliceGeometry g = sliceGeometry(v, p);
    EXPECT_TRUE(g.normal.isApprox(worldToPatient(p).col(2)));
    const auto grid =
        worldGridFromDicom(g.rowDirection, g.columnDirection, g.firstVoxelLps,
                           Eigen::Vector3d(g.columnSpacingMm, g.rowSpacingMm, g.sliceSpacingMm),
                           Eigen::Vector3d(7, 5, 4), p);
    ASSERT_TRUE(grid) << toString(p);
    for (int a = 0; a < 3; ++a) {
      EXPECT_EQ(grid->fileAxis[a], a) << toString(p);
      EXPECT_FALSE(grid->reversed[a]) << toString(p);
    }
    EXPECT_TRUE(grid->voxelSizeMm.isApprox(voxel));
    EXPECT_LT((grid->originMm - start).norm(), 1e-9) << toString(p);
  }
}

TEST(DicomGeometry, ForeignAxisOrdersAreFlippedAndPermuted) {
  // A sagittal series read with the HFS map: rows run along -z (superior to inferior), columns
  // along +y, slices along +x.
  const Eigen::Vector3d row(0, 1, 0), column(0, 0, -1);
  const auto grid =
      worldGridFromDicom(row, column, Eigen::Vector3d(10, -20, 30), Eigen::Vector3d(0.5, 0.7, 2.0),
                         Eigen::Vector3d(8, 6, 3), PatientPosition::HFS);
  ASSERT_TRUE(grid);
  // normal = row x column = (-1, 0, 0): slices run along -x.
  EXPECT_EQ(grid->fileAxis[0], 2);
  EXPECT_TRUE(grid->reversed[0]);
  EXPECT_EQ(grid->fileAxis[1], 0);
  EXPECT_FALSE(grid->reversed[1]);
  EXPECT_EQ(grid->fileAxis[2], 1);
  EXPECT_TRUE(grid->reversed[2]);
  EXPECT_TRUE(grid->voxelSizeMm.isApprox(Eigen::Vector3d(2.0, 0.5, 0.7)));
  // Voxel (0,0,0) is the last slice (x = 10 - 2*2) and the last row (z = 30 - 5*0.7).
  EXPECT_TRUE(grid->originMm.isApprox(Eigen::Vector3d(6, -20, 26.5)));
  // Oblique directions have no axis-aligned grid.
  const Eigen::Vector3d tilted = Eigen::Vector3d(1, 0.1, 0).normalized();
  const Eigen::Vector3d ortho = Eigen::Vector3d(-0.1, 1, 0).normalized();
  EXPECT_FALSE(worldGridFromDicom(tilted, ortho, Eigen::Vector3d::Zero(), Eigen::Vector3d::Ones(),
                                  Eigen::Vector3d::Ones(), PatientPosition::HFS));
}

TEST(DicomGeometry, DecimalStringsFitSixteenCharactersAndKeepPrecision) {
  std::mt19937_64 generator(test::randomSeed());
  std::uniform_real_distribution<double> unit(-1, 1);
  for (int i = 0; i < 10000; ++i) {
    const double magnitude = std::pow(10.0, std::uniform_int_distribution<int>(-8, 8)(generator));
    const double value = unit(generator) * magnitude;
    const std::string text = formatDecimalString(value);
    ASSERT_LE(text.size(), 16u) << value;
    const double back = std::stod(text);
    // 16 characters keep at least 10 significant digits in this range.
    ASSERT_NEAR(back, value, 1e-9 * std::abs(value) + 1e-300) << text;
  }
  EXPECT_EQ(formatDecimalString(0.5), "0.5");
  EXPECT_EQ(formatDecimalString(-100.8), "-100.8");
}

TEST(DicomOptions, NamesParseAndUnknownNamesAreErrors) {
  EXPECT_EQ(parseObjectType("Enhanced-CT"), DicomObjectType::EnhancedCtImage);
  EXPECT_EQ(parseCompression("jpeg-ls"), DicomCompression::JpegLsLossless);
  EXPECT_EQ(parseValueMode("native"), DicomValueMode::Native);
  try {
    parseCompression("jpeg2000", "--compression");
    FAIL() << "no error";
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("--compression"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("jpeg-ls"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb::io::dicom
