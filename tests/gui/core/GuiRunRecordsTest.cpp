// GuiRunRecords: a finished demo FDK run gives a record readRunRecord parses (algorithm FDK,
// variant fdk.bp.cpu, the projections' file with its SHA-256, the geometry hash, the device, no
// command), written as <created>-run<N>.run.json; saving the volume writes NAME.run.json with the
// output and its SHA-256; opening that record loads the volume, and warns when the output changed
// or is gone; a file that is not a record gives the core's FormatError.
#include <gtest/gtest.h>

#include <QSignalSpy>
#include <QTemporaryDir>
#include <fstream>

#include "gui/core/DemoData.h"
#include "gui/core/FdkRun.h"
#include "gui/core/GuiRunRecords.h"
#include "recon/core/Error.h"
#include "recon/io/Sha256.h"
#include "recon/io/VolumeFiles.h"

namespace tomowb::gui {
namespace {

namespace fs = std::filesystem;

struct FinishedDemoRun {
  RunController runs;
  int id = -1;
  DemoDataset demo;
};

// A 32-voxel demo reconstructed with CPU FDK through the run controller, as the window does.
void runDemo(FinishedDemoRun& run) {
  JobContext context;
  run.demo = makeDemo(DemoKind::SheppLogan, 32, context);
  fdk::FdkParams params;
  params.volume = run.demo.suggestedGrid;
  params.variant = "fdk.bp.cpu";
  QSignalSpy finished(&run.runs, &RunController::runFinished);
  run.id = run.runs.enqueue(makeFdkRun(run.demo.projections, params));
  ASSERT_TRUE(finished.wait(120000));
}

TEST(GuiRunRecords, AFinishedDemoRunWritesARecordThatReadsBack) {
  FinishedDemoRun run;
  runDemo(run);
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const fs::path projectionsPath = fs::path(dir.path().toStdString()) / "scan.json";
  io::writeProjections(projectionsPath, *run.demo.projections);

  const RunInfo& info = *run.runs.run(run.id);
  const qa::RunRecord record = makeGuiRunRecord(
      info, QString::fromStdString(projectionsPath.string()), &run.demo.projections->geometry());
  const fs::path path = guiRunRecordPath(dir.filePath(QStringLiteral("runs")), record, run.id);
  EXPECT_NE(path.filename().string().find("-run" + std::to_string(run.id) + ".run.json"),
            std::string::npos);
  EXPECT_EQ(path.filename().string().find(':'), std::string::npos) << "file-name safe";
  EXPECT_EQ(writeGuiRunRecord(dir.filePath(QStringLiteral("runs")), record, run.id), path);

  const qa::RunRecord back = qa::readRunRecord(path);
  EXPECT_EQ(back.algorithm, "FDK");
  EXPECT_EQ(back.variant, "fdk.bp.cpu");
  EXPECT_TRUE(back.command.empty()) << "a GUI run has no command line";
  EXPECT_TRUE(back.outputs.empty());
  EXPECT_EQ(back.softwareVersion, TOMOWB_VERSION);
  EXPECT_EQ(back.device.value("kind", ""), "cpu");
  EXPECT_TRUE(back.timings.contains("wallSeconds"));
  EXPECT_TRUE(back.timings.contains("backprojectSeconds"));
  EXPECT_EQ(back.parameters.value("variant", ""), "fdk.bp.cpu");
  ASSERT_EQ(back.inputs.size(), 2u) << "the sidecar and its data file";
  EXPECT_EQ(back.inputs[0].role, "projections");
  EXPECT_EQ(back.inputs[1].role, "projections data");
  EXPECT_FALSE(back.geometry.is_null());
  if (sha256Available()) {
    EXPECT_EQ(back.inputs[0].sha256, sha256HexOfFile(projectionsPath));
    EXPECT_EQ(back.geometrySha256.size(), 64u);
  }
}

TEST(GuiRunRecords, SavingTheVolumeRecordsTheOutputAndOpeningItLoadsTheVolume) {
  FinishedDemoRun run;
  runDemo(run);
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const RunInfo& info = *run.runs.run(run.id);
  const qa::RunRecord record = makeGuiRunRecord(info, {}, &run.demo.projections->geometry());
  EXPECT_TRUE(record.inputs.empty()) << "demo projections come from no file";

  const fs::path volumePath = fs::path(dir.path().toStdString()) / "recon.mhd";
  io::writeVolume(volumePath, *info.result);
  const fs::path recordPath = writeSavedVolumeRecord(record, volumePath);
  EXPECT_EQ(recordPath, fs::path(dir.path().toStdString()) / "recon.run.json");
  const qa::RunRecord saved = qa::readRunRecord(recordPath);
  ASSERT_GE(saved.outputs.size(), 2u) << "the header and its .raw";
  EXPECT_EQ(saved.outputs[0].role, "output");
  if (sha256Available()) EXPECT_EQ(saved.outputs[0].sha256, sha256HexOfFile(volumePath));

  EXPECT_TRUE(isRunRecordPath(QString::fromStdString(recordPath.string())));
  EXPECT_FALSE(isRunRecordPath(QStringLiteral("scan.json")));
  OpenedRunRecord opened = openRunRecord(recordPath);
  ASSERT_TRUE(opened.volume);
  EXPECT_EQ(opened.volume->shape(), info.result->shape());
  EXPECT_TRUE(opened.warnings.isEmpty()) << opened.warnings.join("; ").toStdString();
  const RunSpec spec = runSpecForRecord(opened, QString::fromStdString(recordPath.string()));
  EXPECT_TRUE(spec.title.contains("fdk.bp.cpu"));
  EXPECT_EQ(spec.parameters.value("variant", ""), "fdk.bp.cpu");

  // The data changed since the record: still opened, with a warning.
  if (sha256Available()) {
    {
      std::ofstream raw(fs::path(dir.path().toStdString()) / "recon.raw",
                        std::ios::binary | std::ios::in | std::ios::out);
      raw.seekp(100);
      raw.put('\x7f');
    }
    opened = openRunRecord(recordPath);
    EXPECT_TRUE(opened.volume);
    ASSERT_FALSE(opened.warnings.isEmpty());
    EXPECT_TRUE(opened.warnings.join(" ").contains("changed"));
  }
  // Gone: the record alone, with a warning.
  fs::remove(volumePath);
  opened = openRunRecord(recordPath);
  EXPECT_FALSE(opened.volume);
  ASSERT_FALSE(opened.warnings.isEmpty());
  EXPECT_TRUE(opened.warnings.join(" ").contains("no longer exists"));
}

TEST(GuiRunRecords, AFileThatIsNotARecordGivesTheCoresFormatError) {
  QTemporaryDir dir;
  const fs::path path = fs::path(dir.path().toStdString()) / "bad.run.json";
  std::ofstream(path) << R"({"format": "something-else", "version": 1})";
  try {
    openRunRecord(path);
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.run.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tomowb::gui
