// Workspace: what the window is working on, shared by every panel. It holds the loaded (or
// generated) projections with their geometry, the analytic phantom when the data came from the
// demo, the volumes (loaded files and finished runs), and which volume the views show. Panels
// read from it and listen to its signals; they never talk to each other directly. Lives on the
// GUI thread; the shared_ptr<const ...> data can be handed to worker threads safely.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/phantom/CnrPhantom.h"
#include "recon/phantom/Phantom.h"

namespace tomowb::gui {

struct PetDataSet;

// One projections entry of the Data panel: a loaded file, a demo, or one made from another by
// preprocessing. Each keeps its own edited geometry.
struct NamedProjections {
  QString name;        // file name, demo name, "cell.st binned 2, log"
  QString sourcePath;  // empty for generated or derived projections
  std::shared_ptr<const ProjectionStack> projections;
  QStringList warnings;  // what the reader (or the preprocessing) found odd
  std::optional<Geometry> editedGeometry;
  // The photon counts behind post-log projections (the helical demo's Poisson draw), one per
  // projection pixel: the statistical weights PWLS takes by default. Null when unknown.
  std::shared_ptr<const ProjectionStack> counts;
};

struct NamedVolume {
  QString name;        // "recon #3 (fdk.bp.cpu)", "truth", a file name
  QString sourcePath;  // empty for generated volumes
  std::shared_ptr<const Volume> volume;
  int runId = -1;  // the run that made it, or -1
  // Where a run's result was last saved or exported (Save volume, DICOM export, a session);
  // empty: not saved yet, so closing or quitting asks first (SafetyNet.h).
  QString savedPath;
};

class Workspace : public QObject {
  Q_OBJECT

 public:
  explicit Workspace(QObject* parent = nullptr);

  // --- projections: a list of entries, one of them current (what runs and panels use) ---
  // Replaces every entry with this one (nullptr: no projections): a new data set. What belonged
  // to the old one goes with it: the phantom (dropped, phantomChanged; set the new data's own
  // phantom after this call) and the ROIs (dataSetReplaced tells their owners); run results of
  // the old data stay in the list but no longer count as this data's (volumeFromCurrentData).
  void setProjections(std::shared_ptr<const ProjectionStack> projections, const QString& name,
                      const QString& sourcePath = {}, const QStringList& warnings = {});
  // Adds an entry beside the others (preprocessed data) and makes it current; returns its index.
  int addProjections(NamedProjections entry);
  void setCurrentProjections(int index);  // emits projectionsChanged and geometryChanged
  void removeProjections(int index);      // the next one (or none) becomes current
  const std::vector<NamedProjections>& projectionEntries() const { return projectionEntries_; }
  int currentProjectionsIndex() const { return currentProjections_; }
  const std::shared_ptr<const ProjectionStack>& projections() const;
  QString projectionsName() const;
  QString projectionsPath() const;
  QStringList projectionWarnings() const;
  // The photon counts of the current projections (NamedProjections::counts), and setting them
  // (the demo, after setProjections; countsChanged). Counts of another shape are refused
  // (ParameterError).
  std::shared_ptr<const ProjectionStack> counts() const;
  void setCounts(std::shared_ptr<const ProjectionStack> counts);
  // The geometry the next run uses: the projections' own until the geometry editor applies an
  // edited one (same view count and detector size), which replaces it.
  const Geometry* geometry() const;
  void setGeometry(const Geometry& geometry);  // throws ParameterError if it does not fit

  // Which data set is current: a new number with every setProjections (derived entries added
  // with addProjections stay in the data set they came from).
  int dataSet() const { return dataSet_; }
  // The run `runId` reconstructs the current data set (called when it is queued).
  void noteRunDataSet(int runId) { runDataSets_[runId] = dataSet_; }
  // True when `volume` may stand for the current data: a loaded file (the user chose it), or the
  // result of a run queued on the current data set; false for another data set's run results.
  bool volumeFromCurrentData(const NamedVolume& volume) const;

  // --- TOF-PET list mode (PetData.h): a data set of its own ---
  // Replaces what is open (projections and their phantom go, as with setProjections: a new data
  // set, dataSetReplaced) with PET data; nullptr drops the PET data only. Volumes stay.
  // setProjections with projections drops the PET data in turn. Emits petDataChanged.
  void setPetData(std::shared_ptr<const PetDataSet> data);
  const std::shared_ptr<const PetDataSet>& petData() const { return petData_; }

  // --- the analytic phantom behind generated data (demo), for truth and consistency checks ---
  void setPhantom(std::shared_ptr<const phantom::Phantom> phantom, const QString& name);
  const std::shared_ptr<const phantom::Phantom>& phantom() const { return phantom_; }
  QString phantomName() const { return phantomName_; }
  void setCnrPhantom(std::shared_ptr<const phantom::CnrPhantom> cnr) {
    cnrPhantom_ = std::move(cnr);
  }
  const std::shared_ptr<const phantom::CnrPhantom>& cnrPhantom() const { return cnrPhantom_; }
  // Water's attenuation (1/mm) at the scan's effective energy, as the user gave it for data
  // without a phantom: with it CT values can be shown in HU. Goes with the data set.
  std::optional<double> waterValuePerMm() const { return waterValuePerMm_; }
  void setWaterValuePerMm(std::optional<double> perMm);

  // --- volumes ---
  int addVolume(NamedVolume volume);  // returns its index; becomes current if none is
  const std::vector<NamedVolume>& volumes() const { return volumes_; }
  const NamedVolume* currentVolume() const;
  int currentVolumeIndex() const { return current_; }
  void setCurrentVolume(int index);
  // Closes one volume: the views fall back to the one listed before it (or the next, or none).
  void removeVolume(int index);
  // Notes that `volume` was saved or exported to `path` (every entry showing it).
  void noteVolumeSaved(const Volume* volume, const QString& path);
  // Run results not saved or exported yet (savedPath empty, not loaded from a file).
  std::vector<int> unsavedResultIndices() const;
  // Replace the pixels of the current live preview (a run's intermediate volume) without adding
  // an entry: the views show it until the run ends.
  void showPreview(std::shared_ptr<const Volume> volume, const QString& label);
  const std::shared_ptr<const Volume>& preview() const { return preview_; }
  QString previewLabel() const { return previewLabel_; }
  void clearPreview();

  void clear();

 signals:
  void projectionsChanged();
  void geometryChanged();
  void phantomChanged();
  void countsChanged();
  void dataSetReplaced();  // setProjections: ROIs and other per-data state go
  void waterValueChanged();
  void petDataChanged();
  void volumesChanged();
  void currentVolumeChanged();  // also when a preview arrives or is cleared
  void previewChanged();

 private:
  const NamedProjections* currentEntry() const;

  std::vector<NamedProjections> projectionEntries_;
  int currentProjections_ = -1;
  std::shared_ptr<const PetDataSet> petData_;
  std::shared_ptr<const phantom::Phantom> phantom_;
  std::shared_ptr<const phantom::CnrPhantom> cnrPhantom_;
  QString phantomName_;
  int dataSet_ = 0;
  std::map<int, int> runDataSets_;  // run id -> the data set it reconstructed
  std::vector<NamedVolume> volumes_;
  int current_ = -1;
  std::shared_ptr<const Volume> preview_;
  QString previewLabel_;
  std::optional<double> waterValuePerMm_;
};

}  // namespace tomowb::gui
