#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <filesystem>
#include <numbers>

#include "gui/core/LoadTask.h"
#include "gui/core/TiltAngles.h"
#include "recon/core/Error.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

QString qpath(const std::filesystem::path& p) {
  return QString::fromStdString(p.string());
}

Volume smallVolume() {
  Volume v = Volume::centred({8, 6, 4}, Eigen::Vector3d(0.5, 0.5, 1.0));
  for (std::int64_t i = 0; i < v.voxelCount(); ++i) v.voxels()[std::size_t(i)] = float(i);
  return v;
}

// Processes events for `ms` so that anything still queued would arrive.
void drainEvents(int ms) {
  QElapsedTimer timer;
  timer.start();
  while (timer.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

TEST(LoadTask, LoadsAMetaImageVolume) {
  test::TempDir dir;
  io::writeVolume(dir / "good.mhd", smallVolume());
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  QSignalSpy progress(&task, &LoadTask::progress);
  task.startFile(qpath(dir / "good.mhd"));
  EXPECT_TRUE(task.busy());
  ASSERT_TRUE(finished.wait(10000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  EXPECT_FALSE(task.busy());
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.volume);
  EXPECT_FALSE(result.projections);
  EXPECT_EQ(result.volume->shape(), (VolumeShape{8, 6, 4}));
  EXPECT_FLOAT_EQ(result.volume->at(7, 5, 3), float(8 * 6 * 4 - 1));
  EXPECT_EQ(result.name, "good.mhd");
  ASSERT_FALSE(progress.isEmpty());
  EXPECT_DOUBLE_EQ(progress[0][0].toDouble(), -1.0);  // file readers have no progress hook
}

TEST(LoadTask, LoadsRawProjectionsAsProjectionsByTheirSidecar) {
  test::TempDir dir;
  CircularConeParams c;
  c.sourceToIsocentreMm = 500;
  c.sourceToDetectorMm = 1000;
  c.detector.cols = 12;
  c.detector.rows = 5;
  c.anglesRad = fullScanAnglesRad(7);
  io::writeProjections(dir / "scan.json", ProjectionStack(circularConeBeam(c)));
  EXPECT_EQ(LoadTask::resolveKind(qpath(dir / "scan.json"), LoadKind::Auto), LoadKind::Projections);
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  task.startFile(qpath(dir / "scan.json"));
  ASSERT_TRUE(finished.wait(10000));
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.projections);
  EXPECT_EQ(result.projections->viewCount(), 7);
  EXPECT_EQ(result.projections->cols(), 12);
}

TEST(LoadTask, TruncatedRawFileFailsNamingTheFile) {
  test::TempDir dir;
  io::writeVolume(dir / "cut.json", smallVolume());
  std::filesystem::resize_file(dir / "cut.raw", 100);
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(dir / "cut.json"));
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(finished.isEmpty());
  const QString message = failed[0][0].toString();
  EXPECT_TRUE(message.contains("cut.raw") || message.contains("cut.json")) << message.toStdString();
  EXPECT_FALSE(task.busy());
}

TEST(LoadTask, ExplicitHintThatDoesNotFitTheFormatFailsNamingTheFile) {
  test::TempDir dir;
  io::writeVolume(dir / "vol.mhd", smallVolume());
  EXPECT_THROW(LoadTask::resolveKind(qpath(dir / "vol.mhd"), LoadKind::Projections), FormatError);
  LoadTask task;
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(dir / "vol.mhd"), LoadKind::Projections);
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(failed[0][0].toString().contains("vol.mhd"));
  EXPECT_TRUE(failed[0][0].toString().contains("volume"));
}

TEST(LoadTask, UnknownExtensionFailsNamingTheFile) {
  LoadTask task;
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile("/nonexistent/notes.txt");
  ASSERT_TRUE(failed.wait(10000));
  EXPECT_TRUE(failed[0][0].toString().contains("notes.txt"))
      << failed[0][0].toString().toStdString();
}

TEST(LoadTask, CancelledFileLoadDeliversNothing) {
  test::TempDir dir;
  io::writeVolume(dir / "big.mhd", Volume::centred({128, 128, 64}, Eigen::Vector3d::Ones()));
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  QSignalSpy cancelled(&task, &LoadTask::cancelled);
  task.startFile(qpath(dir / "big.mhd"));
  task.cancel();
  EXPECT_EQ(cancelled.count(), 1);  // at once, not when the reader ends
  EXPECT_FALSE(task.busy());
  drainEvents(1500);
  EXPECT_TRUE(finished.isEmpty());
  EXPECT_TRUE(failed.isEmpty());
}

TEST(LoadTask, DestroyingWhileLoadingIsSafe) {
  test::TempDir dir;
  io::writeVolume(dir / "v.mhd", smallVolume());
  {
    LoadTask task;
    task.startFile(qpath(dir / "v.mhd"));
  }
  drainEvents(500);  // the abandoned reader's post finds no target: nothing happens
  SUCCEED();
}

TEST(LoadTask, OpensAnMrcTiltSeriesWithItsTltAsProjectionsAndAnMrcVolumeAsAVolume) {
  test::TempDir dir;
  JobContext context;
  const DemoDataset et = makeDemo(DemoKind::ElectronTomography, 16, context);
  std::vector<double> tiltsRad;
  for (int i = 0; i < 61; ++i) tiltsRad.push_back((-60.0 + 2.0 * i) * std::numbers::pi / 180.0);
  io::writeTiltSeries(dir / "cell.mrc", *et.projections, tiltsRad);  // + cell.tlt
  EXPECT_EQ(LoadTask::resolveKind(qpath(dir / "cell.mrc"), LoadKind::Auto), LoadKind::Projections);
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy failed(&task, &LoadTask::failed);
  task.startFile(qpath(dir / "cell.mrc"));
  ASSERT_TRUE(finished.wait(30000))
      << (failed.isEmpty() ? "" : failed[0][0].toString().toStdString());
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.projections);
  const Geometry& g = result.projections->geometry();
  EXPECT_EQ(g.viewCount(), 61);
  ASSERT_TRUE(isTiltSeries(g));
  const std::vector<double> tilts = fitTiltAxis(g).tiltsRad;
  EXPECT_NEAR(tilts.front() * 180.0 / std::numbers::pi, -60.0, 1e-3);
  EXPECT_NEAR(tilts.back() * 180.0 / std::numbers::pi, 60.0, 1e-3);
  EXPECT_FLOAT_EQ(result.projections->at(30, 4, 16), et.projections->at(30, 4, 16));

  // A reconstruction saved as MRC opens as a volume.
  io::writeVolume(dir / "tomogram.rec", smallVolume());
  EXPECT_EQ(LoadTask::resolveKind(qpath(dir / "tomogram.rec"), LoadKind::Auto), LoadKind::Volume);
  finished.clear();
  task.startFile(qpath(dir / "tomogram.rec"));
  ASSERT_TRUE(finished.wait(10000));
  const auto volume = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(volume.volume);
  EXPECT_EQ(volume.volume->shape(), (VolumeShape{8, 6, 4}));
}

TEST(LoadTask, DemoReportsProgressAndCancelStopsIt) {
  LoadTask task;
  QSignalSpy finished(&task, &LoadTask::finished);
  QSignalSpy progress(&task, &LoadTask::progress);
  QSignalSpy cancelled(&task, &LoadTask::cancelled);
  task.startDemo(DemoKind::SheppLogan, 48);
  ASSERT_TRUE(finished.wait(60000));
  const auto result = finished[0][0].value<LoadResult>();
  ASSERT_TRUE(result.projections);
  EXPECT_TRUE(result.phantom);
  ASSERT_TRUE(result.suggestedGrid);
  EXPECT_GT(result.suggestedGrid->shape.nx, 0);
  EXPECT_GE(progress.count(), 1);

  finished.clear();
  task.startDemo(DemoKind::SheppLogan, 128);
  task.cancel();
  EXPECT_EQ(cancelled.count(), 1);
  drainEvents(1000);
  EXPECT_TRUE(finished.isEmpty());
}

}  // namespace
}  // namespace tomowb::gui
