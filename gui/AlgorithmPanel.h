// AlgorithmPanel: the algorithm dock. Offers every algorithm of the catalogue
// (catalog::AlgorithmCatalog::builtins(), in its order) with the form of the chosen one
// (gui/algorithms/: generated from its ParameterSpecs), and what all algorithms share:
//  - the volume grid (with "Auto from geometry": tomowb-cli's field-of-view grid, or for a tilt
//    series and an algorithm of the tomogram grid policy the tomogram iterative::tomogramGrid of
//    the thickness given, a quarter of the detector width by default), shown with its extent;
//  - the device (CPU threads, or a GPU that listGpuDevices() found, with an optional memory limit
//    for the FDK backprojectors; a GPU is disabled while no GPU variant of the algorithm's
//    projector roles is registered) and a variant per projector role (ProjectorChoice.h);
//  - a warm start from a finished run on the same grid, for algorithms that accept one;
//  - presets (AlgorithmPresets.h) for the one-pass algorithms, checked by the descriptor.
// Loading a tilt series chooses the first iterative ET algorithm (SIRT) with a matched pair;
// other data the first CT one (FDK). The memory estimate is updated live, and Run stays disabled
// with the reason shown until the descriptor's validate accepts the parameters.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json.hpp>
#include <vector>

#include "gui/algorithms/AlgorithmPresets.h"
#include "gui/algorithms/RunMemory.h"
#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/FdkMemoryEstimate.h"
#include "recon/iterative/IterativeReconstruction.h"

class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QVBoxLayout;

namespace tomowb::gui {

class ParameterForm;
class ProjectorChoice;
class RunInputsBox;
class RunController;
class Workspace;

// "1.02 um", "256 nm", "204.8 mm": a length in the unit that suits it.
QString lengthText(double mm);

// The grid tomowb-cli uses when given none: voxels of the detector pitch at the isocentre,
// covering the field of view in-plane and the detector's height; for IlluminatedVolume (PWLS) on
// a helix every slice a ray reaches (fdk::illuminatedGrid), on the field-of-view grid's lattice.
// Throws ParameterError when the geometry has no views.
fdk::VolumeGrid autoVolumeGrid(const Geometry& geometry,
                               catalog::GridPolicy policy = catalog::GridPolicy::FieldOfView);

class AlgorithmPanel : public QWidget {
  Q_OBJECT

 public:
  // `algorithms`: the catalogue offered (a test's own; it must outlive the panel).
  explicit AlgorithmPanel(
      Workspace& workspace, QWidget* parent = nullptr,
      const catalog::AlgorithmCatalog& algorithms = catalog::AlgorithmCatalog::builtins());
  // Wide enough for its labels and spin boxes when the dock is first laid out.
  QSize sizeHint() const override;

  // The run controller whose finished runs are offered as warm starts (nullptr: none).
  void setRunController(const RunController* runs);
  // Why a run cannot start, and Run: at the panel's foot, unless the window pins them under the
  // dock's scroll area (MainWindow: Run shows on any screen, however far the form scrolls).
  QWidget& runBar() { return *runBar_; }

  // The chosen algorithm's descriptor id ("fdk", "sirt") and descriptor; choosing one by id
  // (false when the catalogue has none).
  QString algorithm() const;
  const catalog::AlgorithmDescriptor& descriptor() const;
  bool setAlgorithm(const QString& id);
  // The form of the chosen algorithm, and its reference and weights (RunInputsBox.h).
  ParameterForm& form() const { return *form_; }
  RunInputsBox& runInputs() const { return *inputs_; }

  // The chosen algorithm's parameters as its descriptor takes them (its form's fields, the grid,
  // the projector fields and "gpu"), and the inputs beside them (the warm start, the reference and
  // the statistical weights): what MainWindow hands to makeCatalogRun. Setting them shows the
  // fields given (not the algorithm).
  nlohmann::json algorithmParameters() const;
  void setAlgorithmParameters(const nlohmann::json& parameters);
  catalog::JobInputs jobInputs() const;

  // Typed views for the two built-in families (tests, the compare view's golden runs): FDK/WBP
  // parameters, and the iterative ones (the method is the algorithm; setting them chooses it).
  fdk::FdkParams params() const;
  void setParams(const fdk::FdkParams& params);
  iterative::IterativeParams iterativeParams() const;
  void setIterativeParams(const iterative::IterativeParams& params);

  // The run whose result is the warm start (-1: none), and choosing one (false if it is not
  // offered: not finished, or another grid).
  int warmStartRunId() const;
  bool setWarmStartRun(int runId);
  // Runs the warm-start list offers now (finished, same grid).
  std::vector<int> warmStartCandidates() const;

  // The tomogram thickness (voxels along y) for tilt series, and setting it (the grid's ny).
  int thicknessVoxels() const;
  void setThicknessVoxels(int voxels);
  // The grid as shown under the size: "256 x 64 x 64 voxels of 4 nm = ...".
  QString gridText() const;
  // True when the loaded projections are a single-axis tilt series (TiltAngles.h).
  bool dataIsTiltSeries() const { return tiltSeries_; }

  // The projector names offered for the device chosen, in registry order.
  QStringList forwardProjectorNames() const;
  QStringList backprojectorNames() const;
  // The projector model whose matched pair is chosen ("sf-tt"; empty: another pair), and choosing
  // it on the device chosen (false when it has no usable matched pair there).
  QString projectorModel() const;
  bool setProjectorModel(const QString& model);
  // The item text of a backprojector in its combo ("et.bp.cpu-matched  [matched]").
  QString backprojectorLabel(const QString& name) const;

  // False with the reason (one sentence) when a run cannot start: no projections, an empty
  // grid, a geometry the algorithm refuses, a parameter its descriptor refuses, a warm start
  // on another grid, not enough memory.
  bool validate(QString* why) const;
  // CPU threads the run should use (0: all, OpenMP's default).
  int threadCount() const;
  // The GPU chosen (its listGpuDevices() index), or -1 for the CPU. Until the user picks one, the
  // fastest GPU (cuda::fastestGpu) is chosen wherever the algorithm has a GPU variant.
  int gpuIndex() const;
  // Chooses the CPU (-1) or a GPU by its index, as the user would (false with the reason in
  // `why` when it is not offered: no such GPU, or no GPU variant of the algorithm).
  bool setDevice(int gpuIndex, QString* why = nullptr);
  // Chooses a kernel variant by name for the role it serves (the FDK backprojector, a forward
  // projector or a backprojector), switching to the fastest GPU first for a GPU variant when
  // the CPU is chosen. False with the reason in `why` when no role of the algorithm takes it or
  // the data's geometry refuses it.
  bool setVariant(const QString& name, QString* why = nullptr);
  // The GPU memory limit in bytes (the FDK backprojectors'); 0: the device's free memory.
  std::uint64_t gpuMemoryLimitBytes() const;
  // nx = ny = nz = edge, with the voxel size scaled to keep the in-plane extent.
  void setVolumeEdge(int edge);

  // Built-in presets first (":/tomowb/presets/algorithms"), then the user's.
  QStringList presetNames() const;
  bool applyPreset(const QString& name);  // false if unknown or refused (the reason is shown)
  void saveUserPreset(const QString& name);
  bool deleteUserPreset(const QString& name);  // false for built-in or unknown names

 public slots:
  void autoVolumeFromGeometry();

 signals:
  void runRequested();
  void paramsChanged();

 private:
  void buildUi();
  void buildGridBox(QVBoxLayout* layout);
  void buildDeviceBox(QVBoxLayout* layout);
  void connectWidgets();
  void showForm(const catalog::AlgorithmDescriptor& descriptor);
  bool tomogramGrid() const;
  QString problem() const;
  void fillDevices();
  void fillProjectors();
  void fillWarmStarts();
  void onAlgorithmChanged();
  void onThicknessChanged(int voxels);
  void updateVisibility();
  RunMemory runMemory() const;
  fdk::VolumeGrid grid() const;
  void setGrid(const fdk::VolumeGrid& grid);
  void fillPresets();
  void refresh();
  void setVoxelSize(double mm);
  void onProjectionsChanged();
  void onPresetChosen(int index);

  Workspace& workspace_;
  const catalog::AlgorithmCatalog& catalog_;
  const RunController* runs_ = nullptr;
  bool updating_ = false;
  bool userChoseDevice_ = false;  // the device box keeps the user's choice over the default
  bool tiltSeries_ = false;
  Eigen::Vector3d gridCentreMm_ = Eigen::Vector3d::Zero();  // where the grid is centred
  PresetStore presetStore_;
  std::vector<PresetStore::Entry> presetEntries_;

  QComboBox* algorithm_ = nullptr;
  QFormLayout* topForm_ = nullptr;
  QVBoxLayout* layout_ = nullptr;
  ParameterForm* form_ = nullptr;
  RunInputsBox* inputs_ = nullptr;
  QComboBox* warmStart_ = nullptr;
  QLabel* warmStartLabel_ = nullptr;
  QFormLayout* gridForm_ = nullptr;
  QSpinBox* thickness_ = nullptr;
  QLabel* gridInfo_ = nullptr;
  QFormLayout* deviceForm_ = nullptr;
  ProjectorChoice* projectors_ = nullptr;
  QComboBox* presets_ = nullptr;
  QPushButton* savePreset_ = nullptr;
  QPushButton* deletePreset_ = nullptr;
  QSpinBox* nx_ = nullptr;
  QSpinBox* ny_ = nullptr;
  QSpinBox* nz_ = nullptr;
  QDoubleSpinBox* voxel_ = nullptr;
  QPushButton* autoGrid_ = nullptr;
  QComboBox* device_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QDoubleSpinBox* gpuMemoryLimit_ = nullptr;  // GiB, 0: no limit
  QLabel* memory_ = nullptr;
  QWidget* runBar_ = nullptr;  // reason_ and run_
  QLabel* reason_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace tomowb::gui
