// The algorithm panel's iterative side: a tilt series brings SIRT with a matched projector pair
// on the tomogram grid; every widget reaches IterativeParams; bad values block Run with the
// reason shown in the panel (never a crash); the projectors come from the registry with the
// matched one marked; the thickness sets the tomogram; warm starts offer finished runs on the
// same grid only.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <cstdlib>

#include "gui/AlgorithmPanel.h"
#include "gui/core/DemoData.h"
#include "gui/core/RunController.h"
#include "gui/core/Workspace.h"
#include "recon/device/GpuDevices.h"
#include "recon/variant/VariantRegistry.h"

namespace tomowb::gui {
namespace {

const DemoDataset& demo(DemoKind kind) {
  static const DemoDataset et = [] {
    JobContext context;
    return makeDemo(DemoKind::ElectronTomography, 32, context);  // 64 x 16 detector
  }();
  static const DemoDataset cone = [] {
    JobContext context;
    return makeDemo(DemoKind::SheppLogan, 16, context);
  }();
  return kind == DemoKind::ElectronTomography ? et : cone;
}

class AlgorithmPanelTest : public testing::Test {
 protected:
  // On the CPU, as the user who picked it (these tests name CPU kernels); `cpu` false keeps the
  // default device (the fastest GPU where one is present).
  void load(DemoKind kind, bool cpu = true) {
    workspace.setProjections(demo(kind).projections, QStringLiteral("demo"));
    if (cpu) panel.setDevice(-1);
  }
  template <typename T>
  T* child(const char* name) {
    T* widget = panel.findChild<T*>(QString::fromLatin1(name));
    EXPECT_NE(widget, nullptr) << name;
    return widget;
  }
  QString reason() { return child<QLabel>("runBlockedReason")->text(); }
  bool runEnabled() { return child<QPushButton>("algorithmRunButton")->isEnabled(); }

  Workspace workspace;
  AlgorithmPanel panel{workspace};
};

TEST_F(AlgorithmPanelTest, ATiltSeriesBringsSirtWithAMatchedPairOnTheTomogram) {
  load(DemoKind::SheppLogan);
  EXPECT_EQ(panel.algorithm(), "fdk");
  EXPECT_FALSE(panel.dataIsTiltSeries());
  load(DemoKind::ElectronTomography);
  EXPECT_TRUE(panel.dataIsTiltSeries());
  EXPECT_EQ(panel.algorithm(), "sirt");
  const iterative::IterativeParams p = panel.iterativeParams();
  EXPECT_EQ(p.method, iterative::IterativeMethod::Sirt);
  EXPECT_EQ(p.iterations, 50);
  EXPECT_DOUBLE_EQ(p.relaxation, 1.0);
  EXPECT_EQ(p.subsets, 5);
  EXPECT_EQ(p.lowerBound, std::optional<double>(0.0));
  EXPECT_FALSE(p.upperBound);
  EXPECT_DOUBLE_EQ(p.stopRelativeChange, 0.0);
  EXPECT_FALSE(p.initialVolume);
  // The matched pair of the CPU.
  const KernelVariant* bp = VariantRegistry::builtins().find(p.backVariant);
  ASSERT_NE(bp, nullptr);
  EXPECT_EQ(bp->adjointOf, p.forwardVariant);
  // The tomogram a quarter of the detector width thick, in detector pixels.
  EXPECT_EQ(p.volume.shape, (VolumeShape{64, 16, 16}));
  EXPECT_NEAR(p.volume.voxelSizeMm.x(), kEtDemoPixelMm, 1e-15);
  EXPECT_EQ(panel.thicknessVoxels(), 16);
  EXPECT_TRUE(panel.gridText().contains("64 \u00d7 16 \u00d7 16"))
      << panel.gridText().toStdString();
  EXPECT_TRUE(panel.gridText().contains("nm"));
  EXPECT_TRUE(runEnabled()) << reason().toStdString();
  EXPECT_TRUE(child<QWidget>("iterationBox")->isVisibleTo(&panel));
}

TEST_F(AlgorithmPanelTest, BuildsIterativeParamsFromEveryWidget) {
  load(DemoKind::ElectronTomography);
  panel.setAlgorithm("os-sirt");
  child<QSpinBox>("iterations")->setValue(23);
  child<QDoubleSpinBox>("relaxation")->setValue(0.75);
  child<QSpinBox>("subsets")->setValue(7);
  child<QCheckBox>("nonNegative")->setChecked(false);
  child<QCheckBox>("upperBoundOn")->setChecked(true);
  child<QDoubleSpinBox>("upperBound")->setValue(11.5);
  child<QCheckBox>("stopOn")->setChecked(true);
  child<QDoubleSpinBox>("stopPercent")->setValue(0.5);
  auto* back = child<QComboBox>("backprojectorCombo");
  back->setCurrentIndex(back->findData(QStringLiteral("et.bp.cpu-voxel")));
  panel.setThicknessVoxels(24);
  iterative::IterativeParams p = panel.iterativeParams();
  EXPECT_EQ(p.method, iterative::IterativeMethod::OsSirt);
  EXPECT_EQ(p.iterations, 23);
  EXPECT_DOUBLE_EQ(p.relaxation, 0.75);
  EXPECT_EQ(p.subsets, 7);
  EXPECT_FALSE(p.lowerBound);
  EXPECT_EQ(p.upperBound, std::optional<double>(11.5));
  EXPECT_DOUBLE_EQ(p.stopRelativeChange, 0.005);
  EXPECT_EQ(p.forwardVariant, "et.fp.cpu");
  EXPECT_EQ(p.backVariant, "et.bp.cpu-voxel");
  EXPECT_EQ(p.volume.shape, (VolumeShape{64, 24, 16}));
  EXPECT_TRUE(runEnabled()) << reason().toStdString();
  // And back: setIterativeParams shows them.
  iterative::IterativeParams q = p;
  q.method = iterative::IterativeMethod::Sart;
  q.iterations = 9;
  q.relaxation = 0.3;
  q.lowerBound = 0.0;
  q.upperBound.reset();
  q.stopRelativeChange = 0;
  q.backVariant = "et.bp.cpu-matched";
  panel.setIterativeParams(q);
  EXPECT_EQ(panel.algorithm(), "sart");
  p = panel.iterativeParams();
  EXPECT_EQ(p.method, iterative::IterativeMethod::Sart);
  EXPECT_EQ(p.iterations, 9);
  EXPECT_DOUBLE_EQ(p.relaxation, 0.3);
  EXPECT_EQ(p.lowerBound, std::optional<double>(0.0));
  EXPECT_FALSE(p.upperBound);
  EXPECT_DOUBLE_EQ(p.stopRelativeChange, 0.0);
  EXPECT_EQ(p.backVariant, "et.bp.cpu-matched");
}

// CGLS is unconstrained and has no relaxation: its form (made from its descriptor) has no such
// rows, a ticked bound of SIRT does not reach it, and it round-trips the method.
TEST_F(AlgorithmPanelTest, CglsHasNoRelaxationOrBoundsAndRunsWithoutThem) {
  load(DemoKind::ElectronTomography);
  panel.show();
  child<QCheckBox>("nonNegative")->setChecked(true);
  child<QCheckBox>("upperBoundOn")->setChecked(true);
  panel.setAlgorithm("cgls");
  for (const char* absent : {"relaxation", "nonNegative", "upperBoundOn", "subsets"})
    EXPECT_EQ(panel.findChild<QWidget*>(QString::fromLatin1(absent)), nullptr) << absent;
  EXPECT_TRUE(child<QSpinBox>("iterations")->isVisible());
  const iterative::IterativeParams p = panel.iterativeParams();
  EXPECT_EQ(p.method, iterative::IterativeMethod::Cgls);
  EXPECT_FALSE(p.lowerBound);
  EXPECT_FALSE(p.upperBound);
  EXPECT_TRUE(runEnabled()) << reason().toStdString();
  if (const char* shots = std::getenv("TOMOWB_SCREENSHOT_DIR"))
    panel.grab().save(QString::fromUtf8(shots) + "/algorithm-panel-cgls.png");
  panel.setAlgorithm("sirt");
  EXPECT_TRUE(child<QDoubleSpinBox>("relaxation")->isVisible());
  EXPECT_TRUE(child<QCheckBox>("nonNegative")->isVisible());
}

TEST_F(AlgorithmPanelTest, SartDefaultsToHalfTheRelaxationUnlessTheUserChoseOne) {
  load(DemoKind::ElectronTomography);
  panel.setAlgorithm("sart");
  EXPECT_DOUBLE_EQ(panel.iterativeParams().relaxation, 0.5);
  panel.setAlgorithm("sirt");
  EXPECT_DOUBLE_EQ(panel.iterativeParams().relaxation, 1.0);
  child<QDoubleSpinBox>("relaxation")->setValue(1.4);
  panel.setAlgorithm("sart");
  EXPECT_DOUBLE_EQ(panel.iterativeParams().relaxation, 1.4) << "the user's value stays";
}

TEST_F(AlgorithmPanelTest, RejectsBadParametersWithTheReasonInThePanel) {
  load(DemoKind::ElectronTomography);
  panel.show();
  ASSERT_TRUE(runEnabled()) << reason().toStdString();
  const auto expectBlocked = [&](const char* what, const QString& fragment) {
    QString why;
    EXPECT_FALSE(panel.validate(&why)) << what;
    EXPECT_TRUE(why.contains(fragment, Qt::CaseInsensitive)) << what << ": " << why.toStdString();
    EXPECT_FALSE(runEnabled()) << what;
    EXPECT_EQ(reason(), why) << what;
    EXPECT_TRUE(child<QLabel>("runBlockedReason")->isVisible()) << what;
  };
  auto* iterations = child<QSpinBox>("iterations");
  iterations->setValue(0);
  expectBlocked("iterations", "'iterations': must be an integer from 1");
  iterations->setValue(50);
  auto* relaxation = child<QDoubleSpinBox>("relaxation");
  relaxation->setValue(0.0);
  expectBlocked("relaxation 0", "'relaxation': must be a number in (0, 2)");
  relaxation->setValue(2.0);
  expectBlocked("relaxation 2", "'relaxation': must be a number in (0, 2)");
  relaxation->setValue(1.0);
  panel.setAlgorithm("os-sirt");
  child<QSpinBox>("subsets")->setValue(62);
  expectBlocked("subsets", "61 views");
  child<QSpinBox>("subsets")->setValue(5);
  panel.setAlgorithm("sirt");
  child<QCheckBox>("upperBoundOn")->setChecked(true);
  child<QDoubleSpinBox>("upperBound")->setValue(-1.0);
  expectBlocked("bounds", "upper bound");
  child<QCheckBox>("upperBoundOn")->setChecked(false);
  child<QCheckBox>("stopOn")->setChecked(true);
  child<QDoubleSpinBox>("stopPercent")->setValue(0.0);
  expectBlocked("stop", "Stop on residual change must be above 0");
  child<QCheckBox>("stopOn")->setChecked(false);
  EXPECT_TRUE(runEnabled()) << reason().toStdString();
  // WBP needs a parallel beam.
  load(DemoKind::SheppLogan);
  panel.setAlgorithm("wbp");
  expectBlocked("wbp on a cone beam", "cone");
  panel.setAlgorithm("sirt");
  EXPECT_TRUE(runEnabled()) << "SIRT runs on cone beams too: " << reason().toStdString();
}

TEST_F(AlgorithmPanelTest, OffersTheRegistrysProjectorsAndMarksTheMatchedOne) {
  load(DemoKind::ElectronTomography);
  QStringList forward, back;
  for (const KernelVariant* v : VariantRegistry::builtins().withRole(VariantRole::ForwardProjector))
    if (!v->needsGpu) forward << QString::fromStdString(v->name);
  for (const KernelVariant* v : VariantRegistry::builtins().withRole(VariantRole::Backprojector))
    if (!v->needsGpu) back << QString::fromStdString(v->name);
  EXPECT_EQ(panel.forwardProjectorNames(), forward);
  EXPECT_EQ(panel.backprojectorNames(), back);
  ASSERT_TRUE(back.contains("et.bp.cpu-matched"));
  EXPECT_TRUE(panel.backprojectorLabel("et.bp.cpu-matched").contains("matched"));
  EXPECT_EQ(panel.backprojectorLabel("et.bp.cpu-voxel"), "et.bp.cpu-voxel");
  auto* combo = child<QComboBox>("backprojectorCombo");
  EXPECT_TRUE(
      combo->itemText(combo->findData(QStringLiteral("et.bp.cpu-matched"))).contains("[matched]"));
  auto* pair = child<QLabel>("projectorPairInfo");
  EXPECT_TRUE(pair->text().contains("Matched pair")) << pair->text().toStdString();
  combo->setCurrentIndex(combo->findData(QStringLiteral("et.bp.cpu-voxel")));
  EXPECT_TRUE(pair->text().contains("Unmatched pair")) << pair->text().toStdString();
}

TEST_F(AlgorithmPanelTest, AProjectorThatRefusesTheGeometryIsListedGreyedOutWithItsReason) {
  // The SF pairs take cone beams only: on a tilt series they are listed but not choosable.
  load(DemoKind::ElectronTomography);
  auto* forward = child<QComboBox>("forwardProjectorCombo");
  const int sf = forward->findData(QStringLiteral("sf.fp.cpu-tr"));
  ASSERT_GE(sf, 0);
  const auto* model = qobject_cast<const QStandardItemModel*>(forward->model());
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(model->item(sf)->isEnabled());
  EXPECT_TRUE(model->item(sf)->toolTip().contains("cone beams"))
      << model->item(sf)->toolTip().toStdString();
  EXPECT_TRUE(model->item(forward->findData(QStringLiteral("et.fp.cpu")))->isEnabled());
  EXPECT_NE(forward->currentData().toString(), QStringLiteral("sf.fp.cpu-tr"));
  // On a cone beam the same item can be chosen.
  load(DemoKind::SheppLogan);
  panel.setAlgorithm(QStringLiteral("sirt"));
  forward = child<QComboBox>("forwardProjectorCombo");
  model = qobject_cast<const QStandardItemModel*>(forward->model());
  EXPECT_TRUE(model->item(forward->findData(QStringLiteral("sf.fp.cpu-tr")))->isEnabled());
}

TEST_F(AlgorithmPanelTest, WarmStartOffersFinishedRunsOnTheSameGridOnly) {
  load(DemoKind::ElectronTomography);
  RunController runs;
  panel.setRunController(&runs);
  EXPECT_TRUE(panel.warmStartCandidates().empty());
  const fdk::VolumeGrid grid = panel.iterativeParams().volume;
  const auto runMaking = [](fdk::VolumeGrid g, float value) {
    RunSpec spec;
    spec.title = QStringLiteral("SIRT");
    spec.algorithm = QStringLiteral("sirt");
    spec.execute = [g, value](JobContext&, nlohmann::json&) {
      auto v = std::make_shared<Volume>(g.shape, g.voxelSizeMm, g.originMm);
      std::fill(v->voxels().begin(), v->voxels().end(), value);
      return v;
    };
    return spec;
  };
  const int same = runs.enqueue(runMaking(grid, 0.25f));
  fdk::VolumeGrid thicker = grid;
  thicker.shape.ny = 32;
  const int other = runs.enqueue(runMaking(thicker, 1.0f));
  ASSERT_TRUE(runs.waitForIdle(10000));
  EXPECT_EQ(panel.warmStartCandidates(), std::vector<int>{same});
  EXPECT_FALSE(panel.setWarmStartRun(other));
  ASSERT_TRUE(panel.setWarmStartRun(same));
  const iterative::IterativeParams p = panel.iterativeParams();
  ASSERT_TRUE(p.initialVolume);
  EXPECT_FLOAT_EQ(p.initialVolume->voxels()[0], 0.25f);
  EXPECT_EQ(panel.warmStartRunId(), same);
  EXPECT_TRUE(runEnabled()) << reason().toStdString();
  // Another thickness: the run is no longer offered and the warm start falls back to none.
  panel.setThicknessVoxels(32);
  EXPECT_EQ(panel.warmStartCandidates(), std::vector<int>{other});
  EXPECT_EQ(panel.warmStartRunId(), -1);
  // A forgotten run leaves the list.
  ASSERT_TRUE(panel.setWarmStartRun(other));
  runs.forget(other);
  EXPECT_EQ(panel.warmStartRunId(), -1);
  EXPECT_TRUE(panel.warmStartCandidates().empty());
}

TEST_F(AlgorithmPanelTest, SwitchingToFdkOnATiltSeriesReconstructsTheFieldOfView) {
  load(DemoKind::ElectronTomography);
  EXPECT_EQ(panel.iterativeParams().volume.shape.ny, 16);
  panel.setAlgorithm("fdk");
  EXPECT_EQ(panel.params().volume.shape.ny, 64) << "the FOV grid is as deep as wide";
  EXPECT_FALSE(child<QWidget>("thicknessVoxels")->isVisibleTo(&panel));
  panel.setAlgorithm("wbp");
  EXPECT_EQ(panel.params().volume.shape, (VolumeShape{64, 16, 16}));
  EXPECT_TRUE(child<QWidget>("thicknessVoxels")->isVisibleTo(&panel));
  EXPECT_EQ(panel.findChild<QWidget*>(QStringLiteral("iterationBox")), nullptr);
  EXPECT_TRUE(child<QWidget>("filterBox")->isVisibleTo(&panel));
}

TEST(AlgorithmPanelText, LengthsInTheUnitThatSuitsThem) {
  EXPECT_EQ(lengthText(4e-6), QString("4 nm"));
  EXPECT_EQ(lengthText(0.256e-3 * 4), QString("1.024 \u00b5m"));
  EXPECT_EQ(lengthText(204.8), QString("204.8 mm"));
}

// The device box (issue #21, point 9): the fastest GPU by default where the algorithm has a GPU
// variant and a GPU is present, else the CPU; the automation's setDevice and setVariant choose
// as the user would, and refuse what is not offered with the reason.
TEST_F(AlgorithmPanelTest, DefaultsToTheFastestGpuAndChoosesDevicesAndVariantsByName) {
  load(DemoKind::SheppLogan, false);
  ASSERT_EQ(panel.algorithm(), "fdk");
  const std::vector<cuda::GpuDevice> gpus = cuda::listGpuDevices();
  EXPECT_EQ(panel.gpuIndex(), cuda::fastestGpu(gpus));
  QString why;
  EXPECT_FALSE(panel.setDevice(97, &why));
  EXPECT_TRUE(why.contains(QStringLiteral("no GPU 97"))) << why.toStdString();
  EXPECT_TRUE(panel.setDevice(-1, &why)) << why.toStdString();
  EXPECT_EQ(panel.gpuIndex(), -1);
  // The CPU stays the user's choice when the algorithm changes and comes back.
  ASSERT_TRUE(panel.setAlgorithm(QStringLiteral("wbp")));
  ASSERT_TRUE(panel.setAlgorithm(QStringLiteral("fdk")));
  EXPECT_EQ(panel.gpuIndex(), -1);
  EXPECT_TRUE(panel.setVariant(QStringLiteral("fdk.bp.cpu-f64"), &why)) << why.toStdString();
  EXPECT_EQ(panel.params().variant, "fdk.bp.cpu-f64");
  EXPECT_FALSE(panel.setVariant(QStringLiteral("no.such.kernel"), &why));
  EXPECT_TRUE(why.contains(QStringLiteral("no kernel variant"))) << why.toStdString();
  EXPECT_FALSE(panel.setVariant(QStringLiteral("et.fp.cpu"), &why));
  EXPECT_TRUE(why.contains(QStringLiteral("not a kernel of fdk"))) << why.toStdString();
  const bool gpuKernel = panel.setVariant(QStringLiteral("fdk.bp.tex"), &why);
  if (gpus.empty() || !VariantRegistry::builtins().find("fdk.bp.tex")) {
    EXPECT_FALSE(gpuKernel);
    EXPECT_EQ(panel.gpuIndex(), -1);
  } else {
    EXPECT_TRUE(gpuKernel) << why.toStdString();
    EXPECT_EQ(panel.gpuIndex(), cuda::fastestGpu(gpus));
    EXPECT_EQ(panel.params().variant, "fdk.bp.tex");
  }
}

}  // namespace
}  // namespace tomowb::gui
