// CnrPanel on the CNR phantom: the ROIs drawn on a slice give the figures of CnrMeasurement,
// previews make a CNR curve, and the ROIs survive a JSON round trip (they are saved with a run).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <QTableWidget>
#include <QTest>
#include <cmath>
#include <random>

#include "gui/CnrPanel.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Voxelise.h"
#include "render/ChartView.h"

namespace tomowb::gui {
namespace {

std::shared_ptr<Volume> phantomVolume(const phantom::CnrPhantom& cnr, double sigma, int seed) {
  const VolumeShape shape{256, 256, 8};
  const Eigen::Vector3d voxel(0.8, 0.8, 0.8);
  const Eigen::Vector3d origin = -0.5 * voxel.cwiseProduct(Eigen::Vector3d(255, 255, 7));
  auto volume =
      std::make_shared<Volume>(phantom::voxelisePhantom(cnr.phantom(), shape, voxel, origin, 1));
  std::mt19937 random(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  if (sigma > 0)
    for (float& v : volume->voxels()) v = static_cast<float>(v + noise(random));
  return volume;
}

// A circle in the mid (axial) slice nearest z = 0.
render::SliceRoi circle(int id, const QString& label, render::SliceRoi::Role role,
                        Eigen::Vector2d centre, double radius) {
  render::SliceRoi roi;
  roi.id = id;
  roi.label = label;
  roi.role = role;
  roi.shape = render::SliceRoi::Circle;
  roi.axis = 2;
  roi.sliceMm = 0.4;
  roi.centreMm = centre;
  roi.halfSizeMm = Eigen::Vector2d(radius, radius);
  return roi;
}

// Half-way (36 degrees) to the next insert of the same ring: > 40 mm from any insert.
Eigen::Vector2d waterBetweenInserts(const Eigen::Vector2d& insertCentre) {
  return Eigen::Rotation2Dd(0.2 * M_PI) * insertCentre;
}

TEST(CnrPanel, MeasuresTheRoisOnTheVolumeAndPlotsPreviews) {
  const phantom::CnrPhantom cnr;
  // The 16 mm insert of the 2 % ring, and water between the rings for the background.
  const std::size_t diameters = cnr.params().insertDiametersMm.size();
  const phantom::CnrInsert& insert = cnr.inserts()[2 * diameters + diameters - 1];
  const Eigen::Vector2d centre = insert.centreMm.head<2>();
  const Eigen::Vector2d water = waterBetweenInserts(centre);
  CnrPanel panel;
  panel.resize(520, 560);
  panel.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
  panel.setRois({circle(1, "insert 16 mm", render::SliceRoi::Signal, centre, 6.0),
                 circle(2, "water", render::SliceRoi::Background, water, 5.0)});

  // 2 % of water: the CNR of preview p is about 1.03 p, its estimate's own spread about 0.12.
  const double sigma = 0.0004;
  for (int preview = 1; preview <= 4; ++preview) {
    panel.setVolume(phantomVolume(cnr, sigma / preview, preview),
                    QStringLiteral("preview %1").arg(preview), -1);
    panel.measureNow();
  }
  ASSERT_EQ(panel.historySize(), 4);
  const std::vector<CnrRow>& rows = panel.rows();
  ASSERT_EQ(rows.size(), 2u);  // the signal row, then the background's own row
  EXPECT_TRUE(rows[0].measured()) << rows[0].problem.toStdString();
  EXPECT_NEAR(rows[0].figures.signal.mean, insert.valuePerMm, 3 * sigma / 4 / 10);
  EXPECT_NEAR(rows[0].figures.background.mean, cnr.waterValuePerMm(), 3 * sigma / 4 / 10);
  EXPECT_NEAR(rows[0].figures.noise, sigma / 4, 0.15 * sigma / 4);
  EXPECT_EQ(panel.table().rowCount(), 2);
  EXPECT_EQ(panel.table().item(0, 5)->text(), formatCnr(rows[0].figures.cnr));
  // Less noise each preview: the CNR curve rises.
  const std::vector<double> curve = panel.chart().yValues("insert 16 mm");
  ASSERT_EQ(curve.size(), 4u);
  EXPECT_EQ(panel.chart().xValues("insert 16 mm"), (std::vector<double>{1, 2, 3, 4}));
  for (std::size_t i = 1; i < curve.size(); ++i) EXPECT_GT(curve[i], curve[i - 1]);
  QTest::qWait(100);
  ASSERT_TRUE(panel.exportPng("/tmp/CnrPanelTest.png"));

  const QString csv = panel.csvText();
  EXPECT_TRUE(
      csv.startsWith("x,volume,roi,voxels,mean,background_mean,background_voxels,noise,cnr\n"));
  EXPECT_EQ(csv.count('\n'), 5);
  EXPECT_TRUE(csv.contains("\n4,preview 4,insert 16 mm,"));

  // The same volume again adds no point; other ROIs start a new history.
  panel.setRois({circle(3, "insert 16 mm", render::SliceRoi::Signal, centre, 5.0),
                 circle(2, "water", render::SliceRoi::Background, water, 5.0)});
  EXPECT_EQ(panel.historySize(), 0);
}

TEST(CnrPanel, NoiseFreeDataShowAnInfiniteCnrAndNoBackgroundIsExplained) {
  const phantom::CnrPhantom cnr;
  const phantom::CnrInsert& insert = cnr.inserts().back();
  const Eigen::Vector2d centre = insert.centreMm.head<2>();
  CnrPanel panel;
  panel.setVolume(phantomVolume(cnr, 0.0, 1), "truth");
  panel.setRois({circle(1, "insert", render::SliceRoi::Signal, centre, 5.0)});
  panel.measureNow();
  ASSERT_EQ(panel.rows().size(), 1u);
  EXPECT_EQ(panel.rows()[0].problem, "no background ROI");
  EXPECT_EQ(panel.table().item(0, 5)->text(), "no background ROI");
  const Eigen::Vector2d water = waterBetweenInserts(centre);
  panel.setRois({circle(1, "insert", render::SliceRoi::Signal, centre, 5.0),
                 circle(2, "water", render::SliceRoi::Background, water, 5.0)});
  panel.measureNow();
  EXPECT_NEAR(panel.rows()[0].figures.signal.mean, insert.valuePerMm, 1e-7);
  EXPECT_EQ(panel.table().item(0, 5)->text(), QStringLiteral("\u221e"));
}

TEST(CnrPanel, RoisSurviveAJsonRoundTrip) {
  CnrPanel panel;
  render::SliceRoi box = circle(7, "box", render::SliceRoi::Background, {1.5, -2.25}, 3.0);
  box.shape = render::SliceRoi::Rectangle;
  box.halfSizeMm = {3.0, 4.5};
  box.axis = 1;
  const std::vector<render::SliceRoi> rois = {
      circle(1, "ROI 1", render::SliceRoi::Signal, {10, 20}, 2.5), box};
  panel.setRois(rois);
  const nlohmann::json json = panel.roisJson();
  EXPECT_EQ(json.at(1).at("role").get<std::string>(), "background");
  EXPECT_EQ(json.at(1).at("shape").get<std::string>(), "rectangle");
  EXPECT_EQ(CnrPanel::roisFromJson(json), rois);
}

}  // namespace
}  // namespace tomowb::gui
