// The algorithm dock's PWLS side (issue #19): PWLS's form shows beta and delta in scientific
// notation and gives back every digit typed, round trip; the projector model picks a model's
// matched pair (SF-TT) and greys out a model that refuses the geometry; the reference and weights
// box appears for PWLS only, takes the data's photon counts by default and the demo's phantom as
// the reference, and a bad weights file is refused naming the file, without a run starting.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "gui/AlgorithmPanel.h"
#include "gui/algorithms/ParameterForm.h"
#include "gui/algorithms/RunInputsBox.h"
#include "gui/algorithms/ScientificSpinBox.h"
#include "gui/core/DemoData.h"
#include "gui/core/Workspace.h"
#include "recon/io/NpyIo.h"
#include "recon/io/VolumeFiles.h"
#include "recon/phantom/PoissonNoise.h"
#include "support/TestSupport.h"

namespace tomowb::gui {
namespace {

const DemoDataset& demo(DemoKind kind) {
  static const DemoDataset et = [] {
    JobContext context;
    return makeDemo(DemoKind::ElectronTomography, 32, context);
  }();
  static const DemoDataset cone = [] {
    JobContext context;
    return makeDemo(DemoKind::SheppLogan, 16, context);
  }();
  return kind == DemoKind::ElectronTomography ? et : cone;
}

Volume asVolume(const ProjectionStack& s) {
  Volume v({s.cols(), s.rows(), s.viewCount()}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  std::copy(s.pixels().begin(), s.pixels().end(), v.voxels().begin());
  return v;
}

class PwlsPanelTest : public testing::Test {
 protected:
  void load(DemoKind kind) {
    workspace.setProjections(demo(kind).projections, QStringLiteral("demo"));
    workspace.setPhantom(demo(kind).phantom, QStringLiteral("modified Shepp-Logan"));
    panel.setDevice(-1);  // these tests name CPU kernels; a GPU machine defaults to its GPU
  }
  template <typename T>
  T* child(const char* name) {
    T* widget = panel.findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(widget, nullptr) << name;
    return widget;
  }
  QString reason() { return child<QLabel>("runBlockedReason")->text(); }

  Workspace workspace;
  AlgorithmPanel panel{workspace};
};

TEST(ScientificSpinBox, StepsTheLeadingDigitAndReadsEitherNotation) {
  using S = ScientificSpinBox;
  EXPECT_DOUBLE_EQ(S::stepped(3e-3, 1, 1e-3), 4e-3);
  EXPECT_DOUBLE_EQ(S::stepped(9e-3, 1, 1e-3), 1e-2);
  EXPECT_DOUBLE_EQ(S::stepped(1e-2, -1, 1e-3), 9e-3);
  EXPECT_DOUBLE_EQ(S::stepped(3.7e4, -1, 1e-3), 3e4);
  EXPECT_DOUBLE_EQ(S::stepped(0, 1, 1e-3), 1e-3);
  EXPECT_DOUBLE_EQ(S::stepped(1e-3, -1, 1e-3), 0.0);
  S spin;
  spin.setRange(0, 1e12);
  spin.setSignificantDigits(6);
  spin.setValue(1.234567e-5);
  EXPECT_EQ(spin.text(), "1.23457e-05");
  EXPECT_DOUBLE_EQ(spin.value(), 1.234567e-5) << "no rounding to decimals";
  int pos = 0;
  QString typed = QStringLiteral("2.5E5");
  EXPECT_EQ(spin.validate(typed, pos), QValidator::Acceptable);
  EXPECT_DOUBLE_EQ(spin.valueFromText(typed), 2.5e5);
  typed = QStringLiteral("1e-");
  EXPECT_EQ(spin.validate(typed, pos), QValidator::Intermediate);
  typed = QStringLiteral("abc");
  EXPECT_EQ(spin.validate(typed, pos), QValidator::Invalid);
  typed = QStringLiteral("-1");
  EXPECT_NE(spin.validate(typed, pos), QValidator::Acceptable) << "below the range";
}

TEST_F(PwlsPanelTest, ThePwlsFormRoundTripsItsParametersWithScientificBetaAndDelta) {
  load(DemoKind::SheppLogan);
  ASSERT_TRUE(panel.setAlgorithm("pwls"));
  ParameterForm& form = panel.form();
  EXPECT_EQ(form.objectName(), "pwlsBox");
  auto* beta = child<ScientificSpinBox>("beta");
  auto* delta = child<ScientificSpinBox>("delta");
  ASSERT_TRUE(beta && delta);
  EXPECT_FALSE(beta->toolTip().isEmpty());
  EXPECT_EQ(child<QComboBox>("pwlsStart")->itemText(1), "FDK on the same grid");
  EXPECT_TRUE(child<QCheckBox>("nonNegative")->isChecked()) << "densities";
  // Typed in scientific notation, read back exactly.
  beta->findChild<QLineEdit*>()->setText(QStringLiteral("2.5e3"));
  beta->interpretText();
  delta->findChild<QLineEdit*>()->setText(QStringLiteral("3.7e-4"));
  delta->interpretText();
  nlohmann::json p = form.parameters();
  EXPECT_DOUBLE_EQ(p["beta"].get<double>(), 2500.0);
  EXPECT_DOUBLE_EQ(p["delta"].get<double>(), 3.7e-4);
  // JSON -> form -> JSON, and what the panel hands to the run passes the descriptor.
  const nlohmann::json values = {{"iterations", 12},   {"subsets", 4},     {"beta", 1234.5},
                                 {"delta", 0.00037},   {"momentum", true}, {"lowerBound", 0.0},
                                 {"upperBound", 0.05}, {"init", "zero"},   {"stopChange", 0.002}};
  form.setParameters(values);
  p = form.parameters();
  for (const auto& [key, value] : values.items()) EXPECT_EQ(p[key], value) << key;
  const nlohmann::json run = panel.descriptor().validate(panel.algorithmParameters());
  EXPECT_EQ(run["init"], "zero");
  EXPECT_DOUBLE_EQ(run["delta"].get<double>(), 0.00037);
  EXPECT_TRUE(reason().isEmpty()) << reason().toStdString();
}

TEST_F(PwlsPanelTest, TheProjectorModelPicksItsMatchedPairAndGreysOutARefusal) {
  load(DemoKind::SheppLogan);
  ASSERT_TRUE(panel.setAlgorithm("pwls"));
  auto* model = child<QComboBox>("projectorModelCombo");
  ASSERT_NE(model, nullptr);
  EXPECT_TRUE(model->isVisibleTo(&panel));
  for (const char* m : {"sf-tt", "sf-tr", "joseph"})
    EXPECT_GE(model->findData(QString::fromLatin1(m)), 0) << m;
  ASSERT_TRUE(panel.setProjectorModel("SF-TT"));
  nlohmann::json p = panel.algorithmParameters();
  EXPECT_EQ(p["forwardVariant"], "sf.fp.cpu-tt");
  EXPECT_EQ(p["backVariant"], "sf.bp.cpu-tt");
  EXPECT_EQ(panel.projectorModel(), "sf-tt");
  EXPECT_TRUE(model->currentText().startsWith("SF-TT"));
  // A backprojector chosen by hand that is not the model's transpose: "other pair".
  auto* back = child<QComboBox>("backprojectorCombo");
  back->setCurrentIndex(back->findData(QStringLiteral("sf.bp.cpu-tr")));
  EXPECT_TRUE(panel.projectorModel().isEmpty());
  EXPECT_TRUE(model->currentData().toString().isEmpty());
  // FDK has no projector pair: no model row.
  panel.setAlgorithm("fdk");
  EXPECT_FALSE(model->isVisibleTo(&panel));
  // A tilt series: the SF models refuse it, greyed out with the reason, never chosen.
  load(DemoKind::ElectronTomography);
  ASSERT_TRUE(panel.setAlgorithm("sirt"));
  const int tt = model->findData(QStringLiteral("sf-tt"));
  ASSERT_GE(tt, 0);
  auto* items = qobject_cast<QStandardItemModel*>(model->model());
  EXPECT_FALSE(items->item(tt)->isEnabled());
  EXPECT_TRUE(items->item(tt)->toolTip().contains("cone"))
      << items->item(tt)->toolTip().toStdString();
  EXPECT_FALSE(panel.setProjectorModel("sf-tt"));
  EXPECT_NE(panel.projectorModel(), "sf-tt");
}

TEST_F(PwlsPanelTest, PwlsTakesTheDatasCountsAndThePhantomAsReferenceByDefault) {
  load(DemoKind::SheppLogan);
  RunInputsBox& box = panel.runInputs();
  EXPECT_FALSE(box.isVisibleTo(&panel)) << "FDK takes neither";
  ASSERT_TRUE(panel.setAlgorithm("pwls"));
  EXPECT_TRUE(box.isVisibleTo(&panel));
  EXPECT_EQ(box.weightsChoice(), "none") << "no counts yet";
  EXPECT_EQ(box.referenceChoice(), "phantom");
  const auto counts = std::make_shared<const ProjectionStack>(
      phantom::drawPoissonCounts(*demo(DemoKind::SheppLogan).projections, 1e4, 7));
  workspace.setCounts(counts);
  EXPECT_EQ(box.weightsChoice(), "counts");
  const catalog::JobInputs inputs = panel.jobInputs();
  EXPECT_EQ(inputs.weights, counts);
  ASSERT_NE(inputs.reference, nullptr);
  EXPECT_EQ(inputs.reference->shape(),
            catalog::gridFromJson(panel.algorithmParameters()["volume"]).shape);
  EXPECT_GT(*std::max_element(inputs.reference->voxels().begin(), inputs.reference->voxels().end()),
            0.0f)
      << "the phantom voxelised on the grid";
  // None chosen: no weights, no reference.
  ASSERT_TRUE(box.chooseWeights("none"));
  ASSERT_TRUE(box.chooseReference("none"));
  EXPECT_EQ(panel.jobInputs().weights, nullptr);
  EXPECT_EQ(panel.jobInputs().reference, nullptr);
  // New data: the old counts go with the old data.
  load(DemoKind::SheppLogan);
  EXPECT_EQ(workspace.counts(), nullptr);
  EXPECT_EQ(box.weightsChoice(), "none");
}

TEST_F(PwlsPanelTest, ABadWeightsFileIsRefusedNamingTheFileAndAGoodOneIsUsed) {
  load(DemoKind::SheppLogan);
  ASSERT_TRUE(panel.setAlgorithm("pwls"));
  RunInputsBox& box = panel.runInputs();
  const ProjectionStack& data = *demo(DemoKind::SheppLogan).projections;
  test::TempDir dir;
  // Wrong shape: one row short.
  Volume wrong({data.cols(), data.rows() - 1, data.viewCount()}, Eigen::Vector3d::Ones(),
               Eigen::Vector3d::Zero());
  wrong.voxels()[0] = 1;
  io::writeNpy(dir / "short-counts.npy", wrong);
  QString error;
  EXPECT_FALSE(
      box.loadWeights(QString::fromStdString((dir / "short-counts.npy").string()), &error));
  EXPECT_TRUE(error.contains("short-counts.npy")) << error.toStdString();
  EXPECT_TRUE(box.message().contains("short-counts.npy")) << box.message().toStdString();
  EXPECT_TRUE(child<QLabel>("runInputsMessage")->isVisibleTo(&panel));
  EXPECT_EQ(box.weightsChoice(), "none");
  // Not a file of any known format.
  std::filesystem::create_directories(dir.path());
  { std::ofstream(dir / "counts.txt") << "not counts"; }
  EXPECT_FALSE(box.loadWeights(QString::fromStdString((dir / "counts.txt").string()), &error));
  EXPECT_TRUE(error.contains("counts.txt")) << error.toStdString();
  // A negative count, with where it is.
  ProjectionStack counts = phantom::drawPoissonCounts(data, 1e4, 11);
  Volume negative = asVolume(counts);
  negative.at(2, 1, 3) = -5;
  io::writeNpy(dir / "negative.npy", negative);
  EXPECT_FALSE(box.loadWeights(QString::fromStdString((dir / "negative.npy").string()), &error));
  EXPECT_TRUE(error.contains("negative.npy")) << error.toStdString();
  // A good file: chosen, and what the run gets.
  io::writeNpy(dir / "counts.npy", asVolume(counts));
  ASSERT_TRUE(box.loadWeights(QString::fromStdString((dir / "counts.npy").string()), &error))
      << error.toStdString();
  EXPECT_EQ(box.weightsChoice(), "file");
  EXPECT_EQ(box.weightsText(), "counts.npy");
  EXPECT_TRUE(box.message().isEmpty());
  const catalog::JobInputs inputs = panel.jobInputs();
  ASSERT_NE(inputs.weights, nullptr);
  EXPECT_EQ(inputs.weights->data()[5], counts.data()[5]);
  // A reference on another grid blocks Run, saying why.
  Volume small({4, 4, 4}, Eigen::Vector3d::Ones(), Eigen::Vector3d::Zero());
  io::writeVolume(dir / "small.mhd", small);
  ASSERT_TRUE(box.loadReference(QString::fromStdString((dir / "small.mhd").string()), &error))
      << error.toStdString();
  EXPECT_TRUE(reason().contains("reference volume is 4")) << reason().toStdString();
  EXPECT_FALSE(child<QPushButton>("algorithmRunButton")->isEnabled());
  EXPECT_FALSE(box.loadReference(QString::fromStdString((dir / "missing.mhd").string()), &error));
  EXPECT_TRUE(error.contains("missing.mhd")) << error.toStdString();
}

}  // namespace
}  // namespace tomowb::gui
