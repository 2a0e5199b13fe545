// LoadTask: reads a data file (projections or a volume) or generates a demo data set off the
// GUI thread, with progress and cancel (DESIGN.md, "Threads in the GUI"; UX goals U7 and U9).
// The core's readers have no progress hook, so a file load reports indeterminate progress (-1)
// and is cancelled by abandoning it: cancel() returns at once, the reader thread runs to its
// end and its result is dropped, so nothing partial is ever kept. A run record (*.run.json,
// GuiRunRecords.h) is read with its output volume, for the run list. DICOM (when built with DCMTK:
// *.dcm files, files without a known extension that start with DICOM's preamble, and folders
// holding such files) is read with io::dicom::readDicomSeries, which stops at the token; a
// folder with several series is listed first and the caller chooses (dicomSeries). The demo reports
// real progress and stops within one view through the core's CancelToken. TOF-PET list mode
// (*.lm, or any file with the list-mode magic) is read in chunks with progress and cancel, and a
// PET scan can be simulated the same way (startPetSimulation). Needs only QtCore.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>
#include <memory>

#include "gui/core/DemoData.h"
#include "recon/core/Volume.h"
#include "recon/data/ProjectionStack.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/preprocess/TiltSeriesPreprocess.h"

namespace tomowb::gui {

struct OpenedRunRecord;
struct PetDataSet;
struct PetSimulationRequest;

// What to read a file as. Auto decides by the format: RabbitCT, raw + JSON projection sidecars
// and MRC tilt series are projections, everything else a volume. An MRC file is a tilt series
// by io::mrcHoldsTiltSeries: .st .ali .mrcs .preali always, .mrc with NAME.tlt / NAME.rawtlt
// beside it whatever its space group, or ispg 0 with a SerialEM header. Volume reads any MRC
// stack as a volume. Other stacks become projections through startProjections (with a geometry).
enum class LoadKind { Auto, Projections, Volume };

// One series of a DICOM folder that holds several: what the user chooses from.
struct DicomSeriesOption {
  QString uid;    // Series Instance UID, for startDicomSeries
  QString label;  // "CT head · CT · 512 × 512 × 120 · 1.2.840..."
};

struct LoadResult {
  QString path;                                  // empty for a demo
  QString name;                                  // file name, or the demo's name
  std::shared_ptr<ProjectionStack> projections;  // set for projections and demos
  std::shared_ptr<Volume> volume;                // set for volumes
  // Demos only: the analytic phantom(s) and the grid that suits them.
  std::shared_ptr<phantom::Phantom> phantom;
  std::shared_ptr<phantom::CnrPhantom> cnrPhantom;
  std::shared_ptr<fdk::VolumeGrid> suggestedGrid;
  // The helical demo: the photon counts behind its noisy projections (PWLS's weights).
  std::shared_ptr<ProjectionStack> counts;
  QStringList warnings;  // what the reader found odd but read anyway (MRC tilt series, DICOM)
  // startProjections: how the stack and the geometry file were read ("p.npy: 360 views of ...").
  QString summary;
  // A DICOM folder with several series: nothing was read; choose one and call startDicomSeries.
  QList<DicomSeriesOption> dicomSeries;
  // Preprocessed projections (startPreprocess): added beside their source, not replacing it.
  bool derived = false;
  // A run record (*.run.json): the record and its output volume (also in `volume`) for the run
  // list, not a Data panel entry.
  std::shared_ptr<OpenedRunRecord> runRecord;
  // TOF-PET list mode (a *.lm file, or a scan simulated by startPetSimulation): PetData.h.
  std::shared_ptr<PetDataSet> pet;
  double seconds = 0;
};

class LoadTask : public QObject {
  Q_OBJECT

 public:
  explicit LoadTask(QObject* parent = nullptr);
  // Abandons a running file load (its thread finishes on its own and drops the result) and
  // cancels a running demo, waiting for it (it stops within one view).
  ~LoadTask() override;
  LoadTask(const LoadTask&) = delete;
  LoadTask& operator=(const LoadTask&) = delete;

  // Starts reading `path`; a load already running is cancelled first. Emits progress(-1) at
  // once, then finished() or failed(), never both, and nothing after cancel().
  void startFile(const QString& path, LoadKind kind = LoadKind::Auto);
  // Starts reading `path` as projections with a geometry from another file (or its own, when
  // attachment.geometryFile is empty): io::loadProjectionsWithGeometry, the CLI's loader. The
  // entry is named "FILE + GEOMETRY".
  void startProjections(const QString& path, const io::GeometryAttachment& attachment);
  // True for a stack that may hold projections or a volume and says nothing about which: .npy,
  // TIFF (file or series), an MRC file that is not a tilt series. The Data panel asks the user.
  static bool mayHoldEither(const QString& path);
  // Starts reading one series of a DICOM file or folder (the UID from LoadResult::dicomSeries).
  void startDicomSeries(const QString& path, const QString& seriesInstanceUid);
  // True if this build reads DICOM and `path` is DICOM by the rule above (reads at most the
  // first 132 bytes of the files it checks).
  static bool isDicom(const QString& path);
  // Starts generating a demo data set (gui/core/DemoData.h) with real progress.
  void startDemo(DemoKind kind, int size);
  // Starts simulating a TOF-PET scan of the PET phantom (PetData.h: simulatePetScan) with real
  // progress; cancel stops it within one chunk of decays. LoadResult::pet holds it.
  void startPetSimulation(const PetSimulationRequest& request);
  // Starts preprocessing `input` (crop, bin, log, normalise: preprocess::preprocessTiltSeries)
  // with real progress; cancel stops it within one view. The result is named `name` (see
  // preprocessedName), has derived = true and carries the core's warnings.
  void startPreprocess(std::shared_ptr<const ProjectionStack> input,
                       const preprocess::TiltSeriesPreprocessing& params, const QString& name);
  // "<source> cropped 128 × 64, binned 2, log, mean-normalised": the source and its steps.
  static QString preprocessedName(const QString& source,
                                  const preprocess::TiltSeriesPreprocessing& params,
                                  const Geometry& sourceGeometry);
  // Drops the running load: emits cancelled() at once; no finished()/failed() follows for it.
  void cancel();
  bool busy() const { return current_ != nullptr; }
  QString currentLabel() const { return label_; }  // the file name or demo being loaded

  // The format decision of startFile, for callers and tests: throws ParameterError naming the
  // path when the format is unknown or cannot hold what `kind` asks for. DICOM is a volume.
  static LoadKind resolveKind(const QString& path, LoadKind kind);

 signals:
  void started(const QString& label);
  void progress(double fraction);  // 0..1, or -1 for "busy, no estimate"
  void finished(const tomowb::gui::LoadResult& result);
  void failed(const QString& message);  // names the file and the problem
  void cancelled();

 private:
  struct Job;
  void launch(std::shared_ptr<Job> job, QString label);
  void deliver(const std::shared_ptr<Job>& job);
  void onProgress(const std::shared_ptr<Job>& job, double fraction);

  std::shared_ptr<Job> current_;
  QString label_;
};

}  // namespace tomowb::gui

Q_DECLARE_METATYPE(tomowb::gui::LoadResult)
