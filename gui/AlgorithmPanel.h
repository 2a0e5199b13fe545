// AlgorithmPanel: the algorithm dock. Offers what the core has:
//  - FDK for cone beams, which is FBP for parallel beams, and WBP (weighted backprojection: FBP of
//    a tilt series on the tomogram grid): the ramp window and cut-off, the redundancy weights,
//    the field-of-view mask and the kernel variant ("fdk.bp." family);
//  - SIRT, OS-SIRT and SART (recon/iterative): iterations (50), relaxation (1; SART 0.5, see
//    defaultRelaxation), subsets (OS-SIRT, 5), non-negativity (lower bound 0), an optional upper
//    bound, an optional stop on the weighted residual's relative change (off), a warm start from a
//    finished run with the same grid, and the forward projector and backprojector from the
//    registry ("et.fp.", "et.bp."), a backprojector that is the exact transpose of the chosen
//    forward projector being marked "matched";
//  - the volume grid (with "Auto from geometry": tomowb-cli's default grid, or for a tilt series
//    and WBP or an iterative method the tomogram grid iterative::tomogramGrid of the thickness
//    given, a quarter of the detector width by default), shown with its extent;
//  - the device (CPU threads, or a GPU that listGpuDevices() found, with an optional memory limit;
//    a GPU is disabled while no GPU variant of the algorithm's family is registered).
// Loading a tilt series chooses SIRT with a matched pair; other data FDK. The memory estimate is
// updated live, and Run stays disabled with the reason shown until the parameters are valid.
// Presets (FDK and WBP): built-in ones from :/tomowb/presets/algorithms/*.json, user ones in
// QSettings ("algorithmPresets/<name>"), both in the preset JSON below.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "recon/catalog/AlgorithmCatalog.h"
#include "recon/fdk/Fdk.h"
#include "recon/fdk/FdkMemoryEstimate.h"
#include "recon/iterative/IterativeReconstruction.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QFormLayout;
class QGroupBox;
class QSpinBox;

namespace tomowb::gui {

class RunController;
class Workspace;

enum class AlgorithmKind { Fdk, Wbp, Sirt, OsSirt, Sart, Cgls };
// "fdk", "wbp", "sirt", "os-sirt", "sart", "cgls" (RunSpec::algorithm), and back (nullopt if
// unknown).
QString algorithmId(AlgorithmKind kind);
std::optional<AlgorithmKind> algorithmFromId(const QString& id);
bool isIterative(AlgorithmKind kind);
iterative::IterativeMethod iterativeMethodOf(AlgorithmKind kind);  // Sirt for FDK/WBP
// 1 for SIRT and OS-SIRT (ASTRA's and CIL's default); 0.5 for SART, which corrects the volume
// after every single view: with lambda near 1 each update fits one view exactly, noise included,
// and the iterate swings from view to view. Halving it keeps SART's fast start (61 updates per
// sweep of the ET demo) and damps the swings (AreTomo2 starts at 1 and lowers it by 0.1 per
// iteration to 0.1).
double defaultRelaxation(iterative::IterativeMethod method);
// "1.02 um", "256 nm", "204.8 mm": a length in the unit that suits it.
QString lengthText(double mm);

// An algorithm preset: {"format": "tomowb-algorithm-preset", "version": 1, "name": "...",
// "algorithm": "fdk", "filter": "hann", "cutoff": 0.8, "redundancy": "auto", "fovMask": true,
// "variant": "fdk.bp.cpu"}. Every key but format, version and algorithm is optional; the
// volume grid is not part of a preset (it follows the data). `source` names the file in errors.
nlohmann::json algorithmPresetToJson(const fdk::FdkParams& params, const QString& name);
// Overwrites the fields the preset has; throws FormatError naming `source` and the field.
void applyAlgorithmPreset(const nlohmann::json& preset, fdk::FdkParams& params,
                          const QString& source);

// The grid tomowb-cli uses when given none: voxels of the detector pitch at the isocentre,
// covering the field of view in-plane and the detector's height. Throws ParameterError when
// the geometry has no views.
fdk::VolumeGrid autoVolumeGrid(const Geometry& geometry);

class AlgorithmPanel : public QWidget {
  Q_OBJECT

 public:
  explicit AlgorithmPanel(Workspace& workspace, QWidget* parent = nullptr);
  // Wide enough for its labels and spin boxes when the dock is first laid out.
  QSize sizeHint() const override;

  // The run controller whose finished runs are offered as warm starts (nullptr: none).
  void setRunController(const RunController* runs);

  AlgorithmKind algorithm() const;
  void setAlgorithm(AlgorithmKind kind);

  // The FDK/WBP parameters the widgets show (volume centred on the isocentre).
  fdk::FdkParams params() const;
  void setParams(const fdk::FdkParams& params);
  // The SIRT/OS-SIRT/SART parameters the widgets show (the method from the algorithm choice;
  // initialVolume is the warm-start run's result, or none).
  iterative::IterativeParams iterativeParams() const;
  // Everything but the initial volume and the mask; the method selects the algorithm.
  void setIterativeParams(const iterative::IterativeParams& params);
  // The chosen algorithm's parameters as its catalogue descriptor takes them (recon/catalog), and
  // the volumes the run starts from (the warm start): what MainWindow hands to makeCatalogRun.
  nlohmann::json algorithmParameters() const;
  catalog::JobInputs jobInputs() const;
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
  // The item text of a backprojector in its combo ("et.bp.cpu-matched  [matched]").
  QString backprojectorLabel(const QString& name) const;

  // False with the reason (one sentence) when a run cannot start: no projections, an empty
  // grid, a geometry the algorithm cannot reconstruct, a parameter out of range, a warm start
  // on another grid, not enough memory.
  bool validate(QString* why) const;
  // CPU threads the run should use (0: all, OpenMP's default); FdkParams has no such field.
  int threadCount() const;
  // The GPU chosen (its listGpuDevices() index), or -1 for the CPU.
  int gpuIndex() const;
  // The GPU memory limit in bytes (params().gpu.memoryLimitBytes); 0: the device's free memory.
  std::uint64_t gpuMemoryLimitBytes() const;
  fdk::FdkMemoryEstimate memoryEstimate() const;
  // Host bytes an iterative run allocates beyond the loaded projections (weights, residual,
  // iterate, update, per-subset column weights, two preview copies).
  std::uint64_t iterativeHostBytes() const;
  // nx = ny = nz = edge, with the voxel size scaled to keep the in-plane extent.
  void setVolumeEdge(int edge);

  // Built-in presets first (":/tomowb/presets/algorithms"), then the user's.
  QStringList presetNames() const;
  bool applyPreset(const QString& name);  // false if unknown or unreadable
  void saveUserPreset(const QString& name);
  bool deleteUserPreset(const QString& name);  // false for built-in or unknown names

 public slots:
  void autoVolumeFromGeometry();

 signals:
  void runRequested();
  void paramsChanged();

 private:
  void buildUi();
  QGroupBox* buildIterationBox();
  void connectWidgets();
  // Why the run cannot start (empty: it can), past the checks common to every algorithm.
  QString filteredBackprojectionProblem() const;
  QString iterativeProblem() const;
  void fillDevices();
  void fillVariants();
  void fillProjectors();
  void relabelBackprojectors();
  void fillWarmStarts();
  void onAlgorithmChanged();
  void onThicknessChanged(int voxels);
  void updateVisibility();
  QString memoryText(bool* fits) const;
  fdk::VolumeGrid grid() const;
  void fillPresets();
  void refresh();
  void setVoxelSize(double mm);
  void onProjectionsChanged();
  void onPresetChosen(int index);
  void onSavePreset();
  void onDeletePreset();
  nlohmann::json presetJson(const QString& name, QString* source) const;
  fdk::FdkMemoryOptions memoryOptions() const;

  Workspace& workspace_;
  const RunController* runs_ = nullptr;
  bool updating_ = false;
  bool tiltSeries_ = false;
  AlgorithmKind shownAlgorithm_ = AlgorithmKind::Fdk;

  QComboBox* algorithm_ = nullptr;
  QFormLayout* topForm_ = nullptr;
  QGroupBox* filterBox_ = nullptr;
  QGroupBox* iterationBox_ = nullptr;
  QFormLayout* iterationForm_ = nullptr;
  QSpinBox* iterations_ = nullptr;
  QDoubleSpinBox* relaxation_ = nullptr;
  QSpinBox* subsets_ = nullptr;
  QCheckBox* nonNegative_ = nullptr;
  QCheckBox* upperBoundOn_ = nullptr;
  QDoubleSpinBox* upperBound_ = nullptr;
  QCheckBox* stopOn_ = nullptr;
  QDoubleSpinBox* stopPercent_ = nullptr;
  QComboBox* warmStart_ = nullptr;
  QFormLayout* gridForm_ = nullptr;
  QSpinBox* thickness_ = nullptr;
  QLabel* gridInfo_ = nullptr;
  QFormLayout* deviceForm_ = nullptr;
  QComboBox* forward_ = nullptr;
  QComboBox* back_ = nullptr;
  QLabel* pairInfo_ = nullptr;
  QComboBox* presets_ = nullptr;
  QPushButton* savePreset_ = nullptr;
  QPushButton* deletePreset_ = nullptr;
  QComboBox* window_ = nullptr;
  QDoubleSpinBox* cutoff_ = nullptr;
  QComboBox* redundancy_ = nullptr;
  QCheckBox* fovMask_ = nullptr;
  QCheckBox* allowIncomplete_ = nullptr;
  QSpinBox* nx_ = nullptr;
  QSpinBox* ny_ = nullptr;
  QSpinBox* nz_ = nullptr;
  QDoubleSpinBox* voxel_ = nullptr;
  QPushButton* autoGrid_ = nullptr;
  QComboBox* device_ = nullptr;
  QSpinBox* threads_ = nullptr;
  QDoubleSpinBox* gpuMemoryLimit_ = nullptr;  // GiB, 0: no limit
  QComboBox* variant_ = nullptr;
  QLabel* variantInfo_ = nullptr;
  QLabel* memory_ = nullptr;
  QLabel* reason_ = nullptr;
  QPushButton* run_ = nullptr;
};

}  // namespace tomowb::gui
