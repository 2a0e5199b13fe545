#include "gui/DataPanel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QMap>
#include <QMenu>
#include <QMessageBox>
#include <QMetaObject>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

#include "gui/OpenProjectionsDialog.h"
#include "gui/PreprocessDialog.h"
#include "gui/core/ErrorWording.h"
#include "gui/core/TiltAngles.h"
#include "gui/core/Workspace.h"
#include "recon/core/DisplayUnits.h"
#include "recon/io/MrcIo.h"
#include "recon/io/TiltSeriesFiles.h"
#include "recon/io/VolumeFiles.h"
#include "recon/pet/ListModeFile.h"
#ifdef TOMOWB_HAVE_DICOM
#include "recon/io/dicom/DicomImport.h"
#endif

namespace tomowb::gui {

namespace {

constexpr int kKindRole = Qt::UserRole;
constexpr int kIndexRole = Qt::UserRole + 1;
constexpr int kPathRole = Qt::UserRole + 2;
const char* const kRecentFilesKey = "recentFiles";

// Lengths in the unit their size reads best in ("0.35 nm" for a tilt series, not "3.5e-07 mm").
QString lengthNumber(double mm, LengthUnit unit) {
  return QString::number(mm / millimetresPer(unit), 'g', 4);
}

QString geometryText(const Geometry& g) {
  QString beam =
      g.beam() == BeamKind::Cone ? DataPanel::tr("cone beam") : DataPanel::tr("parallel beam");
  if (isTiltSeries(g)) {
    const std::vector<double> tilts = fitTiltAxis(g).tiltsRad;
    const auto [lo, hi] = std::minmax_element(tilts.begin(), tilts.end());
    beam = DataPanel::tr("tilt series %1°..%2°")
               .arg(*lo * 180.0 / std::numbers::pi, 0, 'f', 1)
               .arg(*hi * 180.0 / std::numbers::pi, 0, 'f', 1);
  }
  QString text = DataPanel::tr("%1 views · %2 × %3 px · %4")
                     .arg(g.viewCount())
                     .arg(g.detector().cols)
                     .arg(g.detector().rows)
                     .arg(beam);
  if (g.viewCount() > 0) {
    const double pitch = g.view(0).u.norm();
    const LengthUnit unit = lengthUnitFor(pitch);
    text += DataPanel::tr(" · %1 %2 pitch")
                .arg(lengthNumber(pitch, unit), QString::fromStdString(symbol(unit)));
  }
  return text;
}

QString volumeText(const Volume& v) {
  const Eigen::Vector3d& s = v.voxelSizeMm();
  const LengthUnit unit = lengthUnitFor(s.minCoeff());
  return DataPanel::tr("%1 × %2 × %3 · %4 × %5 × %6 %7")
      .arg(v.nx())
      .arg(v.ny())
      .arg(v.nz())
      .arg(lengthNumber(s.x(), unit), lengthNumber(s.y(), unit), lengthNumber(s.z(), unit),
           QString::fromStdString(symbol(unit)));
}

}  // namespace

QSize DataPanel::sizeHint() const {
  return {std::max(QWidget::sizeHint().width(), 300), QWidget::sizeHint().height()};
}

DataPanel::DataPanel(Workspace& workspace, QWidget* parent)
    : QWidget(parent), workspace_(workspace), loader_(new LoadTask(this)) {
  setObjectName(QStringLiteral("dataPanel"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);

  auto* buttons = new QHBoxLayout;
  openButton_ = new QToolButton(this);
  openButton_->setObjectName(QStringLiteral("dataOpenButton"));
  openButton_->setText(tr("&Open…"));
  openButton_->setIcon(QIcon(QStringLiteral(":/tomowb/icons/open.svg")));
  openButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  openButton_->setToolTip(
      tr("Open projections or volumes (raw + JSON, MetaImage, MRC tilt series, TIFF, NumPy, "
         "RabbitCT)"));
  openButton_->setPopupMode(QToolButton::MenuButtonPopup);
  auto* openMenu = new QMenu(openButton_);
  openMenu->addAction(tr("Open &files…"), this, &DataPanel::showOpenDialog);
  openMenu->addAction(tr("Open &projections with a geometry…"), this,
                      [this] { showOpenProjectionsDialog(); });
  openMenu->addAction(tr("Open TIFF &series folder…"), this, &DataPanel::showOpenFolderDialog);
#ifdef TOMOWB_HAVE_DICOM
  openMenu->addAction(tr("Open &DICOM folder…"), this, &DataPanel::showOpenDicomFolderDialog);
  openButton_->setToolTip(
      tr("Open projections or volumes (raw + JSON, MetaImage, MRC tilt series, TIFF, NumPy, "
         "RabbitCT, DICOM CT and PET series)"));
#endif
  openButton_->setMenu(openMenu);
  connect(openButton_, &QToolButton::clicked, this, &DataPanel::showOpenDialog);
  buttons->addWidget(openButton_);
  preprocessAction_ = new QAction(tr("&Preprocess projections…"), this);
  preprocessAction_->setObjectName(QStringLiteral("preprocessAction"));
  preprocessAction_->setStatusTip(
      tr("Crop, bin, log-transform or normalise the current projections into a new entry"));
  connect(preprocessAction_, &QAction::triggered, this, &DataPanel::showPreprocessDialog);
  preprocessButton_ = new QToolButton(this);
  preprocessButton_->setObjectName(QStringLiteral("dataPreprocessButton"));
  preprocessButton_->setDefaultAction(preprocessAction_);
  preprocessButton_->setText(tr("Preprocess…"));
  buttons->addWidget(preprocessButton_);
  buttons->addStretch(1);
  layout->addLayout(buttons);

  list_ = new QTreeWidget(this);
  list_->setObjectName(QStringLiteral("dataList"));
  // One column, two lines per item (name, then the facts), so nothing hides in a narrow dock.
  list_->setColumnCount(1);
  list_->setHeaderHidden(true);
  list_->setRootIsDecorated(false);
  list_->setWordWrap(true);
  list_->setTextElideMode(Qt::ElideMiddle);
  list_->setContextMenuPolicy(Qt::CustomContextMenu);
  list_->setAccessibleName(tr("Open data"));
  layout->addWidget(list_, 1);

  busyRow_ = new QWidget(this);
  auto* busyLayout = new QHBoxLayout(busyRow_);
  busyLayout->setContentsMargins(0, 0, 0, 0);
  busyLabel_ = new QLabel(busyRow_);
  progress_ = new QProgressBar(busyRow_);
  progress_->setObjectName(QStringLiteral("dataLoadProgress"));
  progress_->setRange(0, 1000);
  progress_->setTextVisible(false);
  cancelButton_ =
      new QPushButton(QIcon(QStringLiteral(":/tomowb/icons/cancel.svg")), tr("Cancel"), busyRow_);
  cancelButton_->setObjectName(QStringLiteral("dataCancelButton"));
  cancelButton_->setToolTip(tr("Stop loading: nothing of it is kept"));
  busyLayout->addWidget(busyLabel_);
  busyLayout->addWidget(progress_, 1);
  busyLayout->addWidget(cancelButton_);
  layout->addWidget(busyRow_);
  busyRow_->hide();

  connect(cancelButton_, &QPushButton::clicked, this, &DataPanel::cancelLoading);
  connect(loader_, &LoadTask::progress, this, &DataPanel::onProgress);
  connect(loader_, &LoadTask::finished, this, &DataPanel::onLoaded);
  connect(loader_, &LoadTask::failed, this, &DataPanel::onFailed);
  connect(loader_, &LoadTask::cancelled, this, &DataPanel::updatePreprocessAction);
  connect(list_, &QTreeWidget::itemClicked, this, &DataPanel::onItemClicked);
  connect(list_, &QTreeWidget::itemActivated, this, &DataPanel::onItemClicked);
  connect(list_, &QTreeWidget::customContextMenuRequested, this, &DataPanel::showContextMenu);
  for (auto signal :
       {&Workspace::projectionsChanged, &Workspace::geometryChanged, &Workspace::phantomChanged,
        &Workspace::volumesChanged, &Workspace::currentVolumeChanged, &Workspace::petDataChanged})
    connect(&workspace_, signal, this, &DataPanel::rebuildList);
  connect(&workspace_, &Workspace::projectionsChanged, this, &DataPanel::updatePreprocessAction);
  rebuildList();
  updatePreprocessAction();
}

QStringList DataPanel::nameFilters() {
  QStringList perFormat{tr("Raw + JSON sidecar (*.json *.raw)"), tr("MetaImage (*.mhd *.mha)"),
                        tr("MRC tilt series or volume (*.mrc *.st *.ali *.preali *.mrcs *.rec "
                           "*.map)")};
  QString all = QStringLiteral(
      "*.json *.raw *.mhd *.mha *.npy *.rct *.mrc *.st *.ali *.preali *.mrcs "
      "*.rec *.map");
  if (io::isFormatAvailable(io::DataFormat::Tiff)) {
    perFormat << tr("TIFF stack (*.tif *.tiff)");
    all += QStringLiteral(" *.tif *.tiff");
  }
  if (io::isFormatAvailable(io::DataFormat::Hdf5)) {
    perFormat << tr("HDF5 volume (*.h5 *.hdf5)");
    all += QStringLiteral(" *.h5 *.hdf5");
  }
  perFormat << tr("NumPy array (*.npy)") << tr("RabbitCT projections (*.rct)")
            << tr("Run records (*.run.json)") << tr("TOF-PET list mode (*.lm)");
  all += QStringLiteral(" *.lm");
#ifdef TOMOWB_HAVE_DICOM
  // DICOM files without an extension are picked with "All files" and recognised by content.
  perFormat << tr("DICOM CT or PET images (*.dcm *.dicom)");
  all += QStringLiteral(" *.dcm *.dicom");
#endif
  return QStringList{tr("All supported files (%1)").arg(all)} + perFormat +
         QStringList{tr("All files (*)")};
}

QStringList DataPanel::recentFiles() const {
  return QSettings().value(kRecentFilesKey).toStringList();
}

void DataPanel::clearRecentFiles() {
  QSettings().remove(kRecentFilesKey);
  emit recentFilesChanged();
}

void DataPanel::addRecentFile(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentFilesKey, files);
  emit recentFilesChanged();
}

void DataPanel::showOpenDialog() {
  QSettings settings;
  const QString dir = settings.value("lastOpenDir", QDir::homePath()).toString();
  const QStringList files =
      QFileDialog::getOpenFileNames(this, tr("Open data"), dir, nameFilters().join(";;"));
  if (files.isEmpty()) return;
  settings.setValue("lastOpenDir", QFileInfo(files.front()).absolutePath());
  openFiles(files);
}

void DataPanel::showOpenFolderDialog() {
  QSettings settings;
  const QString dir = settings.value("lastOpenDir", QDir::homePath()).toString();
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Open a TIFF series (one file per slice)"), dir);
  if (folder.isEmpty()) return;
  settings.setValue("lastOpenDir", folder);
  openFiles({folder});
}

void DataPanel::showOpenDicomFolderDialog() {
  QSettings settings;
  const QString dir = settings.value("lastOpenDir", QDir::homePath()).toString();
  const QString folder =
      QFileDialog::getExistingDirectory(this, tr("Open a DICOM series (a folder of files)"), dir);
  if (folder.isEmpty()) return;
  settings.setValue("lastOpenDir", folder);
  openFiles({folder});
}

void DataPanel::openFiles(const QStringList& paths) {
  // Several *.dcm files of one folder are the slices of a series (or a few series): open the
  // folder once, not one single-slice volume per file.
  QStringList files;
  for (const QString& p : paths)
    if (!p.isEmpty()) files << p;
#ifdef TOMOWB_HAVE_DICOM
  QMap<QString, int> dicomFilesPerFolder;
  const auto isDcm = [](const QString& p) {
    const QString suffix = QFileInfo(p).suffix().toLower();
    return (suffix == QStringLiteral("dcm") || suffix == QStringLiteral("dicom")) &&
           QFileInfo(p).isFile();
  };
  for (const QString& p : files)
    if (isDcm(p)) ++dicomFilesPerFolder[QFileInfo(p).absolutePath()];
  QStringList collapsed;
  for (const QString& p : files) {
    const QString folder = QFileInfo(p).absolutePath();
    if (!isDcm(p) || dicomFilesPerFolder.value(folder) < 2)
      collapsed << p;
    else if (!collapsed.contains(folder))
      collapsed << folder;
  }
  files = collapsed;
#endif
  queue_ << files;
  if (!loader_->busy()) startNext();
}

void DataPanel::openDemo(DemoKind kind, int size) {
  lastDemo_ = DemoRequest{kind, size};
  queue_.clear();
  loader_->startDemo(kind, size);
  setBusy(true, loader_->currentLabel());
}

void DataPanel::simulatePet(const PetSimulationRequest& request) {
  if (loader_->busy()) {
    onFailed(tr("Simulate PET scan: wait for %1 to finish loading").arg(loader_->currentLabel()));
    return;
  }
  queue_.clear();
  loader_->startPetSimulation(request);
  setBusy(true, loader_->currentLabel());
}

void DataPanel::showOpenListModeDialog() {
  QSettings settings;
  const QString dir = settings.value("lastOpenDir", QDir::homePath()).toString();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open TOF-PET list mode"), dir,
                                                    tr("TOF-PET list mode (*.lm);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue("lastOpenDir", QFileInfo(path).absolutePath());
  openFiles({path});
}

void DataPanel::startNext() {
  while (!queue_.isEmpty()) {
    const QString path = queue_.takeFirst();
    if (!LoadTask::mayHoldEither(path)) {
      loader_->startFile(path);
      setBusy(true, loader_->currentLabel());
      return;
    }
    // A stack that does not say what it holds: ask (the answer may take a while; the queue waits).
    const StackAnswer answer = chooseStackKind_ ? chooseStackKind_(path) : askStackKind(path);
    if (answer.choice == StackChoice::Volume) {
      loader_->startFile(path, LoadKind::Volume);
      setBusy(true, loader_->currentLabel());
      return;
    }
    if (answer.choice == StackChoice::Projections) {
      loader_->startProjections(path, answer.attachment);
      setBusy(true, loader_->currentLabel());
      return;
    }
    emit loadCancelled();
  }
  setBusy(false);
}

DataPanel::StackAnswer DataPanel::askStackKind(const QString& path) {
  QMessageBox box(QMessageBox::Question, tr("Projections or volume?"),
                  tr("%1 is a stack of images that does not say what it holds.\n\nOpen it as "
                     "projections (you choose the geometry file next: our JSON, ASTRA vectors, "
                     "3x4 matrices or IMOD tilt angles) or as a volume?")
                      .arg(QFileInfo(path).fileName()),
                  QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("projectionsOrVolume"));
  QPushButton* projections = box.addButton(tr("&Projections…"), QMessageBox::AcceptRole);
  QPushButton* volume = box.addButton(tr("&Volume"), QMessageBox::AcceptRole);
  box.setDefaultButton(projections);
  box.exec();
  StackAnswer answer;
  if (box.clickedButton() == volume) {
    answer.choice = StackChoice::Volume;
  } else if (box.clickedButton() == projections) {
    OpenProjectionsDialog dialog(path, this);
    if (dialog.exec() == QDialog::Accepted) {
      answer.choice = StackChoice::Projections;
      answer.attachment = dialog.attachment();
    }
  }
  return answer;
}

void DataPanel::startLoad(const std::function<void()>& start) {
  if (loader_->busy()) {
    lastError_ = tr("Wait for %1 to finish loading").arg(loader_->currentLabel());
    emit loadFailed(lastError_);
    return;
  }
  start();
  setBusy(true, loader_->currentLabel());
}

void DataPanel::showOpenProjectionsDialog(const QString& path) {
  auto* dialog = new OpenProjectionsDialog(path, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this,
          [this, dialog] { openProjections(dialog->projectionsPath(), dialog->attachment()); });
  dialog->open();
}

void DataPanel::openProjections(const QString& path, const io::GeometryAttachment& attachment) {
  startLoad([&] { loader_->startProjections(path, attachment); });
}

void DataPanel::openAsVolume(const QString& path) {
  startLoad([&] { loader_->startFile(path, LoadKind::Volume); });
}

void DataPanel::cancelLoading() {
  queue_.clear();
  if (loader_->busy()) loader_->cancel();
  setBusy(false);
  emit loadCancelled();
}

void DataPanel::setBusy(bool busy, const QString& label, bool preprocessing) {
  busyRow_->setVisible(busy);
  if (busy) {
    busyLabel_->setText(preprocessing ? tr("Preprocessing") : tr("Loading %1").arg(label));
    busyLabel_->setToolTip(label);
    progress_->setRange(0, 0);  // "busy" until a fraction arrives
    if (preprocessing)
      emit preprocessStarted(label);
    else
      emit loadStarted(label);
  }
  updatePreprocessAction();
}

void DataPanel::updatePreprocessAction() {
  const bool can = workspace_.projections() && !loader_->busy();
  preprocessAction_->setEnabled(can);
  preprocessAction_->setToolTip(can ? tr("Crop, bin, log-transform or normalise the current "
                                         "projections into a new entry")
                                : workspace_.projections()
                                    ? tr("Wait for the running load to finish")
                                    : tr("Open projections or a demo first"));
}

QStringList DataPanel::projectionWarnings() const {
  return workspace_.projectionWarnings();
}

void DataPanel::showPreprocessDialog() {
  const auto& projections = workspace_.projections();
  if (!projections || loader_->busy()) return;
  auto* dialog = new PreprocessDialog(projections->geometry(), workspace_.projectionsName(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { preprocess(dialog->params()); });
  dialog->open();
}

void DataPanel::preprocess(const preprocess::TiltSeriesPreprocessing& params) {
  const auto& projections = workspace_.projections();
  if (!projections) return;
  if (loader_->busy()) {
    onFailed(tr("Preprocess %1: wait for %2 to finish loading")
                 .arg(workspace_.projectionsName(), loader_->currentLabel()));
    return;
  }
  QString name;
  try {
    // Check here (the dialog does too): a bad setting is a message, not a worker failure.
    preprocess::preprocessedGeometry(projections->geometry(), params);
    name =
        LoadTask::preprocessedName(workspace_.projectionsName(), params, projections->geometry());
  } catch (const std::exception& e) {
    onFailed(tr("Preprocess %1: %2")
                 .arg(workspace_.projectionsName(), QString::fromStdString(e.what())));
    return;
  }
  queue_.clear();
  loader_->startPreprocess(projections, params, name);
  setBusy(true, name, true);
}

void DataPanel::onProgress(double fraction) {
  if (fraction < 0) {
    progress_->setRange(0, 0);
  } else {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(std::lround(fraction * 1000)));
  }
}

void DataPanel::chooseDicomSeries(const LoadResult& listing) {
  QString uid;
  if (chooseSeries_) {
    uid = chooseSeries_(listing.path, listing.dicomSeries);
  } else {
    QStringList labels;
    for (const DicomSeriesOption& option : listing.dicomSeries) labels << option.label;
    bool ok = false;
    const QString chosen = QInputDialog::getItem(
        this, tr("Open DICOM series"),
        tr("%1 holds %n series. Open which one?", nullptr, static_cast<int>(labels.size()))
            .arg(listing.name),
        labels, 0, false, &ok);
    if (ok)
      for (const DicomSeriesOption& option : listing.dicomSeries)
        if (option.label == chosen) uid = option.uid;
  }
  if (uid.isEmpty()) {
    emit loadCancelled();
    startNext();
    return;
  }
  loader_->startDicomSeries(listing.path, uid);
  setBusy(true, loader_->currentLabel());
}

QStringList DataPanel::volumeWarnings(int index) const {
  const auto& volumes = workspace_.volumes();
  if (index < 0 || index >= static_cast<int>(volumes.size())) return {};
  const auto& volume = volumes[std::size_t(index)].volume;
  for (const auto& [weak, warnings] : volumeWarnings_)
    if (volume && weak.lock() == volume) return warnings;
  return {};
}

void DataPanel::onLoaded(const LoadResult& result) {
  if (!result.dicomSeries.isEmpty() && !result.volume) {
    // A DICOM folder with several series: nothing was read yet.
    chooseDicomSeries(result);
    return;
  }
  if (result.runRecord) {
    // A run record goes to the run list (the main window adds the entry and its volume).
    if (!result.path.isEmpty()) addRecentFile(result.path);
    emit runRecordLoaded(result);
    emit loaded(result.name);
    startNext();
    return;
  }
  if (result.pet) {
    onPetLoaded(result);
  } else if (result.projections) {
    // New projections are a new data set: the workspace drops the old one's phantom (it must
    // never be the truth for these), then the data's own phantom, if any, is set. Derived
    // projections (preprocessing) stay with the phantom of the data they came from.
    if (result.derived)
      workspace_.addProjections({result.name, {}, result.projections, result.warnings, {}});
    else
      workspace_.setProjections(result.projections, result.name, result.path, result.warnings);
    if (result.phantom) {
      const bool et = result.phantom->name() == "et-specimen";
      workspace_.setCnrPhantom(result.cnrPhantom);
      workspace_.setPhantom(result.phantom, result.cnrPhantom ? tr("CNR phantom")
                                            : et              ? tr("ET specimen")
                                                              : tr("modified Shepp-Logan"));
    }
    // The photon counts behind noisy demo data: PWLS weights its rays by them.
    if (result.counts && !result.derived) workspace_.setCounts(result.counts);
  } else if (result.volume) {
    if (!result.warnings.isEmpty()) {
      std::erase_if(volumeWarnings_, [](const auto& entry) { return entry.first.expired(); });
      volumeWarnings_.emplace_back(result.volume, result.warnings);
    }
    const int index = workspace_.addVolume({result.name, result.path, result.volume, -1});
    workspace_.setCurrentVolume(index);
  }
  if (!result.path.isEmpty()) addRecentFile(result.path);
  emit loaded(result.name);
  startNext();
}

void DataPanel::onFailed(const QString& message) {
  lastError_ = message;
  emit loadFailed(message);
  if (showsErrorDialogs_) {
    // Non-modal: the window stays usable and the next queued file opens meanwhile.
    // Lab-staff words first, the reader's exact detail after (ErrorWording.h).
    const ErrorWording wording =
        wordLoadError(message.toStdString(), message.section(QLatin1Char(':'), 0, 0).toStdString());
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Cannot open file"),
                                QString::fromStdString(wording.plain), QMessageBox::Ok, this);
    box->setInformativeText(message);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  startNext();
}

void DataPanel::onPetLoaded(const LoadResult& result) {
  // PET list mode is a data set of its own: projections and their phantom go. A scan simulated
  // here brings its phantom's activity (the truth) as a volume.
  workspace_.setPetData(result.pet);
  if (result.pet->activity) {
    const int index = workspace_.addVolume(
        {tr("PET phantom: activity (Bq/mL)"), QString(), result.pet->activity, -1});
    workspace_.setCurrentVolume(index);
  }
}

void DataPanel::addPetItem() {
  const auto& pet = workspace_.petData();
  if (!pet) return;
  auto* item = new QTreeWidgetItem(list_);
  item->setText(0,
                tr("PET list mode: %1\n%2 prompts · %3 delayed · %4")
                    .arg(pet->name, countText(pet->promptCount()), countText(pet->delayedCount()),
                         QString::fromStdString(pet->header.scanner.name)));
  item->setData(0, kKindRole, PetItem);
  item->setData(0, kPathRole, pet->sourcePath);
  QString tip = pet->sourcePath.isEmpty() ? tr("simulated in this window") : pet->sourcePath;
  if (!pet->warnings.isEmpty())
    tip += QStringLiteral("\n\n") + pet->warnings.join(QStringLiteral("\n"));
  item->setToolTip(0, tip);
}

void DataPanel::rebuildList() {
  list_->clear();
  const auto& entries = workspace_.projectionEntries();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const NamedProjections& entry = entries[i];
    if (!entry.projections) continue;
    auto* item = new QTreeWidgetItem(list_);
    const Geometry& own = entry.projections->geometry();
    const Geometry& g = entry.editedGeometry ? *entry.editedGeometry : own;
    QString details = geometryText(g);
    if (!(g == own)) details += tr(" · edited geometry");
    item->setText(0, tr("Projections: %1\n%2").arg(entry.name, details));
    item->setData(0, kKindRole, ProjectionsItem);
    item->setData(0, kIndexRole, static_cast<int>(i));
    item->setData(0, kPathRole, entry.sourcePath);
    QString tip = entry.sourcePath.isEmpty() ? tr("generated") : entry.sourcePath;
    if (!entry.warnings.isEmpty()) {
      // What the reader (or preprocessing) found odd (an MRC without a pixel size, a skewed
      // alignment, dropped columns): one line in the list, every warning in the tooltip.
      item->setText(0, item->text(0) + tr("\n\u26a0 %n warning(s): hover to read", nullptr,
                                          static_cast<int>(entry.warnings.size())));
      tip += QStringLiteral("\n\n") + entry.warnings.join(QStringLiteral("\n"));
    }
    item->setToolTip(0, tip);
    // With several entries the current one (what panels and runs use) is bold.
    if (entries.size() > 1 && static_cast<int>(i) == workspace_.currentProjectionsIndex()) {
      QFont bold = item->font(0);
      bold.setBold(true);
      item->setFont(0, bold);
    }
  }
  addPetItem();
  if (workspace_.phantom()) {
    auto* item = new QTreeWidgetItem(list_);
    item->setText(0, tr("Phantom: %1\n%2")
                         .arg(workspace_.phantomName(),
                              workspace_.cnrPhantom() ? tr("analytic, with CNR spheres")
                                                      : tr("analytic: the truth for metrics")));
    item->setData(0, kKindRole, PhantomItem);
  }
  const auto& volumes = workspace_.volumes();
  for (std::size_t i = 0; i < volumes.size(); ++i) {
    const NamedVolume& v = volumes[i];
    auto* item = new QTreeWidgetItem(list_);
    item->setText(0, v.volume ? tr("%1\n%2").arg(v.name, volumeText(*v.volume)) : v.name);
    item->setData(0, kKindRole, VolumeItem);
    item->setData(0, kIndexRole, static_cast<int>(i));
    item->setData(0, kPathRole, v.sourcePath);
    QString tip = v.sourcePath.isEmpty() ? tr("generated") : v.sourcePath;
    if (const QStringList warnings = volumeWarnings(static_cast<int>(i)); !warnings.isEmpty()) {
      // As for projections: one line in the list, every warning in the tooltip.
      item->setText(0, item->text(0) + tr("\n\u26a0 %n warning(s): hover to read", nullptr,
                                          static_cast<int>(warnings.size())));
      tip += QStringLiteral("\n\n") + warnings.join(QStringLiteral("\n"));
    }
    item->setToolTip(0, tip);
    if (static_cast<int>(i) == workspace_.currentVolumeIndex()) {
      QFont bold = item->font(0);
      bold.setBold(true);
      item->setFont(0, bold);
      list_->setCurrentItem(item);
    }
  }
}

void DataPanel::onItemClicked(QTreeWidgetItem* item) {
  if (item && item->data(0, kKindRole).toInt() == ProjectionsItem) {
    // Queued: the list is rebuilt on the workspace's signal, which deletes `item`.
    const int index = item->data(0, kIndexRole).toInt();
    QMetaObject::invokeMethod(
        this, [this, index] { workspace_.setCurrentProjections(index); }, Qt::QueuedConnection);
  }
  if (item && item->data(0, kKindRole).toInt() == VolumeItem) {
    const int index = item->data(0, kIndexRole).toInt();
    if (index != workspace_.currentVolumeIndex()) workspace_.setCurrentVolume(index);
  }
}

void DataPanel::showContextMenu(const QPoint& position) {
  QMenu menu(this);
  fillContextMenu(menu, list_->itemAt(position));
  menu.exec(list_->viewport()->mapToGlobal(position));
}

bool DataPanel::triggerContextMenuAction(int row, const QString& text) {
  QTreeWidgetItem* item = list_->topLevelItem(row);
  if (!item) return false;
  QMenu menu(this);
  fillContextMenu(menu, item);
  for (QAction* action : menu.actions())
    if (action->text().remove(QLatin1Char('&')).startsWith(text) && action->isEnabled()) {
      action->trigger();
      return true;
    }
  return false;
}

void DataPanel::fillContextMenu(QMenu& menu, QTreeWidgetItem* item) {
  if (item) {
    const int kind = item->data(0, kKindRole).toInt();
    menu.addAction(tr("&Close"), this, [this, item] { closeItem(item); });
    QAction* info =
        menu.addAction(tr("Show file &info"), this, [this, item] { showFileInfo(item); });
    info->setEnabled(!item->data(0, kPathRole).toString().isEmpty() || kind != PhantomItem);
    if (kind == PetItem) info->setText(tr("Show list-mode &header"));
    if (kind == ProjectionsItem) {
      const int index = item->data(0, kIndexRole).toInt();
      QAction* preprocessItem = menu.addAction(tr("&Preprocess…"), this, [this, index] {
        workspace_.setCurrentProjections(index);
        showPreprocessDialog();
      });
      preprocessItem->setEnabled(!loader_->busy());
    }
    // Reopen a stack the other way: a tilt series (or other projections) read as a volume, a
    // volume read as projections.
    const QString path = item->data(0, kPathRole).toString();
    if (kind == ProjectionsItem && !path.isEmpty()) {
      bool stack = false;
      try {
        const io::DataFormat format = io::dataFormatForPath(path.toStdString());
        stack = format != io::DataFormat::RabbitCt && format != io::DataFormat::RawJson;
      } catch (const std::exception&) {
      }
      menu.addAction(tr("Open as &volume"), this, [this, path] { openAsVolume(path); })
          ->setEnabled(stack && !loader_->busy());
    }
    if (kind == VolumeItem && !path.isEmpty() && !LoadTask::isDicom(path)) {
      menu.addAction(tr("Open as &tilt series / projections…"), this,
                     [this, path] {
                       // An MRC stack with its tilt angles beside it needs no questions.
                       const std::filesystem::path tilts =
                           io::findCompanionFiles(path.toStdString()).tiltAngles;
                       if (io::isMrcPath(path.toStdString()) && !tilts.empty()) {
                         io::GeometryAttachment a;
                         a.geometryFile = tilts;
                         openProjections(path, a);
                       } else {
                         showOpenProjectionsDialog(path);
                       }
                     })
          ->setEnabled(!loader_->busy());
    }
    menu.addSeparator();
  }
  menu.addAction(tr("Close &all…"), this, [this] { closeAll(); })
      ->setEnabled(list_->topLevelItemCount() > 0);
  menu.addAction(tr("&Open…"), this, &DataPanel::showOpenDialog);
  menu.addAction(tr("Open &projections…"), this, [this] { showOpenProjectionsDialog(); });
}

void DataPanel::closeItem(QTreeWidgetItem* item) {
  switch (item->data(0, kKindRole).toInt()) {
    case ProjectionsItem:
      workspace_.removeProjections(item->data(0, kIndexRole).toInt());
      break;
    case PhantomItem:
      workspace_.setCnrPhantom(nullptr);
      workspace_.setPhantom(nullptr, {});
      break;
    case PetItem:
      workspace_.setPetData(nullptr);
      break;
    case VolumeItem: {
      const int index = item->data(0, kIndexRole).toInt();
      if (!closeGuard_ || closeGuard_({index})) workspace_.removeVolume(index);
      break;
    }
    default:
      break;
  }
}

bool DataPanel::closeAll() {
  std::vector<int> all(workspace_.volumes().size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  if (closeGuard_ && !closeGuard_(all)) return false;
  workspace_.clear();
  return true;
}

void DataPanel::showFileInfo(QTreeWidgetItem* item) {
  const QString path = item->data(0, kPathRole).toString();
  QString text;
  if (item->data(0, kKindRole).toInt() == PetItem) {
    // The list-mode header as the file (or the simulation) has it.
    if (const auto& pet = workspace_.petData())
      text = QString::fromStdString(pet::listModeHeaderToJson(pet->header).dump(2));
  } else if (!path.isEmpty()) {
    // describeFile reads the header and scans values up to 256 MiB: well under a second.
    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
#ifdef TOMOWB_HAVE_DICOM
      if (LoadTask::isDicom(path)) {
        for (const io::dicom::DicomSeriesInfo& s : io::dicom::listDicomSeries(path.toStdString()))
          text +=
              tr("%1 (%2, %3)\nSeries %4 · %5 × %6 × %7 · %n file(s)\nPatient %8 (%9)\n"
                 "Series UID %10\nStudy UID %11\n\n",
                 nullptr, static_cast<int>(s.files))
                  .arg(QString::fromStdString(s.seriesDescription),
                       QString::fromStdString(s.sopClass), QString::fromStdString(s.modality))
                  .arg(s.seriesNumber)
                  .arg(s.columns)
                  .arg(s.rows)
                  .arg(s.frames)
                  .arg(QString::fromStdString(s.patientName), QString::fromStdString(s.patientId),
                       QString::fromStdString(s.seriesInstanceUid),
                       QString::fromStdString(s.studyInstanceUid));
      } else
#endif
        text = QString::fromStdString(io::describeFile(path.toStdString()).toText());
    } catch (const std::exception& e) {
      text = QString::fromStdString(e.what());
    }
    QApplication::restoreOverrideCursor();
  } else if (item->data(0, kKindRole).toInt() == ProjectionsItem) {
    const int index = item->data(0, kIndexRole).toInt();
    const auto& entries = workspace_.projectionEntries();
    if (index >= 0 && index < static_cast<int>(entries.size()) &&
        entries[std::size_t(index)].projections)
      text = tr("generated projections\n%1")
                 .arg(geometryText(entries[std::size_t(index)].projections->geometry()));
  } else if (item->data(0, kKindRole).toInt() == VolumeItem) {
    const int index = item->data(0, kIndexRole).toInt();
    const auto& volumes = workspace_.volumes();
    if (index >= 0 && index < static_cast<int>(volumes.size()) &&
        volumes[std::size_t(index)].volume)
      text = tr("generated volume\n%1").arg(volumeText(*volumes[std::size_t(index)].volume));
  }
  auto* box = new QMessageBox(QMessageBox::Information,
                              tr("File info: %1").arg(item->text(0).section('\n', 0, 0)), text,
                              QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setTextInteractionFlags(Qt::TextSelectableByMouse);
  box->open();
}

}  // namespace tomowb::gui
