// Measurement tools of the slice views (issue #21 point 7), driven with QTest mouse and key
// events on a ViewArea and its Measurements panel: an ROI drawn with the toolbar's tool lands in
// the table with its statistics and a label on the slice, the tool goes back to window/level
// after one shape unless Shift is held at the release, ROIs and rulers are deleted by the Delete
// key, the panel's Delete and Delete all and ViewArea::clearRois, the ruler measures the distance
// between the points under the mouse on a known grid (nm for a tomogram's voxels), and the
// profile line gives the values along it in every view.
#include <gtest/gtest.h>

#include <QAction>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <memory>

#include "gui/MeasurementsPanel.h"
#include "gui/ViewArea.h"
#include "recon/metrics/MeasurementText.h"
#include "recon/metrics/PlanarRoi.h"
#include "render/ChartView.h"
#include "render/SliceView.h"

namespace tomowb::gui {
namespace {

using Tool = render::SliceView::RoiTool;

// 64 x 64 x 9 voxels of `voxelMm`, centred; value = 3 * x index + 100 (a ramp along x).
std::shared_ptr<Volume> rampVolume(double voxelMm = 0.5) {
  auto v =
      std::make_shared<Volume>(Volume::centred({64, 64, 9}, Eigen::Vector3d::Constant(voxelMm)));
  for (std::int64_t z = 0; z < v->nz(); ++z)
    for (std::int64_t y = 0; y < v->ny(); ++y)
      for (std::int64_t x = 0; x < v->nx(); ++x) v->at(x, y, z) = static_cast<float>(3 * x + 100);
  return v;
}

struct Fixture {
  ViewArea area;
  std::unique_ptr<MeasurementsPanel> panel;
  render::SliceView* axial = nullptr;
  render::SliceView* coronal = nullptr;

  explicit Fixture(double voxelMm = 0.5) {
    area.resize(900, 700);
    area.show();
    EXPECT_TRUE(QTest::qWaitForWindowExposed(&area));
    panel = std::make_unique<MeasurementsPanel>(area.orthoViews());
    panel->resize(600, 500);
    panel->show();
    area.setVolume(rampVolume(voxelMm), "ramp", false);
    axial = area.sliceViews()[0];
    coronal = area.sliceViews()[1];
  }
  QAction* tool(const char* name) { return area.findChild<QAction*>(QString::fromLatin1(name)); }
  // A left-drag on `view` between two voxel positions of its current slice.
  static void drag(render::SliceView* view, const Eigen::Vector3d& fromMm,
                   const Eigen::Vector3d& toMm, Qt::KeyboardModifiers releaseModifiers = {}) {
    const QPoint a = view->widgetPositionOf(fromMm).toPoint();
    const QPoint b = view->widgetPositionOf(toMm).toPoint();
    QTest::mousePress(view, Qt::LeftButton, Qt::NoModifier, a);
    QTest::mouseMove(view, (a + b) / 2);
    QTest::mouseMove(view, b);
    QTest::mouseRelease(view, Qt::LeftButton, releaseModifiers, b);
  }
  Eigen::Vector3d at(double x, double y) const {
    return area.volume()->worldPosition(x, y, axial->slice());
  }
};

TEST(MeasurementTools, RoiLandsInTheTableWithItsStatisticsAndTheToolDisarms) {
  Fixture f;
  ASSERT_NE(f.tool("roiToolRectangle"), nullptr);
  f.tool("roiToolRectangle")->trigger();
  EXPECT_EQ(f.axial->roiTool(), Tool::Rectangle);
  EXPECT_EQ(f.coronal->roiTool(), Tool::Rectangle);
  Fixture::drag(f.axial, f.at(20, 20), f.at(30, 36));

  const std::vector<render::SliceRoi> rois = f.area.rois();
  ASSERT_EQ(rois.size(), 1u);
  // Back to window/level in every view, and the toolbar says so.
  EXPECT_EQ(f.axial->roiTool(), Tool::None);
  EXPECT_EQ(f.coronal->roiTool(), Tool::None);
  EXPECT_TRUE(f.tool("roiToolNo")->isChecked());
  EXPECT_FALSE(f.tool("roiToolRectangle")->isChecked());

  f.panel->measureNow();
  ASSERT_EQ(f.panel->rows().size(), 1u);
  const MeasurementsPanel::Row& row = f.panel->rows()[0];
  const std::vector<std::int64_t> voxels =
      metrics::planarRoiVoxels(*f.area.volume(), rois[0].planar());
  ASSERT_GT(voxels.size(), 50u);
  // The figures of exactly the covered voxels: on the ramp the mean is 3 * (mean x) + 100.
  double sumX = 0, minX = 1e9, maxX = -1e9;
  for (std::int64_t i : voxels) {
    const double x = static_cast<double>(i % 64);
    sumX += x;
    minX = std::min(minX, x);
    maxX = std::max(maxX, x);
  }
  const double meanX = sumX / static_cast<double>(voxels.size());
  EXPECT_EQ(row.stats.voxelCount, static_cast<std::int64_t>(voxels.size()));
  EXPECT_NEAR(row.stats.mean, 3 * meanX + 100, 1e-9);
  EXPECT_EQ(row.stats.min, 3 * minX + 100);
  EXPECT_EQ(row.stats.max, 3 * maxX + 100);
  EXPECT_GT(row.stats.std, 0.0);
  EXPECT_DOUBLE_EQ(row.stats.areaMm2, static_cast<double>(voxels.size()) * 0.25);
  QTableWidget& table = f.panel->table();
  ASSERT_EQ(table.rowCount(), 1);
  EXPECT_EQ(table.item(0, MeasurementsPanel::NameColumn)->text(), rois[0].label);
  EXPECT_EQ(table.item(0, MeasurementsPanel::VoxelsColumn)->text(), QString::number(voxels.size()));
  EXPECT_EQ(table.item(0, MeasurementsPanel::MeanColumn)->text(),
            QString::number(row.stats.mean, 'g', 5));
  EXPECT_EQ(table.item(0, MeasurementsPanel::AreaColumn)->text(),
            QString::fromStdString(metrics::areaText(row.stats.areaMm2)));
  // The label on the slice: name, mean ± SD and area.
  const QString label = f.axial->overlayText(rois[0].id);
  EXPECT_TRUE(label.startsWith(rois[0].label)) << label.toStdString();
  EXPECT_TRUE(label.contains(QString::number(row.stats.mean, 'g', 5))) << label.toStdString();
  EXPECT_TRUE(label.contains(QString::fromUtf8("\u00b1"))) << label.toStdString();
  EXPECT_TRUE(label.contains(QString::fromStdString(metrics::areaText(row.stats.areaMm2))))
      << label.toStdString();

  // A left-drag now changes window/level instead of drawing a second ROI.
  const render::WindowLevel before = f.axial->windowLevel();
  Fixture::drag(f.axial, f.at(10, 10), f.at(25, 40));
  EXPECT_EQ(f.area.rois().size(), 1u);
  EXPECT_NE(f.axial->windowLevel(), before);
}

TEST(MeasurementTools, ShiftAtTheReleaseKeepsTheToolArmed) {
  Fixture f;
  f.tool("roiToolCircle")->trigger();
  Fixture::drag(f.axial, f.at(20, 20), f.at(24, 20), Qt::ShiftModifier);
  EXPECT_EQ(f.axial->roiTool(), Tool::Circle);
  EXPECT_TRUE(f.tool("roiToolCircle")->isChecked());
  Fixture::drag(f.axial, f.at(40, 40), f.at(44, 40), Qt::ShiftModifier);
  EXPECT_EQ(f.axial->roiTool(), Tool::Circle);
  Fixture::drag(f.axial, f.at(40, 15), f.at(44, 15));  // no Shift: the last one
  EXPECT_EQ(f.axial->roiTool(), Tool::None);
  EXPECT_EQ(f.area.rois().size(), 3u);
  f.panel->measureNow();
  EXPECT_EQ(f.panel->table().rowCount(), 3);
  // Escape disarms an armed tool too.
  f.tool("roiToolCircle")->trigger();
  QTest::keyClick(f.axial, Qt::Key_Escape);
  EXPECT_EQ(f.axial->roiTool(), Tool::None);
  EXPECT_TRUE(f.tool("roiToolNo")->isChecked());
}

TEST(MeasurementTools, RoisAndRulersAreDeletedByKeyButtonAndDeleteAll) {
  Fixture f;
  f.tool("roiToolRectangle")->trigger();
  Fixture::drag(f.axial, f.at(10, 10), f.at(20, 20), Qt::ShiftModifier);
  Fixture::drag(f.axial, f.at(30, 30), f.at(40, 40), Qt::ShiftModifier);
  Fixture::drag(f.axial, f.at(45, 10), f.at(55, 20));
  f.tool("roiToolRuler")->trigger();
  Fixture::drag(f.axial, f.at(5, 50), f.at(50, 50));
  ASSERT_EQ(f.area.rois().size(), 3u);
  ASSERT_EQ(f.area.orthoViews().rulers().size(), 1u);
  f.panel->measureNow();
  ASSERT_EQ(f.panel->table().rowCount(), 4);

  // Delete key on an ROI selected by a click.
  const int first = f.area.rois()[0].id;
  QTest::mouseClick(f.axial, Qt::LeftButton, Qt::NoModifier,
                    f.axial->widgetPositionOf(f.at(15, 15)).toPoint());
  EXPECT_EQ(f.axial->selectedRoi(), first);
  QTest::keyClick(f.axial, Qt::Key_Delete);
  ASSERT_EQ(f.area.rois().size(), 2u);
  for (const render::SliceRoi& roi : f.area.rois()) EXPECT_NE(roi.id, first);
  // Delete key on a ruler selected by a click near its middle.
  QTest::mouseClick(f.axial, Qt::LeftButton, Qt::NoModifier,
                    f.axial->widgetPositionOf(f.at(27.5, 50)).toPoint());
  EXPECT_EQ(f.axial->selectedRoi(), f.area.orthoViews().rulers()[0].id);
  QTest::keyClick(f.axial, Qt::Key_Delete);
  EXPECT_TRUE(f.area.orthoViews().rulers().empty());

  // The panel's Delete removes the selected row's ROI.
  f.panel->measureNow();
  ASSERT_EQ(f.panel->table().rowCount(), 2);
  const int second = f.panel->rows()[0].id;
  f.panel->table().selectRow(0);
  auto* deleteButton = f.panel->findChild<QPushButton*>();
  for (QPushButton* b : f.panel->findChildren<QPushButton*>())
    if (b->text() == QStringLiteral("Delete")) deleteButton = b;
  ASSERT_TRUE(deleteButton->isEnabled());
  QTest::mouseClick(deleteButton, Qt::LeftButton);
  ASSERT_EQ(f.area.rois().size(), 1u);
  EXPECT_NE(f.area.rois()[0].id, second);
  EXPECT_EQ(f.panel->table().rowCount(), 1);

  // Delete all, and the hook for new data.
  f.panel->deleteAll();
  EXPECT_TRUE(f.area.rois().empty());
  EXPECT_EQ(f.panel->table().rowCount(), 0);
  f.tool("roiToolCircle")->trigger();
  Fixture::drag(f.axial, f.at(20, 20), f.at(25, 20));
  f.tool("roiToolProfile")->trigger();
  Fixture::drag(f.axial, f.at(5, 5), f.at(50, 5));
  ASSERT_EQ(f.area.rois().size(), 1u);
  ASSERT_TRUE(f.area.orthoViews().profileLine().has_value());
  f.area.clearRois();
  EXPECT_TRUE(f.area.rois().empty());
  EXPECT_FALSE(f.area.orthoViews().profileLine().has_value());
}

TEST(MeasurementTools, RulerMeasuresTheDistanceOnAKnownGrid) {
  Fixture f;
  f.tool("roiToolRuler")->trigger();
  const Eigen::Vector3d from = f.at(10, 12), to = f.at(40, 52);  // 30 x 40 voxels of 0.5 mm
  Fixture::drag(f.axial, from, to);
  EXPECT_EQ(f.axial->roiTool(), Tool::None);
  const std::vector<render::SliceLine> rulers = f.area.orthoViews().rulers();
  ASSERT_EQ(rulers.size(), 1u);
  // The points under the mouse: within a pixel of the voxel centres aimed at, 25 mm apart.
  const Eigen::Vector3d a = f.axial->worldAt(f.axial->widgetPositionOf(from).toPoint());
  const Eigen::Vector3d b = f.axial->worldAt(f.axial->widgetPositionOf(to).toPoint());
  EXPECT_NEAR(rulers[0].lengthMm(), (b - a).norm(), 1e-9);
  const double pixelMm = (f.axial->worldAt(QPointF(1, 0)) - f.axial->worldAt(QPointF(0, 0))).norm();
  EXPECT_NEAR(rulers[0].lengthMm(), 25.0, 2 * pixelMm);
  f.panel->measureNow();
  ASSERT_EQ(f.panel->table().rowCount(), 1);
  const QString length = QString::fromStdString(metrics::lengthText(rulers[0].lengthMm()));
  EXPECT_EQ(f.panel->table().item(0, MeasurementsPanel::LengthColumn)->text(), length);
  EXPECT_TRUE(f.axial->overlayText(rulers[0].id).endsWith(length));
  EXPECT_TRUE(length.endsWith(" mm")) << length.toStdString();
}

TEST(MeasurementTools, RulerOnTomogramVoxelsReadsNanometres) {
  Fixture f(4e-7);  // 0.4 nm voxels: the ruler spans 64 x 0.4 = 25.6 nm at most
  f.tool("roiToolRuler")->trigger();
  Fixture::drag(f.axial, f.at(5, 30), f.at(55, 30));
  const std::vector<render::SliceLine> rulers = f.area.orthoViews().rulers();
  ASSERT_EQ(rulers.size(), 1u);
  EXPECT_NEAR(rulers[0].lengthMm() * 1e6, 20.0, 0.5);  // 50 voxels of 0.4 nm
  const QString text = f.axial->overlayText(rulers[0].id);
  EXPECT_TRUE(text.endsWith(" nm")) << text.toStdString();
}

TEST(MeasurementTools, ProfileLineGivesTheValuesAlongItInEveryView) {
  Fixture f;
  f.tool("roiToolProfile")->trigger();
  Fixture::drag(f.axial, f.at(10, 32), f.at(50, 32));
  EXPECT_EQ(f.axial->roiTool(), Tool::None);
  ASSERT_TRUE(f.area.orthoViews().profileLine().has_value());
  f.panel->measureNow();
  const metrics::SliceLineProfile& p = f.panel->profile();
  ASSERT_GE(p.values.size(), 30u);
  // value = 3 * x index + 100 and the x index grows 2 per mm: along the line, 6 per mm.
  const render::SliceLine line = *f.area.orthoViews().profileLine();
  const double startX = (line.fromMm.x() - f.area.volume()->originMm().x()) / 0.5;
  const Eigen::Vector2d direction = (line.toMm - line.fromMm).normalized();
  for (std::size_t i = 0; i < p.values.size(); ++i)
    EXPECT_NEAR(p.values[i], 3 * (startX + 2 * direction.x() * p.distanceMm[i]) + 100, 1e-3)
        << "sample " << i;
  EXPECT_EQ(f.panel->profileChart().pointCount(QStringLiteral("profile")),
            static_cast<int>(p.values.size()));

  // The coronal view has the tool too; its line replaces the axial one.
  f.tool("roiToolProfile")->trigger();
  const std::int64_t y = f.coronal->slice();
  const Eigen::Vector3d from = f.area.volume()->worldPosition(8, y, 1);
  const Eigen::Vector3d to = f.area.volume()->worldPosition(56, y, 7);
  Fixture::drag(f.coronal, from, to);
  ASSERT_TRUE(f.coronal->profileLine().has_value());
  EXPECT_FALSE(f.axial->profileLine().has_value());
  f.panel->measureNow();
  const metrics::SliceLineProfile& q = f.panel->profile();
  ASSERT_GE(q.values.size(), 2u);
  const render::SliceLine coronalLine = *f.coronal->profileLine();
  EXPECT_EQ(coronalLine.axis, 1);
  const double firstX = (coronalLine.fromMm.x() - f.area.volume()->originMm().x()) / 0.5;
  EXPECT_NEAR(q.values.front(), 3 * firstX + 100, 1e-3);
}

}  // namespace
}  // namespace tomowb::gui
