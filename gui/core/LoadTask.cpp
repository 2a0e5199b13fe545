#include "gui/core/LoadTask.h"

#include <QDir>
#include <QFileInfo>
#include <QMetaObject>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <new>
#include <thread>

#include "gui/core/GuiRunRecords.h"
#include "gui/core/PetData.h"
#include "recon/core/Error.h"
#include "recon/io/MrcIo.h"
#include "recon/io/ProjectionsWithGeometry.h"
#include "recon/io/RawVolumeIo.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#ifdef TOMOWB_HAVE_DICOM
#include "recon/io/dicom/DicomImport.h"
#endif

namespace tomowb::gui {

namespace {
// Progress is posted at most 20 times a second (UX goal U6: the event loop never floods).
constexpr auto kProgressInterval = std::chrono::milliseconds(50);
// How long the destructor waits for a cancelled demo (it stops within one view).
constexpr auto kDemoStopWait = std::chrono::seconds(5);

std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}

// The last component, also of a folder given with a trailing '/'.
QString displayName(const QString& path) {
  return QFileInfo(QDir::cleanPath(path)).fileName();
}

// io::mrcHoldsTiltSeries from the header and the files beside it only: the value scan
// describeFile also does would read the whole stack twice.
bool mrcHoldsTiltSeries(const std::filesystem::path& path) {
  return io::mrcHoldsTiltSeries(path, io::readMrcHeader(path));
}

#ifdef TOMOWB_HAVE_DICOM
// *.dcm and *.dicom are DICOM by name; files without a known extension (DICOM files are often
// named by their UID, or not at all) and folders are DICOM when they start with its preamble,
// so a folder of TIFF slices stays a TIFF series.
bool isDicomPath(const std::filesystem::path& path) {
  std::error_code ec;
  try {
    if (std::filesystem::is_directory(path, ec)) return io::dicom::looksLikeDicom(path);
    std::string ext = path.extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".dcm" || ext == ".dicom") return true;
    try {
      io::dataFormatForPath(path);
      return false;  // a format of ours
    } catch (const ParameterError&) {
      return std::filesystem::is_regular_file(path, ec) && io::dicom::looksLikeDicom(path);
    }
  } catch (const Error&) {
    return false;  // unreadable: the reader it goes to says why
  }
}

QString seriesLabel(const io::dicom::DicomSeriesInfo& s) {
  const QString description = s.seriesDescription.empty()
                                  ? QObject::tr("series %1").arg(s.seriesNumber)
                                  : QString::fromStdString(s.seriesDescription);
  return QStringLiteral("%1 · %2 · %3 × %4 × %5 · %6")
      .arg(description, QString::fromStdString(s.modality))
      .arg(s.columns)
      .arg(s.rows)
      .arg(s.frames)
      .arg(QString::fromStdString(s.seriesInstanceUid));
}

// The volume of one series, named after its description and with the reader's warnings.
LoadResult readDicom(const QString& path, const std::string& seriesUid, JobContext& context) {
  const std::filesystem::path p = toPath(path);
  io::dicom::DicomReadOptions options;
  options.seriesInstanceUid = seriesUid;
  std::filesystem::path source = p;
  std::error_code ec;
  if (seriesUid.empty()) {
    const std::vector<io::dicom::DicomSeriesInfo> series = io::dicom::listDicomSeries(p);
    if (series.size() > 1) {
      LoadResult choice;
      choice.path = path;
      choice.name = displayName(path);
      for (const auto& s : series)
        choice.dicomSeries.push_back({QString::fromStdString(s.seriesInstanceUid), seriesLabel(s)});
      return choice;
    }
    options.seriesInstanceUid = series.front().seriesInstanceUid;
    // One slice file of a CT or PET series opens the whole series from its folder.
    if (!std::filesystem::is_directory(p, ec) && series.front().frames == 1 &&
        series.front().sopClass != "Enhanced CT Image")
      source = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  }
  io::dicom::DicomVolume read = io::dicom::readDicomSeries(source, options, context);
  LoadResult r;
  r.path = path;
  QString name = QString::fromStdString(read.series.seriesDescription).trimmed();
  if (name.isEmpty())
    name = QObject::tr("DICOM %1 series %2")
               .arg(QString::fromStdString(read.series.modality))
               .arg(read.series.seriesNumber);
  // Values other than attenuation (HU of another tool, PET units) are named with the volume.
  if (!read.units.empty() && read.units != "1/mm")
    name += QStringLiteral(" (%1)").arg(QString::fromStdString(read.units));
  r.name = name;
  for (const std::string& w : read.warnings) r.warnings << QString::fromStdString(w);
  r.volume = std::make_shared<Volume>(std::move(read.volume));
  return r;
}
#endif
}  // namespace

// One load. Shared by the LoadTask and its worker thread; the worker posts its outcome to
// `owner` under `mutex`, and the LoadTask clears `owner` when it abandons the job or dies, so
// an abandoned result is simply dropped.
struct LoadTask::Job : ProgressSink {
  std::function<LoadResult(JobContext&)> work;
  bool cancellable = false;  // honours the token (demo); file reads are abandoned instead
  CancelToken token;

  std::mutex mutex;
  std::condition_variable doneChanged;
  LoadTask* owner = nullptr;
  bool done = false;
  bool wasCancelled = false;
  LoadResult result;
  QString error;
  std::chrono::steady_clock::time_point lastProgress{};

  void report(std::string_view, double fraction) override {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex);
    if (!owner || (now - lastProgress < kProgressInterval && fraction < 1.0)) return;
    lastProgress = now;
    LoadTask* target = owner;
    // `self` keeps the job alive until the queued call runs; Qt drops the call if the target
    // is destroyed first.
    QMetaObject::invokeMethod(
        target, [target, self = shared(), fraction] { target->onProgress(self, fraction); },
        Qt::QueuedConnection);
  }

  std::shared_ptr<Job> shared();
  std::weak_ptr<Job> weakSelf;
};

std::shared_ptr<LoadTask::Job> LoadTask::Job::shared() {
  return weakSelf.lock();
}

LoadTask::LoadTask(QObject* parent) : QObject(parent) {
  qRegisterMetaType<tomowb::gui::LoadResult>();
}

LoadTask::~LoadTask() {
  if (!current_) return;
  const std::shared_ptr<Job> job = std::move(current_);
  job->token.request();
  std::unique_lock lock(job->mutex);
  job->owner = nullptr;
  // A demo stops within one view: wait, so that no generator thread outlives the application.
  // A file read cannot be interrupted; its thread finishes alone and frees what it read.
  if (job->cancellable) job->doneChanged.wait_for(lock, kDemoStopWait, [&] { return job->done; });
}

bool LoadTask::isDicom([[maybe_unused]] const QString& path) {
#ifdef TOMOWB_HAVE_DICOM
  return isDicomPath(toPath(path));
#else
  return false;
#endif
}

namespace {
// resolveKind for the formats of VolumeFiles.h (everything but DICOM).
LoadKind resolveFileKind(const std::filesystem::path& p, LoadKind kind) {
  const io::DataFormat format = io::dataFormatForPath(p);
  // Any MRC stack may be read as a plain volume (the Data panel's "Open as volume").
  if (kind == LoadKind::Volume && format == io::DataFormat::Mrc) return LoadKind::Volume;
  LoadKind actual = LoadKind::Volume;
  if (format == io::DataFormat::RabbitCt)
    actual = LoadKind::Projections;
  else if (format == io::DataFormat::Mrc)
    actual = mrcHoldsTiltSeries(p) ? LoadKind::Projections : LoadKind::Volume;
  else if (format == io::DataFormat::RawJson)
    actual = io::readRawSidecar(p).content == io::RawContent::Projections ? LoadKind::Projections
                                                                          : LoadKind::Volume;
  if (kind != LoadKind::Auto && kind != actual) {
    const std::string holds = actual == LoadKind::Volume ? "a volume" : "projections";
    const std::string wanted = kind == LoadKind::Volume ? "a volume" : "projections";
    throw FormatError(p, "holds " + holds + " (" + io::toString(format) + "), not " + wanted);
  }
  return actual;
}

LoadKind resolveDicomKind(const std::filesystem::path& p, LoadKind kind) {
  if (kind == LoadKind::Projections)
    throw FormatError(p, "holds a volume (DICOM), not projections");
  return LoadKind::Volume;
}
}  // namespace

LoadKind LoadTask::resolveKind(const QString& path, LoadKind kind) {
  const std::filesystem::path p = toPath(path);
  return isDicom(path) ? resolveDicomKind(p, kind) : resolveFileKind(p, kind);
}

void LoadTask::startFile(const QString& path, LoadKind kind) {
  auto job = std::make_shared<Job>();
  // List mode is read in chunks and stops at the token like a demo.
  job->cancellable = isListModePath(path);
  job->work = [path, kind]([[maybe_unused]] JobContext& context) {
    if (isRunRecordPath(path)) {
      LoadResult r;
      r.path = path;
      r.name = displayName(path);
      r.runRecord = std::make_shared<OpenedRunRecord>(openRunRecord(toPath(path)));
      r.volume = r.runRecord->volume;
      r.warnings = r.runRecord->warnings;
      return r;
    }
    if (isListModePath(path)) {
      LoadResult r;
      r.path = path;
      r.name = displayName(path);
      r.pet = std::make_shared<PetDataSet>(readPetListMode(path, context));
      r.warnings = r.pet->warnings;
      return r;
    }
#ifdef TOMOWB_HAVE_DICOM
    if (isDicomPath(toPath(path))) {
      resolveDicomKind(toPath(path), kind);  // a DICOM file asked for as projections says so
      return readDicom(path, {}, context);
    }
#endif
    LoadResult r;
    r.path = path;
    r.name = displayName(path);
    const std::filesystem::path p = toPath(path);
    if (resolveFileKind(p, kind) == LoadKind::Projections) {
      std::vector<std::string> warnings;
      r.projections = std::make_shared<ProjectionStack>(io::readProjections(p, &warnings));
      for (const std::string& w : warnings) r.warnings << QString::fromStdString(w);
    } else
      r.volume = std::make_shared<Volume>(io::readVolume(p));
    return r;
  };
  launch(std::move(job), displayName(path));
}

void LoadTask::startProjections(const QString& path, const io::GeometryAttachment& attachment) {
  auto job = std::make_shared<Job>();
  job->work = [path, attachment](JobContext&) {
    io::LoadedProjections loaded = io::loadProjectionsWithGeometry(toPath(path), attachment);
    LoadResult r;
    r.path = path;
    r.name = displayName(path);
    if (!attachment.geometryFile.empty())
      r.name += QStringLiteral(" + ") +
                QString::fromStdString(attachment.geometryFile.filename().string());
    r.projections = std::make_shared<ProjectionStack>(std::move(loaded.projections));
    for (const std::string& w : loaded.warnings) r.warnings << QString::fromStdString(w);
    r.summary = QString::fromStdString(loaded.summary);
    return r;
  };
  launch(std::move(job), displayName(path));
}

bool LoadTask::mayHoldEither(const QString& path) {
  try {
    if (isDicom(path) || isRunRecordPath(path)) return false;
    const std::filesystem::path p = toPath(path);
    switch (io::dataFormatForPath(p)) {
      case io::DataFormat::Npy:
      case io::DataFormat::Tiff:
      case io::DataFormat::TiffSeries:
        return true;
      case io::DataFormat::Mrc:
        return !mrcHoldsTiltSeries(p);
      default:
        return false;
    }
  } catch (const std::exception&) {
    return false;  // unreadable: the reader it goes to says why
  }
}

void LoadTask::startDicomSeries(const QString& path,
                                [[maybe_unused]] const QString& seriesInstanceUid) {
  auto job = std::make_shared<Job>();
#ifdef TOMOWB_HAVE_DICOM
  job->work = [path, uid = seriesInstanceUid.toStdString()](JobContext& context) {
    return readDicom(path, uid, context);
  };
#else
  job->work = [path](JobContext&) -> LoadResult {
    throw ParameterError("format", path.toStdString() + ": this build reads no DICOM (DCMTK off)");
  };
#endif
  launch(std::move(job), displayName(path));
}

void LoadTask::startDemo(DemoKind kind, int size) {
  auto job = std::make_shared<Job>();
  job->cancellable = true;
  job->work = [kind, size](JobContext& context) {
    DemoDataset demo = makeDemo(kind, size, context);
    LoadResult r;
    r.name = demo.name;
    r.projections = std::move(demo.projections);
    r.phantom = std::move(demo.phantom);
    r.cnrPhantom = std::move(demo.cnrPhantom);
    r.suggestedGrid = std::make_shared<fdk::VolumeGrid>(demo.suggestedGrid);
    r.counts = std::move(demo.counts);
    return r;
  };
  const QString label = kind == DemoKind::Cnr                  ? tr("CNR demo")
                        : kind == DemoKind::ElectronTomography ? tr("ET demo")
                        : kind == DemoKind::Helical            ? tr("helical CT demo")
                                                               : tr("Shepp-Logan demo");
  launch(std::move(job), label);
}

void LoadTask::startPetSimulation(const PetSimulationRequest& request) {
  auto job = std::make_shared<Job>();
  job->cancellable = true;
  job->work = [request](JobContext& context) {
    LoadResult r;
    r.pet = std::make_shared<PetDataSet>(simulatePetScan(request, context));
    r.name = r.pet->name;
    return r;
  };
  launch(std::move(job), tr("PET scan simulation"));
}

void LoadTask::startPreprocess(std::shared_ptr<const ProjectionStack> input,
                               const preprocess::TiltSeriesPreprocessing& params,
                               const QString& name) {
  auto job = std::make_shared<Job>();
  job->cancellable = true;
  job->work = [input = std::move(input), params, name](JobContext& context) {
    std::vector<std::string> warnings;
    LoadResult r;
    r.name = name;
    r.derived = true;
    r.projections = std::make_shared<ProjectionStack>(
        preprocess::preprocessTiltSeries(*input, params, context, &warnings));
    for (const std::string& w : warnings) r.warnings << QString::fromStdString(w);
    return r;
  };
  launch(std::move(job), name);
}

QString LoadTask::preprocessedName(const QString& source,
                                   const preprocess::TiltSeriesPreprocessing& params,
                                   const Geometry& sourceGeometry) {
  QStringList steps;
  const std::int64_t cols = sourceGeometry.detector().cols;
  const std::int64_t rows = sourceGeometry.detector().rows;
  const std::int64_t keptCols = params.cols > 0 ? params.cols : cols - params.firstCol;
  const std::int64_t keptRows = params.rows > 0 ? params.rows : rows - params.firstRow;
  if (keptCols != cols || keptRows != rows)
    steps << tr("cropped %1 × %2").arg(keptCols).arg(keptRows);
  if (params.binning > 1) steps << tr("binned %1").arg(params.binning);
  if (params.logTransform)
    steps << (params.i0 > 0 ? tr("log (I0 %1)").arg(params.i0, 0, 'g', 6) : tr("log"));
  if (params.normalisation == preprocess::ViewNormalisation::DivideByMean)
    steps << tr("mean-normalised");
  else if (params.normalisation == preprocess::ViewNormalisation::ZeroMeanUnitVariance)
    steps << tr("zero mean, unit variance");
  if (steps.isEmpty()) steps << tr("copy");
  return source + QStringLiteral(" ") + steps.join(QStringLiteral(", "));
}

void LoadTask::launch(std::shared_ptr<Job> job, QString label) {
  cancel();
  job->weakSelf = job;
  job->owner = this;
  current_ = job;
  label_ = std::move(label);
  emit started(label_);
  emit progress(-1.0);
  const QString shownName = label_;
  // Detached: a file read cannot be interrupted, and the job (shared with this thread) outlives
  // an abandoned load on its own. Exceptions stop here (STYLE.md) and become a message.
  std::thread([job, shownName] {
    const auto started = std::chrono::steady_clock::now();
    LoadResult result;
    QString error;
    bool wasCancelled = false;
    try {
      JobContext context(job->token, job.get());
      result = job->work(context);
      result.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    } catch (const Cancelled&) {
      wasCancelled = true;
    } catch (const std::bad_alloc&) {
      error = shownName + ": " + tr("not enough memory to load it");
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
      // Core errors about files name the path; say which file the rest is about.
      if (!error.contains(shownName)) error = shownName + ": " + error;
    }
    std::lock_guard lock(job->mutex);
    job->result = std::move(result);
    job->error = std::move(error);
    job->wasCancelled = wasCancelled;
    job->done = true;
    job->doneChanged.notify_all();
    if (LoadTask* target = job->owner)
      QMetaObject::invokeMethod(
          target, [target, job] { target->deliver(job); }, Qt::QueuedConnection);
  }).detach();
}

void LoadTask::cancel() {
  if (!current_) return;
  const std::shared_ptr<Job> job = std::move(current_);
  current_.reset();
  label_.clear();
  job->token.request();
  {
    std::lock_guard lock(job->mutex);
    job->owner = nullptr;  // whatever it delivers from now on is dropped
  }
  emit cancelled();
}

void LoadTask::onProgress(const std::shared_ptr<Job>& job, double fraction) {
  if (job == current_) emit progress(fraction);
}

void LoadTask::deliver(const std::shared_ptr<Job>& job) {
  if (job != current_) return;  // abandoned
  current_.reset();
  label_.clear();
  LoadResult result;
  QString error;
  bool wasCancelled = false;
  {
    std::lock_guard lock(job->mutex);
    result = std::move(job->result);
    error = std::move(job->error);
    wasCancelled = job->wasCancelled;
  }
  if (wasCancelled)
    emit cancelled();
  else if (!error.isEmpty())
    emit failed(error);
  else
    emit finished(result);
}

}  // namespace tomowb::gui
