// Projections with any geometry in the window (issue #17, point 3): OpenProjectionsDialog says
// what a geometry file was recognised as and keeps Open disabled while a stack has no geometry;
// the Data panel asks "projections or volume?" for a stack that does not say (answered here by a
// chooser), reads an ASTRA user's .npy ([rows][views][cols]) with cone_vec text into the same
// projections as the CLI's loader, opens an .mrc with a .tlt beside it as a tilt series whatever
// its space group, and its context menu reopens a file the other way. Set TOMOWB_SCREENSHOT_DIR to
// keep pictures of the dialog and the question.
#include <gtest/gtest.h>

#include <QApplication>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <cstdlib>
#include <fstream>
#include <iomanip>

#include "gui/DataPanel.h"
#include "gui/OpenProjectionsDialog.h"
#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"
#include "recon/geometry/ScanBuilders.h"
#include "recon/io/ImodFiles.h"
#include "recon/io/MrcIo.h"
#include "recon/io/NpyIo.h"
#include "recon/io/VolumeFiles.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

constexpr std::int64_t kCols = 12, kRows = 7, kViews = 9;

QString qpath(const std::filesystem::path& p) {
  return QString::fromStdString(p.string());
}

Geometry cone() {
  CircularConeParams p;
  p.sourceToIsocentreMm = 500;
  p.sourceToDetectorMm = 900;
  p.detector.cols = kCols;
  p.detector.rows = kRows;
  p.anglesRad = fullScanAnglesRad(kViews);
  return circularConeBeam(p);
}

float pixelValue(std::int64_t view, std::int64_t row, std::int64_t col) {
  return static_cast<float>(view * 100 + row * 10 + col);
}

// As ASTRA's astra.data3d.get returns it: shape (rows, views, cols); or ours (views, rows, cols).
Volume stack(bool astra) {
  Volume v = Volume::centred({kCols, astra ? kViews : kRows, astra ? kRows : kViews},
                             Eigen::Vector3d::Ones());
  for (std::int64_t view = 0; view < kViews; ++view)
    for (std::int64_t row = 0; row < kRows; ++row)
      for (std::int64_t col = 0; col < kCols; ++col)
        v.at(col, astra ? view : row, astra ? row : view) = pixelValue(view, row, col);
  return v;
}

void writeConeVec(const std::filesystem::path& path) {
  std::ofstream out(path);
  out << std::setprecision(17);
  const Geometry g = cone();  // a named geometry: views() of a temporary would dangle
  for (const View& v : g.views()) {
    for (const auto* vec : {&v.source, &v.detectorCentre, &v.u, &v.v})
      out << vec->x() << " " << vec->y() << " " << vec->z() << " ";
    out << "\n";
  }
}

class OpenProjectionsTest : public testing::Test {
 protected:
  void SetUp() override { panel.setShowsErrorDialogs(false); }
  Workspace workspace;
  DataPanel panel{workspace};
};

TEST(OpenProjectionsDialog, SaysWhatTheGeometryIsAndNeedsOneForAStack) {
  test::TempDir dir;
  io::writeNpy(dir / "proj.npy", stack(true));
  writeConeVec(dir / "cone_vec.txt");
  OpenProjectionsDialog dialog(qpath(dir / "proj.npy"));
  EXPECT_FALSE(dialog.okButton()->isEnabled());
  EXPECT_TRUE(dialog.statusText().contains(QStringLiteral("has no geometry")))
      << dialog.statusText().toStdString();
  dialog.setGeometryPath(qpath(dir / "cone_vec.txt"));
  EXPECT_TRUE(dialog.okButton()->isEnabled());
  EXPECT_TRUE(dialog.statusText().contains(QStringLiteral("ASTRA cone_vec")))
      << dialog.statusText().toStdString();
  EXPECT_EQ(dialog.attachment().geometryFile, dir / "cone_vec.txt");
  EXPECT_FALSE(dialog.attachment().geometryFormat.has_value());
  dialog.setGeometryFormat(GeometryFileFormat::AstraParallel);
  dialog.setLayout(io::ProjectionLayout::Astra);
  EXPECT_EQ(dialog.attachment().geometryFormat, GeometryFileFormat::AstraParallel);
  EXPECT_EQ(dialog.attachment().layout, io::ProjectionLayout::Astra);

  std::ofstream(dir / "junk.txt") << "1 2 3 4 5\n";
  dialog.setGeometryFormat(std::nullopt);
  dialog.setGeometryPath(qpath(dir / "junk.txt"));
  EXPECT_FALSE(dialog.okButton()->isEnabled());
  EXPECT_TRUE(dialog.statusText().contains(QStringLiteral("junk.txt")));
}

TEST_F(OpenProjectionsTest, AnAstraUsersNpyAndVectorsOpenAsTheCliReadsThem) {
  test::TempDir dir;
  io::writeNpy(dir / "proj.npy", stack(true));
  writeConeVec(dir / "cone_vec.txt");
  QStringList asked;
  panel.setStackKindChooser([&](const QString& path) {
    asked << path;
    DataPanel::StackAnswer answer;
    answer.choice = DataPanel::StackChoice::Projections;
    answer.attachment.geometryFile = dir / "cone_vec.txt";
    return answer;
  });
  QSignalSpy loaded(&panel, &DataPanel::loaded);
  panel.openFiles({qpath(dir / "proj.npy")});
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  EXPECT_EQ(asked, QStringList{qpath(dir / "proj.npy")});
  const auto& p = workspace.projections();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->viewCount(), kViews);
  EXPECT_EQ(p->rows(), kRows);
  EXPECT_EQ(p->cols(), kCols);
  EXPECT_EQ(p->at(4, 5, 6), pixelValue(4, 5, 6));
  EXPECT_EQ(p->geometry().beam(), BeamKind::Cone);
  EXPECT_TRUE(workspace.projectionsName().contains(QStringLiteral("cone_vec.txt")));
  // The same as the core's loader gives the CLI.
  io::GeometryAttachment a;
  a.geometryFile = dir / "cone_vec.txt";
  const ProjectionStack cli = io::loadProjectionsWithGeometry(dir / "proj.npy", a).projections;
  EXPECT_TRUE(std::equal(cli.pixels().begin(), cli.pixels().end(), p->pixels().begin()));
  EXPECT_EQ(cli.geometry(), p->geometry());
}

TEST_F(OpenProjectionsTest, AStackAnsweredVolumeOrCancelledOpensAVolumeOrNothing) {
  test::TempDir dir;
  io::writeNpy(dir / "vol.npy", stack(false));
  DataPanel::StackChoice choice = DataPanel::StackChoice::Cancel;
  panel.setStackKindChooser([&](const QString&) { return DataPanel::StackAnswer{choice, {}}; });
  QSignalSpy cancelled(&panel, &DataPanel::loadCancelled);
  panel.openFiles({qpath(dir / "vol.npy")});
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_FALSE(panel.isLoading());
  EXPECT_TRUE(workspace.volumes().empty());
  choice = DataPanel::StackChoice::Volume;
  QSignalSpy loaded(&panel, &DataPanel::loaded);
  panel.openFiles({qpath(dir / "vol.npy")});
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  ASSERT_EQ(workspace.volumes().size(), 1u);
  EXPECT_EQ(workspace.volumes()[0].volume->shape(), (VolumeShape{kCols, kRows, kViews}));
  EXPECT_FALSE(workspace.projections());
}

TEST_F(OpenProjectionsTest, AnMrcWithATltBesideItIsATiltSeriesAndTheMenuReopensItEitherWay) {
  test::TempDir dir;
  io::writeMrcVolume(dir / "series.mrc", stack(false));  // ispg 1, as Python's mrcfile writes
  ASSERT_EQ(io::readMrcHeader(dir / "series.mrc").spaceGroup, 1);
  std::vector<double> tilts;
  for (int i = 0; i < kViews; ++i) tilts.push_back(-60.0 + 15.0 * i);
  io::writeTiltAnglesDeg(dir / "series.tlt", tilts);
  bool asked = false;
  panel.setStackKindChooser([&](const QString&) {
    asked = true;
    return DataPanel::StackAnswer{};
  });
  QSignalSpy loaded(&panel, &DataPanel::loaded);
  panel.openFiles({qpath(dir / "series.mrc")});
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  EXPECT_FALSE(asked);  // a tilt series by its .tlt: no question
  ASSERT_TRUE(workspace.projections());
  EXPECT_TRUE(isTiltSeries(workspace.projections()->geometry()));
  EXPECT_EQ(workspace.projections()->at(3, 2, 1), pixelValue(3, 2, 1));

  // Row 0 is the projections entry: open the same file as a plain volume.
  ASSERT_TRUE(panel.triggerContextMenuAction(0, QStringLiteral("Open as volume")));
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  ASSERT_EQ(workspace.volumes().size(), 1u);
  EXPECT_EQ(workspace.volumes()[0].volume->shape(), (VolumeShape{kCols, kRows, kViews}));

  // And back: the volume's "Open as tilt series" uses the .tlt beside it without asking.
  workspace.clear();
  panel.openAsVolume(qpath(dir / "series.mrc"));
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  ASSERT_FALSE(workspace.projections());
  ASSERT_TRUE(panel.triggerContextMenuAction(0, QStringLiteral("Open as tilt series")));
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  ASSERT_TRUE(workspace.projections());
  EXPECT_TRUE(isTiltSeries(workspace.projections()->geometry()));
}

TEST_F(OpenProjectionsTest, ALayoutThatDoesNotFitFailsNamingBothFiles) {
  test::TempDir dir;
  io::writeNpy(dir / "proj.npy", stack(false));
  writeConeVec(dir / "cone_vec.txt");
  io::GeometryAttachment a;
  a.geometryFile = dir / "cone_vec.txt";
  a.layout = io::ProjectionLayout::Astra;
  QSignalSpy failed(&panel, &DataPanel::loadFailed);
  panel.openProjections(qpath(dir / "proj.npy"), a);
  ASSERT_TRUE(failed.wait(20000));
  const QString message = failed.front().front().toString();
  EXPECT_TRUE(message.contains(QStringLiteral("proj.npy"))) << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("cone_vec.txt"))) << message.toStdString();
  EXPECT_FALSE(workspace.projections());
}

TEST_F(OpenProjectionsTest, TheDefaultQuestionOffersProjectionsAndVolume) {
  test::TempDir dir;
  io::writeNpy(dir / "vol.npy", stack(false));
  QString text;
  QStringList buttons;
  const char* shots = std::getenv("TOMOWB_SCREENSHOT_DIR");
  // Answer the real message box: note it, keep a picture, press Volume.
  QTimer::singleShot(200, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    ASSERT_NE(box, nullptr);
    text = box->text();
    for (QAbstractButton* b : box->buttons()) buttons << b->text().remove(QLatin1Char('&'));
    if (shots) box->grab().save(QString::fromUtf8(shots) + "/open-projections-or-volume.png");
    for (QAbstractButton* b : box->buttons())
      if (b->text().remove(QLatin1Char('&')) == QStringLiteral("Volume")) b->click();
  });
  QSignalSpy loaded(&panel, &DataPanel::loaded);
  panel.openFiles({qpath(dir / "vol.npy")});
  ASSERT_TRUE(loaded.wait(20000)) << panel.lastError().toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("vol.npy"))) << text.toStdString();
  EXPECT_TRUE(buttons.contains(QStringLiteral("Projections…")));
  EXPECT_TRUE(buttons.contains(QStringLiteral("Volume")));
  EXPECT_EQ(workspace.volumes().size(), 1u);
}

TEST(OpenProjectionsDialog, Screenshot) {
  const char* shots = std::getenv("TOMOWB_SCREENSHOT_DIR");
  if (!shots) GTEST_SKIP() << "set TOMOWB_SCREENSHOT_DIR to keep the picture";
  test::TempDir dir;
  io::writeNpy(dir / "projections.npy", stack(true));
  writeConeVec(dir / "cone_vec.txt");
  OpenProjectionsDialog dialog(qpath(dir / "projections.npy"));
  dialog.setGeometryPath(qpath(dir / "cone_vec.txt"));
  dialog.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&dialog));
  dialog.grab().save(QString::fromUtf8(shots) + "/open-projections-dialog.png");
}

}  // namespace
}  // namespace tomowb::gui
