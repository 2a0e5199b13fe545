// AlgorithmPanel: the algorithm dock. Offers only what the core has (FDK for cone beams, which
// is FBP for parallel beams): the ramp window and cut-off, the redundancy weights, the field-of-
// view mask, the volume grid (with "Auto from geometry", as tomowb-cli's default grid), the
// device (CPU threads, or a GPU that listGpuDevices() found, with an optional memory limit;
// GPUs are disabled while no CUDA variant is registered) and the kernel variant of that device
// with its description and tunables. The device and limit go into params().gpu. The memory
// estimate (host, GPU and the GPU FDK planner's slabs and chunks; fdk::estimateFdkMemory) is
// updated live, and Run stays disabled with the reason shown until the parameters are valid.
// Presets: built-in ones from :/tomowb/presets/algorithms/*.json, user ones in QSettings
// ("algorithmPresets/<name>"), both in the preset JSON below.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <nlohmann/json.hpp>

#include "recon/fdk/Fdk.h"
#include "recon/fdk/FdkMemoryEstimate.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;

namespace tomowb::gui {

class Workspace;

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

  // The parameters the widgets show (volume centred on the isocentre).
  fdk::FdkParams params() const;
  void setParams(const fdk::FdkParams& params);
  // False with the reason (one sentence) when a run cannot start: no projections, an empty
  // grid, a geometry FDK cannot reconstruct, not enough memory.
  bool validate(QString* why) const;
  // CPU threads the run should use (0: all, OpenMP's default); FdkParams has no such field.
  int threadCount() const;
  // The GPU chosen (its listGpuDevices() index), or -1 for the CPU.
  int gpuIndex() const;
  // The GPU memory limit in bytes (params().gpu.memoryLimitBytes); 0: the device's free memory.
  std::uint64_t gpuMemoryLimitBytes() const;
  fdk::FdkMemoryEstimate memoryEstimate() const;
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
  void fillDevices();
  void fillVariants();
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
  bool updating_ = false;

  QComboBox* algorithm_ = nullptr;
  QComboBox* presets_ = nullptr;
  QPushButton* savePreset_ = nullptr;
  QPushButton* deletePreset_ = nullptr;
  QComboBox* window_ = nullptr;
  QDoubleSpinBox* cutoff_ = nullptr;
  QComboBox* redundancy_ = nullptr;
  QCheckBox* fovMask_ = nullptr;
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
