// Export then read back: values within the reported quantisation, geometry exact, for CT Image,
// Enhanced CT and PET, every compression and every patient position; UIDs, provenance, crop,
// cancel and replace.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <set>

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
  return test::randomAttenuationVolume(VolumeShape{23, 17, 6}, Eigen::Vector3d(0.45, 0.55, 1.25),
                                       Eigen::Vector3d(-5.175, -4.4, -3.125), test::randomSeed());
}

// The largest |a - b| over the voxels; shapes must match.
double maxDifference(const Volume& a, const Volume& b) {
  double worst = 0;
  for (std::int64_t i = 0; i < a.voxelCount(); ++i)
    worst = std::max(worst, std::abs(static_cast<double>(a.data()[i]) - b.data()[i]));
  return worst;
}

void expectSameGrid(const Volume& a, const Volume& b) {
  ASSERT_EQ(a.shape(), b.shape());
  EXPECT_LT((a.voxelSizeMm() - b.voxelSizeMm()).cwiseAbs().maxCoeff(), 1e-9)
      << a.voxelSizeMm().transpose() << " vs " << b.voxelSizeMm().transpose();
  EXPECT_LT((a.originMm() - b.originMm()).cwiseAbs().maxCoeff(), 1e-9)
      << a.originMm().transpose() << " vs " << b.originMm().transpose();
}

struct Case {
  DicomObjectType type;
  DicomCompression compression;
};

class DicomRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(DicomRoundTrip, ValuesWithinQuantisationAndGeometryExact) {
  const Volume volume = testVolume();
  DicomExportOptions o;
  o.type = GetParam().type;
  o.compression = GetParam().compression;
  o.provenance.algorithm = "SIRT";
  o.provenance.variant = "et.fp.cpu/et.bp.cpu-matched";
  o.provenance.iterations = 30;
  o.provenance.geometryHash = std::string(64, 'a');
  test::TempDir dir;
  JobContext context;
  const DicomExportResult r = exportDicom(volume, dir / "series", o, context);
  EXPECT_EQ(r.files.size(), o.type == DicomObjectType::EnhancedCtImage ? 1u : 6u);
  EXPECT_GT(r.plan.maxQuantisationError, 0);
  EXPECT_LE(r.plan.maxQuantisationError, 0.5 * r.plan.rescaleSlope * (1 + 1e-9));

  const DicomVolume back = readDicomSeries(dir / "series", {}, context);
  expectSameGrid(volume, back.volume);
  EXPECT_EQ(back.series.seriesInstanceUid, r.seriesInstanceUid);
  EXPECT_EQ(back.series.studyInstanceUid, r.studyInstanceUid);
  EXPECT_EQ(back.series.frameOfReferenceUid, r.frameOfReferenceUid);
  ASSERT_TRUE(back.provenance);
  EXPECT_EQ(back.provenance->algorithm, "SIRT");
  EXPECT_EQ(back.provenance->variant, "et.fp.cpu/et.bp.cpu-matched");
  EXPECT_EQ(back.provenance->iterations, 30);
  EXPECT_EQ(back.provenance->geometryHash, std::string(64, 'a'));
  if (o.type == DicomObjectType::PetImage) {
    EXPECT_EQ(back.units, "PROPCNTS");
    EXPECT_EQ(back.rescaleIntercept, 0.0);
    // Stored values carry the reported error; float32 read-back adds its own rounding.
    EXPECT_LE(maxDifference(volume, back.volume), r.plan.maxQuantisationError * (1 + 1e-6) + 1e-8);
  } else {
    // HU back to attenuation with the water value the series records.
    EXPECT_EQ(back.units, "1/mm");
    const double errorPerMm = r.plan.maxQuantisationError * o.waterAttenuationPerMm / 1000.0;
    EXPECT_LE(maxDifference(volume, back.volume), errorPerMm * (1 + 1e-6) + 1e-8);
  }
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (auto t :
       {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage, DicomObjectType::PetImage})
    for (auto c : {DicomCompression::None, DicomCompression::RleLossless,
                   DicomCompression::JpegLsLossless, DicomCompression::JpegLossless})
      cases.push_back({t, c});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllFormats, DicomRoundTrip, ::testing::ValuesIn(allCases()),
                         [](const auto& info) {
                           std::string name =
                               toString(info.param.type) + "_" + toString(info.param.compression);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

// DCMTK 3.6.7's default JPEG-LS encoder broke on some widths (23 columns: invalid streams and a
// corrupted heap); every codec must round-trip random full-range data at awkward widths.
TEST(DicomExport, EveryCodecRoundTripsAwkwardWidths) {
  for (std::int64_t width : {1, 3, 23, 37, 129}) {
    const Volume volume =
        test::randomAttenuationVolume(VolumeShape{width, 7, 3}, Eigen::Vector3d::Ones(),
                                      Eigen::Vector3d::Zero(), test::randomSeed());
    for (auto compression : {DicomCompression::RleLossless, DicomCompression::JpegLsLossless,
                             DicomCompression::JpegLossless}) {
      for (auto type : {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage}) {
        DicomExportOptions o;
        o.type = type;
        o.compression = compression;
        o.values =
            type == DicomObjectType::CtImage ? DicomValueMode::Native : DicomValueMode::Hounsfield;
        test::TempDir dir;
        JobContext context;
        const auto r = exportDicom(volume, dir / "s", o, context);
        const DicomVolume back = readDicomSeries(dir / "s", {}, context);
        const double tolerance =
            (o.values == DicomValueMode::Native ? 1.0 : o.waterAttenuationPerMm / 1000) *
                r.plan.maxQuantisationError * 1.001 +
            1e-8;
        EXPECT_LE(maxDifference(volume, back.volume), tolerance)
            << toString(compression) << " " << toString(type) << " width " << width;
      }
    }
  }
}

TEST(DicomExport, EveryPatientPositionRoundTripsExactly) {
  const Volume volume = testVolume();
  for (PatientPosition p : allPatientPositions()) {
    for (auto type : {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage}) {
      DicomExportOptions o;
      o.type = type;
      o.patientPosition = p;
      test::TempDir dir;
      JobContext context;
      exportDicom(volume, dir / "s", o, context);
      const DicomVolume back = readDicomSeries(dir / "s", {}, context);
      EXPECT_EQ(back.patientPosition, p);
      EXPECT_FALSE(back.oblique);
      expectSameGrid(volume, back.volume);
      EXPECT_LE(maxDifference(volume, back.volume), 1e-6) << toString(p);
    }
  }
}

TEST(DicomExport, NativeUnitsHounsfieldAndKeepHounsfield) {
  const Volume volume = testVolume();
  test::TempDir dir;
  JobContext context;
  DicomExportOptions native;
  native.values = DicomValueMode::Native;
  const auto r = exportDicom(volume, dir / "native", native, context);
  EXPECT_EQ(r.plan.rescaleType, "US");
  const DicomVolume n = readDicomSeries(dir / "native", {}, context);
  EXPECT_EQ(n.units, "1/mm");
  EXPECT_LE(maxDifference(volume, n.volume), r.plan.maxQuantisationError * (1 + 1e-6) + 1e-9);

  DicomExportOptions hu;
  hu.waterAttenuationPerMm = 0.02;
  const auto rh = exportDicom(volume, dir / "hu", hu, context);
  EXPECT_EQ(rh.plan.units, "HU");
  DicomReadOptions keep;
  keep.keepHounsfield = true;
  const DicomVolume h = readDicomSeries(dir / "hu", keep, context);
  EXPECT_EQ(h.units, "HU");
  // Voxel 0 in HU: 1000 (mu - 0.02) / 0.02.
  EXPECT_NEAR(h.volume.data()[0], 1000.0 * (volume.data()[0] - 0.02) / 0.02,
              rh.plan.maxQuantisationError * 1.001 + 1e-3);
  // Enhanced CT has HU only.
  DicomExportOptions enhancedNative;
  enhancedNative.type = DicomObjectType::EnhancedCtImage;
  enhancedNative.values = DicomValueMode::Native;
  EXPECT_THROW(planDicomExport(volume, enhancedNative), ParameterError);
}

TEST(DicomExport, SliceRangeAndCropMoveTheOrigin) {
  const Volume volume = testVolume();
  DicomExportOptions o;
  o.slices = {2, 5};
  o.cropX = {3, 20};
  o.cropY = {1, -1};
  test::TempDir dir;
  JobContext context;
  const auto r = exportDicom(volume, dir / "s", o, context);
  EXPECT_EQ(r.files.size(), 3u);
  const DicomVolume back = readDicomSeries(dir / "s", {}, context);
  ASSERT_EQ(back.volume.shape(), (VolumeShape{17, 16, 3}));
  EXPECT_LT((back.volume.originMm() - volume.worldPosition(3, 1, 2)).norm(), 1e-9);
  const double tolerance =
      r.plan.maxQuantisationError * o.waterAttenuationPerMm / 1000 * 1.001 + 1e-8;
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t y = 0; y < 16; ++y)
      for (std::int64_t x = 0; x < 17; ++x)
        ASSERT_NEAR(back.volume.at(x, y, z), volume.at(x + 3, y + 1, z + 2), tolerance);
  DicomExportOptions empty;
  empty.slices = {4, 4};
  EXPECT_THROW(planDicomExport(volume, empty), ParameterError);
  DicomExportOptions outside;
  outside.cropX = {0, 24};
  EXPECT_THROW(planDicomExport(volume, outside), ParameterError);
}

TEST(DicomExport, UidsAreValidUniqueAndShareable) {
  const Volume volume = testVolume();
  test::TempDir dir;
  JobContext context;
  DicomExportOptions o;
  o.provenance.acquisitionKey = "projections sha256 1234";
  const auto a = exportDicom(volume, dir / "a", o, context);
  // A second series of the same study and acquisition.
  DicomExportOptions o2 = o;
  o2.identity.studyInstanceUid = a.studyInstanceUid;
  o2.identity.seriesNumber = 2;
  o2.type = DicomObjectType::EnhancedCtImage;
  const auto b = exportDicom(volume, dir / "b", o2, context);
  EXPECT_EQ(b.studyInstanceUid, a.studyInstanceUid);
  EXPECT_NE(b.seriesInstanceUid, a.seriesInstanceUid);
  EXPECT_EQ(b.frameOfReferenceUid, a.frameOfReferenceUid);  // same acquisition key
  for (const auto& uid :
       {a.studyInstanceUid, a.seriesInstanceUid, a.frameOfReferenceUid, b.seriesInstanceUid})
    EXPECT_TRUE(isValidUid(uid)) << uid;
  // A third export without a key gets its own frame of reference and study.
  const auto c = exportDicom(volume, dir / "c", DicomExportOptions{}, context);
  EXPECT_NE(c.frameOfReferenceUid, a.frameOfReferenceUid);
  EXPECT_NE(c.studyInstanceUid, a.studyInstanceUid);
  // Both series show up, by series, in one folder.
  fs::create_directory(dir / "both");
  for (const auto& [folder, result] : {std::pair{dir / "a", a}, std::pair{dir / "b", b}})
    for (const auto& f : result.files)
      fs::copy_file(folder / f, dir / "both" / (folder.filename().string() + f.string()));
  const auto list = listDicomSeries(dir / "both");
  ASSERT_EQ(list.size(), 2u);
  std::set<std::string> series{list[0].seriesInstanceUid, list[1].seriesInstanceUid};
  EXPECT_TRUE(series.count(a.seriesInstanceUid) && series.count(b.seriesInstanceUid));
  try {
    readDicomSeries(dir / "both", {}, context);
    FAIL() << "a folder with two series needs a choice";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("2 series"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(a.seriesInstanceUid), std::string::npos) << e.what();
  }
  DicomReadOptions pick;
  pick.seriesInstanceUid = b.seriesInstanceUid;
  EXPECT_EQ(readDicomSeries(dir / "both", pick, context).series.sopClass, "Enhanced CT Image");
}

TEST(DicomExport, SopInstanceUidsDifferPerFile) {
  const Volume volume = testVolume();
  test::TempDir dir;
  JobContext context;
  const auto r = exportDicom(volume, dir / "s", DicomExportOptions{}, context);
  std::set<std::string> instances;
  for (const auto& f : r.files) {
    const auto out = test::runCommand("dcmdump +P SOPInstanceUID " + (dir / "s" / f).string());
    if (out.exitCode != 0) GTEST_SKIP() << "dcmdump is not installed";
    instances.insert(out.output);
  }
  EXPECT_EQ(instances.size(), r.files.size());
}

class CancelAfter : public ProgressSink {
 public:
  CancelAfter(CancelToken& token, double fraction) : token_(token), fraction_(fraction) {}
  void report(std::string_view, double fraction) override {
    if (fraction >= fraction_) token_.request();
  }

 private:
  CancelToken& token_;
  double fraction_;
};

TEST(DicomExport, CancelledExportLeavesNoFiles) {
  const Volume volume = testVolume();
  for (auto type : {DicomObjectType::CtImage, DicomObjectType::EnhancedCtImage}) {
    test::TempDir dir;
    CancelToken token;
    CancelAfter sink(token, 0.3);
    JobContext context(token, &sink);
    DicomExportOptions o;
    o.type = type;
    EXPECT_THROW(exportDicom(volume, dir / "s", o, context), Cancelled);
    EXPECT_TRUE(fs::is_empty(dir.path())) << "left " << fs::directory_iterator(dir.path())->path();
  }
}

TEST(DicomExport, NeverOverwritesWithoutBeingAskedAndReplacesWhenAsked) {
  const Volume volume = testVolume();
  test::TempDir dir;
  JobContext context;
  fs::create_directory(dir / "s");
  {
    std::FILE* f = std::fopen((dir / "s" / "keep.txt").c_str(), "w");
    std::fputs("mine", f);
    std::fclose(f);
  }
  EXPECT_THROW(exportDicom(volume, dir / "s", DicomExportOptions{}, context), IoError);
  EXPECT_TRUE(fs::exists(dir / "s" / "keep.txt"));
  const auto r = exportDicom(volume, dir / "s", DicomExportOptions{}, context, true);
  EXPECT_FALSE(fs::exists(dir / "s" / "keep.txt"));
  EXPECT_EQ(static_cast<std::size_t>(
                std::distance(fs::directory_iterator(dir / "s"), fs::directory_iterator())),
            r.files.size());
  // Nothing but the series is left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(DicomExport, FolderUnderAFileIsAClearError) {
  const Volume volume = testVolume();
  test::TempDir dir;
  std::ofstream(dir / "plain") << "x";
  JobContext context;
  try {
    exportDicom(volume, dir / "plain" / "s", DicomExportOptions{}, context);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("plain"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

// A write that fails half-way (as on a full disk): a file-size limit makes write() fail with
// EFBIG after 64 KiB. The error names the file and nothing is left behind.
TEST(DicomExport, FailedWriteLeavesNothing) {
  const Volume volume = test::randomAttenuationVolume(
      VolumeShape{256, 256, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero(), 5);
  test::TempDir dir;
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limited = old;
  limited.rlim_cur = 64 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
  std::string message;
  try {
    JobContext context;
    DicomExportOptions o;
    o.type = DicomObjectType::EnhancedCtImage;  // one 512 KiB file
    exportDicom(volume, dir / "s", o, context);
  } catch (const IoError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previousHandler);
  EXPECT_NE(message.find("ECT0001.dcm"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(DicomExport, UnwritableFolderIsAClearError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write anywhere (FolderUnderAFile covers it)";
  const Volume volume = testVolume();
  test::TempDir dir;
  fs::create_directory(dir / "locked");
  fs::permissions(dir / "locked", fs::perms::owner_read | fs::perms::owner_exec);
  JobContext context;
  try {
    exportDicom(volume, dir / "locked" / "s", DicomExportOptions{}, context);
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  fs::permissions(dir / "locked", fs::perms::owner_all);
}

TEST(DicomExport, BadOptionsAreParameterErrors) {
  const Volume volume = testVolume();
  const auto expectError = [&](DicomExportOptions o, const char* parameter) {
    try {
      planDicomExport(volume, o);
      ADD_FAILURE() << parameter << ": no error";
    } catch (const ParameterError& e) {
      EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos) << e.what();
    }
  };
  DicomExportOptions o;
  o.identity.patientSex = "X";
  expectError(o, "patient-sex");
  o = {};
  o.identity.patientBirthDate = "1999-01-01";
  expectError(o, "patient-birth-date");
  o = {};
  o.identity.studyInstanceUid = "1.2.03";
  expectError(o, "study-uid");
  o = {};
  o.identity.uidRoot = "1.2.x";
  expectError(o, "uid-root");
  o = {};
  o.identity.seriesDescription = std::string(65, 'a');
  expectError(o, "series-description");
  o = {};
  o.waterAttenuationPerMm = 0;
  expectError(o, "water-attenuation");
  o = {};
  o.type = DicomObjectType::PetImage;
  o.petUnits = "KBQ";
  expectError(o, "pet-units");
}

TEST(DicomExport, NonFiniteVoxelsAndConstantVolumesAreWarnedAbout) {
  Volume volume = testVolume();
  volume.data()[5] = std::numeric_limits<float>::quiet_NaN();
  DicomExportOptions o;
  const auto plan = planDicomExport(volume, o);
  ASSERT_FALSE(plan.warnings.empty());
  EXPECT_NE(plan.warnings[0].find("1 voxels"), std::string::npos) << plan.warnings[0];
  Volume flat(VolumeShape{4, 4, 2}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  for (float& v : flat.voxels()) v = 0.02f;
  test::TempDir dir;
  JobContext context;
  const auto r = exportDicom(flat, dir / "flat", o, context);
  EXPECT_FALSE(r.plan.warnings.empty());
  const DicomVolume back = readDicomSeries(dir / "flat", {}, context);
  for (float v : back.volume.voxels()) EXPECT_NEAR(v, 0.02f, 1e-7);
}

}  // namespace
}  // namespace tomowb::io::dicom
