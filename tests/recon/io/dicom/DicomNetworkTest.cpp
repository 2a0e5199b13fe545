// Sending to a PACS (DicomNetwork.h) against a real Orthanc started by the test (OrthancServer.h):
// echo, a whole series stored and found again by C-FIND (count, UIDs, rows and columns), the
// stored files read back voxel for voxel, cancel between files, and errors that name the node
// and say what went wrong in plain words. The CLI's `dicom echo|send|query` run against it too.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "recon/io/dicom/DicomExport.h"
#include "recon/io/dicom/DicomImport.h"
#include "recon/io/dicom/DicomNetwork.h"
#include "recon/job/JobContext.h"
#include "tests/recon/io/dicom/DicomTestSupport.h"
#include "tests/recon/io/dicom/OrthancServer.h"

namespace tomowb {
namespace {

using namespace io::dicom;
namespace fs = std::filesystem;

// One Orthanc for the suite: starting it takes most of a second.
class DicomNetworkTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(test::kOrthancProgram)) return;
    try {
      server_ = std::make_unique<test::OrthancServer>();
    } catch (const std::exception& e) {
      startError_ = e.what();
    }
  }
  static void TearDownTestSuite() { server_.reset(); }

  void SetUp() override {
    TOMOWB_REQUIRE_ORTHANC();
    ASSERT_TRUE(server_) << "Orthanc did not start: " << startError_;
  }

  static DicomNode orthanc() {
    DicomNode node;
    node.host = "localhost";
    node.port = server_->dicomPort();
    node.calledAeTitle = test::kOrthancAeTitle;
    node.callingAeTitle = test::kOrthancCallingAeTitle;
    node.timeoutSeconds = 10;
    return node;
  }

  // A small CT series written by the export code, and its files (in slice order).
  static DicomExportResult exportSeries(const fs::path& folder, std::int64_t slices,
                                        const Volume& volume) {
    DicomExportOptions options;
    options.identity.seriesDescription = "network test";
    options.slices.end = slices;
    JobContext context;
    return exportDicom(volume, folder, options, context);
  }
  static std::vector<fs::path> pathsOf(const DicomExportResult& r) {
    std::vector<fs::path> paths;
    for (const fs::path& f : r.files) paths.push_back(r.folder / f);
    return paths;
  }

  static std::unique_ptr<test::OrthancServer> server_;
  static std::string startError_;
};

std::unique_ptr<test::OrthancServer> DicomNetworkTest::server_;
std::string DicomNetworkTest::startError_;

// Requests cancel from the progress report before file `at` (0-based): that file is still
// sent, since the token is checked before each file, and the next ones are not.
class CancelAtFile : public ProgressSink {
 public:
  CancelAtFile(CancelToken& token, int at) : token_(token), at_(at) {}
  void report(std::string_view, double) override {
    if (++reports_ == at_ + 1) token_.request();
  }

 private:
  CancelToken& token_;
  int at_;
  int reports_ = 0;
};

TEST_F(DicomNetworkTest, EchoAnswersFromOrthanc) {
  const double seconds = echoDicomNode(orthanc());
  EXPECT_GE(seconds, 0.0);
}

TEST_F(DicomNetworkTest, StoredSeriesArrivesWholeAndReadsBackVoxelForVoxel) {
  test::TempDir dir;
  const Volume volume = test::randomAttenuationVolume({24, 20, 5}, {0.5, 0.5, 0.8},
                                                      {-6.0, -5.0, 1.0}, test::randomSeed());
  const DicomExportResult exported = exportSeries(dir / "series", 5, volume);
  ASSERT_EQ(exported.files.size(), 5u);

  JobContext context;
  const DicomStoreResult sent = storeToDicomNode(orthanc(), pathsOf(exported), context);
  EXPECT_FALSE(sent.cancelled);
  EXPECT_EQ(sent.storedCount, 5);
  EXPECT_EQ(sent.failedCount, 0);
  for (const DicomStoreFileStatus& f : sent.files) {
    EXPECT_TRUE(f.stored) << f.file << ": " << f.message;
    EXPECT_EQ(f.dimseStatus, 0);
  }

  const auto series =
      queryDicomNode(orthanc(), exported.studyInstanceUid, exported.seriesInstanceUid, true);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].seriesInstanceUid, exported.seriesInstanceUid);
  EXPECT_EQ(series[0].studyInstanceUid, exported.studyInstanceUid);
  EXPECT_EQ(series[0].modality, "CT");
  EXPECT_EQ(series[0].seriesDescription, "network test");
  EXPECT_EQ(series[0].reportedInstances, 5);
  ASSERT_EQ(series[0].instances.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(series[0].instances[i].sopInstanceUid, sent.files[i].sopInstanceUid);
    EXPECT_EQ(series[0].instances[i].rows, 20);
    EXPECT_EQ(series[0].instances[i].columns, 24);
  }
  EXPECT_EQ(instancesHeld(series, exported.seriesInstanceUid), 5);
  // By series UID alone (no study UID), as the window asks after a send.
  EXPECT_EQ(instancesHeld(queryDicomNode(orthanc(), "", exported.seriesInstanceUid, false),
                          exported.seriesInstanceUid),
            5);

  // What Orthanc wrote to its storage is the series: same grid, values within quantisation.
  const fs::path copies = dir / "stored";
  ASSERT_GE(server_->copyStoredFiles(copies), 5u);
  DicomReadOptions read;
  read.seriesInstanceUid = exported.seriesInstanceUid;
  JobContext readContext;
  const DicomVolume back = readDicomSeries(copies, read, readContext);
  ASSERT_EQ(back.volume.nx(), 24);
  ASSERT_EQ(back.volume.ny(), 20);
  ASSERT_EQ(back.volume.nz(), 5);
  double worst = 0;
  for (std::int64_t z = 0; z < 5; ++z)
    for (std::int64_t y = 0; y < 20; ++y)
      for (std::int64_t x = 0; x < 24; ++x)
        worst = std::max(worst, std::abs(double(back.volume.at(x, y, z)) - volume.at(x, y, z)));
  // Quantisation in HU (half a slope) turned back into 1/mm, plus float rounding.
  EXPECT_LE(worst, exported.plan.maxQuantisationError * 0.0206 / 1000.0 * 1.01 + 1e-6);
}

TEST_F(DicomNetworkTest, CancelBetweenFilesStoresFewerThanAllAndSaysSo) {
  test::TempDir dir;
  const Volume volume =
      test::randomAttenuationVolume({16, 16, 6}, {1, 1, 1}, {0, 0, 0}, test::randomSeed());
  const DicomExportResult exported = exportSeries(dir / "series", 6, volume);
  CancelToken token;
  CancelAtFile sink(token, 2);
  JobContext context(token, &sink);
  const DicomStoreResult sent = storeToDicomNode(orthanc(), pathsOf(exported), context);
  EXPECT_TRUE(sent.cancelled);
  EXPECT_EQ(sent.storedCount, 3);
  EXPECT_EQ(sent.notSentCount, 3);
  EXPECT_EQ(sent.failedCount, 0);
  EXPECT_EQ(sent.files[5].message, "not sent: cancelled");
  EXPECT_EQ(instancesHeld(queryDicomNode(orthanc(), "", exported.seriesInstanceUid, true),
                          exported.seriesInstanceUid),
            3);
}

TEST_F(DicomNetworkTest, UnknownCallingAeTitleIsRefusedInPlainWords) {
  DicomNode node = orthanc();
  node.callingAeTitle = "STRANGER";
  try {
    echoDicomNode(node);
    FAIL() << "Orthanc accepted an AE title it does not know";
  } catch (const DicomNetworkError& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("The DICOM node ORTHANC at localhost:" + std::to_string(node.port) +
                             " refused the connection",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find("'STRANGER'"), std::string::npos) << text;
    EXPECT_FALSE(e.detail().empty());
  }
}

TEST_F(DicomNetworkTest, CliEchoSendQueryAgainstOrthanc) {
  test::TempDir dir;
  const Volume volume =
      test::randomAttenuationVolume({12, 10, 3}, {1, 1, 1}, {0, 0, 0}, test::randomSeed());
  const DicomExportResult exported = exportSeries(dir / "series", 3, volume);
  const std::string node = std::string(" --host localhost --port ") +
                           std::to_string(server_->dicomPort()) + " --called-ae ORTHANC" +
                           " --calling-ae TOMOWB";
  const std::string cli = TOMOWB_CLI_PATH;
  const auto echo = test::runCommand(cli + " dicom echo" + node);
  EXPECT_EQ(echo.exitCode, 0) << echo.output;
  EXPECT_NE(echo.output.find("ORTHANC at localhost"), std::string::npos) << echo.output;

  const auto send =
      test::runCommand(cli + " --json dicom send '" + exported.folder.string() + "'" + node);
  ASSERT_EQ(send.exitCode, 0) << send.output;
  const auto json = nlohmann::json::parse(send.output.substr(send.output.find('{')));
  EXPECT_EQ(json["stored"], 3) << send.output;
  EXPECT_EQ(json["arrived"], 3) << send.output;
  EXPECT_EQ(json["series"][0]["seriesInstanceUid"], exported.seriesInstanceUid);

  const auto query = test::runCommand(cli + " dicom query --series " + exported.seriesInstanceUid +
                                      " --instances" + node);
  EXPECT_EQ(query.exitCode, 0) << query.output;
  EXPECT_NE(query.output.find(exported.seriesInstanceUid), std::string::npos) << query.output;
  EXPECT_NE(query.output.find("3 instances"), std::string::npos) << query.output;
}

TEST(DicomNetwork, RefusedConnectionNamesTheNodeAndSaysNobodyAnswered) {
  DicomNode node;
  node.host = "localhost";
  node.port = test::freeTcpPort();  // nothing listens there
  node.calledAeTitle = "ORTHANC";
  node.timeoutSeconds = 5;
  try {
    echoDicomNode(node);
    FAIL() << "an echo to a closed port succeeded";
  } catch (const DicomNetworkError& e) {
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("The DICOM node ORTHANC at localhost:" + std::to_string(node.port) +
                             " did not answer (connection refused",
                         0),
              0u)
        << text;
  }
}

TEST(DicomNetwork, RefusedConnectionFailsTheSendBeforeAnyFileIsMarkedSent) {
  test::TempDir dir;
  const Volume volume = test::randomAttenuationVolume({8, 8, 2}, {1, 1, 1}, {0, 0, 0}, 7);
  DicomExportOptions options;
  JobContext exportContext;
  const DicomExportResult exported = exportDicom(volume, dir / "s", options, exportContext);
  DicomNode node;
  node.port = test::freeTcpPort();
  node.calledAeTitle = "PACS";
  std::vector<fs::path> files;
  for (const fs::path& f : exported.files) files.push_back(exported.folder / f);
  JobContext context;
  EXPECT_THROW(storeToDicomNode(node, files, context), DicomNetworkError);
}

TEST(DicomNetwork, NodeSettingsAreCheckedNamingTheField) {
  DicomNode node;
  node.calledAeTitle = "A_TITLE_LONGER_THAN_16";
  try {
    validateDicomNode(node);
    FAIL();
  } catch (const ParameterError& e) {
    EXPECT_NE(std::string(e.what()).find("called AE title"), std::string::npos) << e.what();
  }
  node.calledAeTitle = "PACS";
  node.port = 70000;
  EXPECT_THROW(validateDicomNode(node), ParameterError);
  node.port = 104;
  node.callingAeTitle = "BACK\\SLASH";
  EXPECT_THROW(validateDicomNode(node), ParameterError);
  node.callingAeTitle = "TOMOWB";
  node.host.clear();
  EXPECT_THROW(validateDicomNode(node), ParameterError);
  node.host = "localhost";
  EXPECT_NO_THROW(validateDicomNode(node));
}

TEST(DicomNetwork, AFileThatIsNotDicomIsNamedBeforeConnecting) {
  test::TempDir dir;
  const fs::path bogus = dir / "notes.dcm";
  std::ofstream(bogus) << "not a DICOM file";
  DicomNode node;
  node.port = test::freeTcpPort();
  JobContext context;
  try {
    storeToDicomNode(node, {bogus}, context);
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("notes.dcm"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb
